package dpaudit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/report"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/figure"
)

// checkReport checks the figures of the report block against the columns
// the compiled spec will write: a typo is a positioned spec error before
// anything runs.
func checkReport(s *spec.Spec, points []spec.Point, c *stages.Compiled) error {
	probs := report.Check(points[0].Exp.Report, report.Available(c.Columns))
	probs = append(probs, checkTradeoffFigures(points)...)
	if len(probs) == 0 {
		return nil
	}
	var errs spec.Errors
	for _, p := range probs {
		errs = append(errs, s.ErrorAt(p.Path, p)...)
	}
	return errs
}

// checkTradeoffFigures refuses a tradeoff figure over a point that has no
// membership audit whose trials it could draw (a classic audit: estimator
// clopper_pearson, stop fixed). With a where, which points it keeps is
// known only from the summary: then at least one point must qualify, and
// the figure node refuses a kept point without one.
func checkTradeoffFigures(points []spec.Point) []report.Problem {
	r := points[0].Exp.Report
	if r == nil {
		return nil
	}
	var out []report.Problem
	for i, f := range r.Figures {
		if f.Tradeoff == nil {
			continue
		}
		var missing []string
		for _, pt := range points {
			if a := pt.Exp.Audit; a == nil || a.Estimator != "clopper_pearson" || a.Stop != "fixed" {
				missing = append(missing, fmt.Sprint(pt.Index))
			}
		}
		path := fmt.Sprintf("report.figures[%d].kind", i)
		msg := "a tradeoff figure draws a membership audit (estimator clopper_pearson, stop fixed) against its claim, and "
		switch {
		case len(missing) == len(points):
			out = append(out, report.Problem{Path: path, Msg: msg + "no point has one"})
		case len(missing) > 0 && f.Tradeoff.Where == "":
			out = append(out, report.Problem{Path: path, Msg: msg + "point(s) " + strings.Join(missing, ", ") + " have none: keep the audited points with where"})
		}
	}
	return out
}

// publishFigures copies the figure nodes' files out of the store into
// dir/figures, each a verified copy (see publishNodeFile).
func (p *Plan) publishFigures(dir string) ([]figure.Info, error) {
	var infos []figure.Info
	if len(p.Compiled.Figures) == 0 {
		return nil, nil
	}
	figDir := filepath.Join(dir, "figures")
	if err := os.MkdirAll(figDir, 0o777); err != nil {
		return nil, err
	}
	for _, n := range p.Compiled.Figures {
		b, err := os.ReadFile(filepath.Join(p.Store.Dir(n.StoreKey()), figure.InfoFile))
		if err != nil {
			return nil, err
		}
		var info figure.Info
		if err := json.Unmarshal(b, &info); err != nil {
			return nil, fmt.Errorf("figure %s: %w", n.Label, err)
		}
		for _, f := range info.Files {
			if err := p.publishNodeFile(n, f, filepath.Join(figDir, f)); err != nil {
				return nil, err
			}
		}
		infos = append(infos, info)
	}
	return infos, pipeline.SyncDir(figDir)
}

// replaceDir builds a folder beside final with fill and swaps it in, so a
// reader never sees half of it; with remove, final is deleted instead.
func replaceDir(final string, fill func(tmp string) error, remove bool) error {
	if remove {
		return os.RemoveAll(final)
	}
	parent := filepath.Dir(final)
	tmp, err := pipeline.MkdirTemp(parent, "."+filepath.Base(final)+"-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return err
	}
	old, err := pipeline.MkdirTemp(parent, "."+filepath.Base(final)+"-old-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(old)
	had := true
	if err := os.Rename(final, filepath.Join(old, "d")); err != nil {
		if !os.IsNotExist(err) {
			return err
		}
		had = false
	}
	if err := os.Rename(tmp, final); err != nil {
		if had {
			os.Rename(filepath.Join(old, "d"), final)
		}
		return err
	}
	return nil
}

func writeFileAtomic(path string, b []byte) error {
	f, err := pipeline.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ReportResult is what dpaudit report wrote.
type ReportResult struct {
	Dir     string
	HTML    string
	Figures []figure.Info
}

// Report redraws the figures of a results folder from its tables (never
// recomputing a result) and writes its report.html. target is a results
// folder (the figures come from its manifest) or a spec (its report block,
// checked against its columns, over o.Results/<name>).
func Report(target string, o Options) (*ReportResult, error) {
	o = o.withDefaults()
	st, err := os.Stat(target)
	if err != nil {
		return nil, &InputError{fmt.Errorf("%s: %w", target, errUnwrap(err))}
	}
	var dir string
	var rep *spec.Report
	var desc string
	fromSpec := !st.IsDir()
	if fromSpec {
		plan, err := Load(target, o)
		if err != nil {
			return nil, err
		}
		dir = plan.ResultsDir()
		rep, desc = plan.Points[0].Exp.Report, plan.Points[0].Exp.Description
	} else {
		dir = target
	}
	m, err := readManifest(dir)
	if err != nil {
		return nil, &InputError{err}
	}
	if fromSpec {
		m.Report, m.Description = reportJSON(rep), desc
	} else if rep, err = decodeReport(dir, m.Report); err != nil {
		return nil, &InputError{fmt.Errorf("%s: the report block recorded in manifest.json: %w", dir, err)}
	}
	res, files, err := redrawFigures(dir, rep, m)
	if err != nil {
		return nil, err
	}
	err = replaceDir(filepath.Join(dir, "figures"), func(tmp string) error {
		for name, b := range files {
			if err := writeFileAtomic(filepath.Join(tmp, name), b); err != nil {
				return err
			}
		}
		return nil
	}, len(files) == 0)
	if err != nil {
		return nil, &InputError{fmt.Errorf("cannot write the figures into %s: %w", dir, errUnwrap(err))}
	}
	m.Figures = res.Figures
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, "manifest.json"), append(b, '\n')); err != nil {
		return nil, &InputError{fmt.Errorf("cannot write %s: %w", filepath.Join(dir, "manifest.json"), errUnwrap(err))}
	}
	if res.HTML, err = writeReportPage(dir); err != nil {
		return nil, &InputError{fmt.Errorf("cannot write the report page: %w", errUnwrap(err))}
	}
	return res, nil
}

// redrawFigures draws the report block's figures from the tables of the
// results folder dir, after checking them against the tables' columns:
// the files by name, and what Report returns.
func redrawFigures(dir string, rep *spec.Report, m *Manifest) (*ReportResult, map[string][]byte, error) {
	tables, err := report.FindTables(dir)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	sum, err := pipeline.ReadParquet(tables.Summary)
	if err != nil {
		return nil, nil, err
	}
	res := &ReportResult{Dir: dir}
	files := map[string][]byte{}
	if rep == nil {
		return res, files, nil
	}
	// Check the figures against the tables as they are.
	avail := report.Available{}
	for _, c := range sum.Columns {
		avail.Summary = append(avail.Summary, c.Name)
	}
	if len(tables.Trials) > 0 {
		avail.Trials = m.trialColumns(tables.Trials[0].Path)
	}
	if probs := report.Check(rep, avail); len(probs) > 0 {
		var msgs []string
		for _, p := range probs {
			msgs = append(msgs, p.Path+": "+p.Msg)
		}
		return nil, nil, &InputError{fmt.Errorf("%s: the figures do not fit the tables:\n  %s", dir, strings.Join(msgs, "\n  "))}
	}
	for i := range rep.Figures {
		info, fs, err := figure.Draw(&rep.Figures[i], sum, tables.Trials)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range fs {
			files[k] = v
		}
		res.Figures = append(res.Figures, *info)
	}
	return res, files, nil
}

func errUnwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

func readManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a results folder (no manifest.json; run the spec first: dpaudit run SPEC)", dir)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s/manifest.json: %w", dir, err)
	}
	return &m, nil
}

// trialColumns reads the column names of one trials table.
func (m *Manifest) trialColumns(path string) []string {
	t, err := pipeline.ReadParquet(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range t.Columns {
		out = append(out, c.Name)
	}
	return out
}

// writeReportPage writes dir/report.html from the folder's manifest,
// summary and figures.
func writeReportPage(dir string) (string, error) {
	m, err := readManifest(dir)
	if err != nil {
		return "", err
	}
	sumPath := filepath.Join(dir, stages.SummaryFile)
	sum, err := pipeline.ReadParquet(sumPath)
	if err != nil {
		return "", err
	}
	pg := report.Page{Title: m.Name, Description: m.Description, Table: sum}
	for _, f := range m.Figures {
		pf := report.PageFigure{Name: f.Name, Title: f.Title, Files: f.Files, Notes: f.Notes}
		pf.SVG, _ = os.ReadFile(filepath.Join(dir, "figures", f.Name+".svg"))
		if len(pf.SVG) == 0 {
			pf.PNG, _ = os.ReadFile(filepath.Join(dir, "figures", f.Name+".png"))
		}
		pg.Figures = append(pg.Figures, pf)
	}
	if panel := riskPanel(sum, pointParams(m)); panel != nil {
		pg.Panels = append(pg.Panels, *panel)
	}
	if pg.Banner, err = violationLines(sum, m); err != nil {
		return "", err
	}
	if len(pg.Banner) > 0 {
		pg.BannerTitle = fmt.Sprintf("PRIVACY VIOLATION: %d of %d point(s) break their claimed guarantee", len(pg.Banner), sum.Rows())
	}
	pg.Groups = summaryGroups(sum, m)
	pg.Provenance = provenance(m)
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, pg); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "report.html")
	return out, writeFileAtomic(out, buf.Bytes())
}

// violationLines lists every violation the registered games read from the
// summary, with the point's parameters, what was measured against what,
// and what was claimed and what was trained.
func violationLines(sum *pipeline.Table, m *Manifest) ([]string, error) {
	vs, err := stages.Violations(games, sum)
	if err != nil || len(vs) == 0 {
		return nil, err
	}
	params := pointParams(m)
	var out []string
	for _, v := range vs {
		line := fmt.Sprintf("point %d [%s] %s: %s", v.PointIndex, v.Column, params[v.PointIndex], v.Message)
		if v.Claimed != "" {
			line += fmt.Sprintf("\n  claimed: %s\n  trained: %s", v.Claimed, v.Trained)
		}
		out = append(out, line)
	}
	return out, nil
}

// summaryGroups sorts the summary's columns under the headers report.html
// shows: the point's parameters (swept, derived, claimed and trained
// configuration), the accountant's ε, the estimates the games measured,
// and the bounds they are compared with.
func summaryGroups(sum *pipeline.Table, m *Manifest) []report.ColumnGroup {
	swept := map[string]bool{}
	for _, pt := range m.Points {
		for k := range pt.Values {
			// Values are keyed by spec path; a column is named by the
			// path's last key or by the whole path with '_' for '.'.
			swept[k[strings.LastIndex(k, ".")+1:]] = true
			swept[strings.NewReplacer(".", "_", "[", "_", "]", "").Replace(strings.TrimPrefix(k, "vars."))] = true
		}
	}
	groups := []report.ColumnGroup{{Name: "parameters"}, {Name: "accountant"}, {Name: "estimates"}, {Name: "bounds"}, {Name: "violation"}}
	for _, c := range sum.Columns {
		if g := columnGroup(c.Name, swept); g >= 0 {
			groups[g].Columns = append(groups[g].Columns, c.Name)
		}
	}
	return groups
}

// columnGroup is the index of a column's group in summaryGroups, or -1
// for "other", by the column-name conventions of schemas/tables.md.
func columnGroup(name string, swept map[string]bool) int {
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
	switch {
	case name == "point_id" || swept[name] || has("claim_", "trained_", "audit_", "dpsgd_", "recon_", "identify_repetitions", "identify_adjacency", "identify_sensitivity", "glm_learner", "glm_options", "glm_noise_scale", "runs", "noise_multiplier", "target_", "threshold_method"):
		return 0
	case has("epsilon_accountant", "epsilon_rdp", "epsilon_pld", "epsilon_gdp", "epsilon_best", "best_accountant", "epsilon_pld_"):
		return 1
	case has("violation"):
		return 4
	case has("rero_", "rho_", "belief_", "mse_", "glm_bound_", "glm_dfil_bound", "fil_bound", "bound_"):
		return 3
	case has("epsilon_", "reconstruction_", "identify_", "glm_mse", "one_run_", "per_step_", "sequential_", "auc", "tpr_", "fpr", "fnr", "gdp_mu", "attack_", "test_", "train_", "profile_"):
		return 2
	}
	return -1
}

func provenance(m *Manifest) [][2]string {
	if e := m.Estimate; e != nil {
		return estimateProvenance(m, e)
	}
	commit := m.Spec.GitCommit
	if m.Spec.GitDirty {
		commit += " (uncommitted changes)"
	}
	var kinds []string
	for k, n := range m.Nodes.ByKind {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	return [][2]string{
		{"spec", m.Spec.Path},
		{"spec sha256", m.Spec.SHA256},
		{"spec git commit", commit},
		{"seed", fmt.Sprint(m.Seed)},
		{"points", fmt.Sprint(len(m.Points))},
		{"dpaudit", strings.TrimSpace(m.Dpaudit.Version + " " + m.Dpaudit.GitCommit)},
		{"Go", m.Dpaudit.GoVersion},
		{"nodes", fmt.Sprintf("%d total: %d run, %d from the cache (%s)", m.Nodes.Total, m.Nodes.Run, m.Nodes.Cached, strings.Join(kinds, ", "))},
		{"run", fmt.Sprintf("%s → %s (%.1f s)", m.Started.Format("2006-01-02 15:04:05 MST"), m.Ended.Format("15:04:05"), m.Seconds)},
		{"store", m.Store},
	}
}

// pointParams is each point's swept and derived values as "key=value …",
// by point index.
func pointParams(m *Manifest) map[int64]string {
	params := map[int64]string{}
	for _, pt := range m.Points {
		var keys []string
		for k := range pt.Values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, fmt.Sprintf("%s=%v", k, pt.Values[k]))
		}
		params[int64(pt.Index)] = strings.Join(kv, " ")
	}
	return params
}

// estimateProvenance is the provenance of a dpaudit estimate folder: the
// table it read and the command that read it.
func estimateProvenance(m *Manifest, e *EstimateManifest) [][2]string {
	out := [][2]string{
		{"score table", fmt.Sprintf("%s (%s, %d bytes)", e.Input.Path, e.Format, e.Input.Bytes)},
		{"score table sha256", e.Input.SHA256},
	}
	if e.Plan != nil {
		out = append(out, [2]string{"canary plan", e.Plan.Path}, [2]string{"canary plan sha256", e.Plan.SHA256})
	}
	return append(out,
		[2]string{"command", "dpaudit " + strings.Join(e.Args, " ")},
		[2]string{"dpaudit", strings.TrimSpace(m.Dpaudit.Version + " " + m.Dpaudit.GitCommit)},
		[2]string{"Go", m.Dpaudit.GoVersion},
		[2]string{"run", fmt.Sprintf("%s → %s (%.1f s)", m.Started.Format("2006-01-02 15:04:05 MST"), m.Ended.Format("15:04:05"), m.Seconds)},
	)
}

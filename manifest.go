package dpaudit

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/figure"
)

// Manifest is results/<name>/manifest.json: what was run, from which spec,
// with which code, and how much came from the cache.
type Manifest struct {
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Spec        ManifestSpec `json:"spec"`
	Seed        int64        `json:"seed"`
	Dpaudit     BuildInfo    `json:"dpaudit"`
	Started     time.Time    `json:"started"`
	Ended       time.Time    `json:"ended"`
	Seconds     float64      `json:"seconds"`
	Nodes       NodeCounts   `json:"nodes"`
	Store       string       `json:"store"`
	Columns     []string     `json:"columns"`
	Swept       []string     `json:"swept,omitempty"` // the columns that identify a point across runs (dpaudit diff)
	Points      []PointInfo  `json:"points"`
	// Report is the spec's report block, so that dpaudit report can
	// redraw the figures from the folder alone; Figures, what was drawn.
	Report  json.RawMessage `json:"report,omitempty"` // with the spec's keys (spec.ToValue)
	Figures []figure.Info   `json:"figures,omitempty"`
	// Code is the code fingerprint in the node keys; StoreKeys are the
	// store nodes this run used (what `dpaudit store gc` keeps).
	Code      string   `json:"code_fingerprint"`
	StoreKeys []string `json:"store_keys"`
	// DataFiles are the users' data files read (dataset source file), with
	// their SHA-256: plan compares them with the files' digests now.
	DataFiles []stages.DataFile `json:"data_files,omitempty"`
	// Estimate is set in the folder of dpaudit estimate --results: the
	// score table, its digest and every option (no spec was run).
	Estimate *EstimateManifest `json:"estimate,omitempty"`
}

// ManifestSpec identifies the spec file.
type ManifestSpec struct {
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	GitCommit string `json:"git_commit,omitempty"` // of the checkout holding the spec
	GitDirty  bool   `json:"git_dirty,omitempty"`
	// Overrides are the command-line settings applied over the file
	// (dpaudit run -s key.path=value), in order.
	Overrides []string `json:"overrides,omitempty"`
}

// BuildInfo describes the dpaudit binary.
type BuildInfo struct {
	Version string `json:"version"`
	// Module is the main module's version as the go command stamped it: a
	// tag or pseudo-version under go build and go install, "(devel)" under
	// go run and in tests.
	Module    string            `json:"module_version,omitempty"`
	GitCommit string            `json:"git_commit,omitempty"` // of the build, when known
	GitTime   string            `json:"git_time,omitempty"`
	GitDirty  bool              `json:"git_dirty,omitempty"` // built from a checkout with changes
	GoVersion string            `json:"go_version"`
	Modules   map[string]string `json:"modules"`
}

// NodeCounts says how much work was done and how much reused.
type NodeCounts struct {
	Total  int            `json:"total"`
	Run    int            `json:"run"`
	Cached int            `json:"cached"`
	ByKind map[string]int `json:"by_kind"`
	// Of the Run nodes, how many this process computed and how many
	// another process (or a Slurm worker) finished meanwhile.
	ComputedHere      int `json:"computed_here"`
	ComputedElsewhere int `json:"computed_elsewhere"`
}

// PointInfo is one expanded point.
type PointInfo struct {
	Index  int            `json:"index"`
	ID     string         `json:"id"`
	Values map[string]any `json:"values"`
}

// Build returns the version, commit and module versions of this binary.
func Build() BuildInfo {
	b := BuildInfo{Version: Version, GoVersion: runtime.Version(), Modules: map[string]string{}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			v := d.Version
			if d.Replace != nil {
				v += " => " + d.Replace.Path + " " + d.Replace.Version
			}
			b.Modules[d.Path] = v
		}
		b.Module = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.GitCommit = s.Value
			case "vcs.time":
				b.GitTime = s.Value
			case "vcs.modified":
				b.GitDirty = s.Value == "true"
			}
		}
	}
	return b
}

// gitCommit returns the commit of the checkout holding dir, if any.
func gitCommit(dir string) (string, bool) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	commit := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	return commit, err == nil && len(strings.TrimSpace(string(st))) > 0
}

func writeManifest(p *Plan, res *Result, path string) error {
	m := Manifest{
		Name:        p.Spec.Name,
		Seed:        p.Points[0].Exp.Seed,
		Dpaudit:     Build(),
		Started:     res.Started.UTC(),
		Ended:       res.Finished.UTC(),
		Seconds:     res.Finished.Sub(res.Started).Seconds(),
		Store:       p.Store.Root,
		Report:      reportJSON(p.Points[0].Exp.Report),
		Figures:     res.Figures,
		Description: p.Points[0].Exp.Description,
		Code:        pipeline.CodeFingerprint(),
		DataFiles:   p.DataFiles,
	}
	for _, st := range p.Steps {
		m.StoreKeys = append(m.StoreKeys, st.Node.StoreKey())
	}
	abs, _ := filepath.Abs(p.Spec.File)
	m.Spec = ManifestSpec{Path: p.Spec.File, SHA256: p.Spec.SHA256, Overrides: p.Spec.Overrides}
	m.Spec.GitCommit, m.Spec.GitDirty = gitCommit(filepath.Dir(abs))
	m.Nodes.ByKind = map[string]int{}
	for _, st := range p.Steps {
		m.Nodes.Total++
		if st.Status == pipeline.Run {
			m.Nodes.Run++
		} else {
			m.Nodes.Cached++
		}
		m.Nodes.ByKind[st.Node.Kind]++
	}
	m.Nodes.ComputedHere, m.Nodes.ComputedElsewhere = res.ComputedHere, res.ComputedElsewhere
	for _, c := range p.Columns {
		m.Columns = append(m.Columns, c.Name)
		if c.Swept {
			m.Swept = append(m.Swept, c.Name)
		}
	}
	for _, pt := range p.Points {
		vals := map[string]any{}
		for k, v := range pt.Values {
			vals[k] = jsonSafe(v)
		}
		m.Points = append(m.Points, PointInfo{Index: pt.Index, ID: pt.ID, Values: vals})
	}
	sort.Slice(m.Points, func(i, j int) bool { return m.Points[i].Index < m.Points[j].Index })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// jsonSafe replaces non-finite floats, which JSON cannot hold, by the
// strings "+Inf", "-Inf" and "NaN".
func jsonSafe(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonSafe(e)
		}
		return out
	}
	return v
}

// reportJSON records a report block with the spec's own keys.
func reportJSON(r *spec.Report) json.RawMessage {
	if r == nil {
		return nil
	}
	b, err := json.Marshal(spec.ToValue(r))
	if err != nil {
		return nil
	}
	return b
}

// decodeReport reads a report block recorded by reportJSON back through
// the spec decoder (JSON is YAML), with the same defaults and checks.
func decodeReport(dir string, raw json.RawMessage) (*spec.Report, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	s, err := spec.Parse(filepath.Join(dir, "manifest.json"), append([]byte("name: report\nreport: "), raw...), spec.Options{})
	if err != nil {
		return nil, err
	}
	pts, _, err := s.Expand()
	if err != nil {
		return nil, err
	}
	return pts[0].Exp.Report, nil
}

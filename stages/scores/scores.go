// Package scores is the game of a spec whose audit estimates a table of
// attack scores computed elsewhere (audit.source.scores): the user's own
// pipeline, or the canaries of a plan scored after training elsewhere.
// Each point is one node that runs what `dpaudit estimate` runs —
// audit.EstimateScores on the table, the claim test, the summary columns
// — so a spec can sweep over score files and draw figures across them,
// and its summary row equals the command's on the same file.
//
// The table enters the node's key by its SHA-256 (and the plan's, when
// there is one), not by its path: a changed file re-runs its point, and
// the manifest lists it under data_files.
package scores

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dpaudit/dpaudit/attack/planfile"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/audit/scorefile"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// Game is the score-table game: it applies to every point whose audit
// has a source.
var Game = &stages.Game{
	Name:       gameName,
	AppliesTo:  func(exp *spec.Experiment) bool { return exp.Audit != nil && exp.Audit.Source != nil },
	Compile:    compile,
	Kinds:      []string{kind},
	Violations: violations,
	Implements: map[string][]string{"audit": {""}},
}

const (
	gameName = "scores"
	kind     = "score_estimate"
	version  = 1
)

// params are what the estimate's numbers depend on: the files by their
// digests, the columns read, and every option of dpaudit estimate.
type params struct {
	ScoresSHA256 string `json:"scores_sha256"`
	Format       string `json:"format"`
	PlanSHA256   string `json:"plan_sha256,omitempty"`
	Columns      struct {
		Member, Score, Canary, Run, User, Step string
	} `json:"columns"`
	LowerIsMember bool      `json:"lower_is_member"`
	ScoreIsLLR    bool      `json:"score_is_llr"`
	Aggregate     string    `json:"aggregate,omitempty"`
	Threshold     string    `json:"threshold"`
	SplitFraction float64   `json:"split_fraction"`
	Splits        int       `json:"splits"`
	Grid          []float64 `json:"bonferroni_grid,omitempty"`
	Confidence    float64   `json:"confidence"`
	Delta         float64   `json:"delta"`
	// SplitSeed is rng.Seed(spec seed, "audit", PointKey): what
	// dpaudit estimate --spec-seed S --point-key KEY derives.
	SplitSeed uint64 `json:"split_seed"`
	PointKey  string `json:"point_key"`
	Guesses   audit.OneRunGuesses
	// Claim: ClaimEpsilon when the claim is a number, else Mechanism
	// (nil: no claim).
	ClaimEpsilon float64    `json:"claim_epsilon,omitempty"`
	Mechanism    *mechanism `json:"mechanism,omitempty"`
	OSFamily     string     `json:"os_family"`
	Familywise   string     `json:"familywise"`
}

// mechanism is a claimed DP-SGD mechanism: Poisson sampling, hard
// clipping, add/remove neighbours, accounted by Accountant.
type mechanism struct {
	NoiseMultiplier float64 `json:"noise_multiplier"`
	SamplingRate    float64 `json:"sampling_rate"`
	Steps           int     `json:"steps"`
	Accountant      string  `json:"accountant"`
}

// files are the point's files, resolved against the spec's folder; they
// are not part of the key (their digests are).
type files struct {
	scores, plan string
	display      string // the scores path as the spec gives it
}

func compile(b *stages.Build) error {
	exp := b.Point.Exp
	src := exp.Audit.Source
	paths := files{scores: exp.ResolvePath(src.Scores), display: src.Scores}
	p, err := paramsOf(exp)
	if err != nil {
		return err
	}
	if p.ScoresSHA256, err = digest(paths.scores, "score table"); err != nil {
		return &stages.PathError{Path: "audit.source.scores", Err: err}
	}
	if src.Plan != "" {
		paths.plan = exp.ResolvePath(src.Plan)
		if p.PlanSHA256, err = digest(paths.plan, "canary plan"); err != nil {
			return &stages.PathError{Path: "audit.source.plan", Err: err}
		}
	}
	p.Format = formatOf(paths.scores)
	p.PointKey = "scores/" + p.ScoresSHA256
	p.SplitSeed = rng.Seed(uint64(exp.Seed), "audit", p.PointKey)
	if err := checkTable(p, paths); err != nil {
		return err
	}
	n := &pipeline.Node{
		Kind:    kind,
		Version: version,
		Params:  p,
		Label:   fmt.Sprintf("estimate %s", filepath.Base(src.Scores)),
		Slot:    fmt.Sprintf("%s/%s/%d", b.Name, kind, b.Point.Index),
		Run: func(ctx context.Context, w *pipeline.Work) error {
			outs, err := estimate(p, paths)
			if err != nil {
				return err
			}
			return stages.WriteValues(w.Dir, outs)
		},
	}
	b.Row(n, Columns)
	return nil
}

// paramsOf reads the options of the audit block (and the claim of the
// dpsgd block) into params.
func paramsOf(exp *spec.Experiment) (params, error) {
	a := exp.Audit
	s := a.Source
	var p params
	p.Columns.Member, p.Columns.Score = s.MemberColumn, s.ScoreColumn
	p.Columns.Canary, p.Columns.Run, p.Columns.User, p.Columns.Step = s.CanaryColumn, s.RunColumn, s.UserColumn, s.StepColumn
	p.LowerIsMember, p.ScoreIsLLR, p.Aggregate = s.LowerIsMember, s.ScoreIsLLR, s.Aggregate
	p.Threshold, p.SplitFraction, p.Splits, p.Grid = a.Threshold, a.SplitFraction, a.Splits, a.BonferroniGrid
	p.Confidence, p.OSFamily, p.Familywise = a.Confidence, s.OSFamily, a.Familywise
	if o := a.OneRun; o != nil {
		p.Guesses = audit.OneRunGuesses{Steinke: o.SteinkeGuesses, FDP: o.FDPGuesses, OrderStats: o.OrderStatsGuesses}
	}
	p.Delta = s.Delta
	switch d := exp.DPSGD; {
	case d != nil:
		p.Delta = d.Delta
		m := &mechanism{NoiseMultiplier: d.NoiseMultiplier, SamplingRate: d.SamplingRate, Steps: d.Steps, Accountant: a.Accountant}
		if c := a.Claim; c != nil {
			m.NoiseMultiplier = pick(c.NoiseMultiplier, m.NoiseMultiplier)
			m.SamplingRate = pick(c.SamplingRate, m.SamplingRate)
			m.Steps = int(pick(float64(c.Steps), float64(m.Steps)))
			if c.Accountant != "" {
				m.Accountant = c.Accountant
			}
		}
		p.Mechanism = m
	case s.ClaimEpsilon > 0:
		p.ClaimEpsilon = s.ClaimEpsilon
	}
	if p.Delta == 0 {
		p.Delta = 1e-5
	}
	return p, nil
}

// pick is the claim's value when given (non-zero), else the trained one.
func pick(claimed, trained float64) float64 {
	if claimed != 0 {
		return claimed
	}
	return trained
}

// digest is the SHA-256 of a user's file, or of a folder of Parquet
// parts the digest over its parts in name order (scorefile.Digest); a
// file that is not there is bad input that names what it should have
// been.
func digest(path, what string) (string, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s %s does not exist", audit.ErrInvalid, what, path)
	}
	sum, _, err := scorefile.Digest(path)
	return sum, err
}

// specWords says a score file's problem in the spec's words: its keys
// where dpaudit estimate's message names a flag.
var specWords = strings.NewReplacer("--member-column", "member_column", "--score-column", "score_column",
	"--canary-column", "canary_column", "--run-column", "run_column", "--user-column", "user_column", "--step-column", "step_column")

// spoken is an error with a message in the spec's words.
type spoken struct{ err error }

func (e spoken) Error() string { return specWords.Replace(e.err.Error()) }
func (e spoken) Unwrap() error { return e.err }

// formatOf is how scorefile.Read reads path: Parquet by its extension
// or as a folder of parts, CSV otherwise.
func formatOf(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return "parquet"
	}
	low := strings.ToLower(path)
	if strings.HasSuffix(low, ".parquet") || strings.HasSuffix(low, ".pq") {
		return "parquet"
	}
	return "csv"
}

// checked remembers the tables checked in this process (a sweep over
// claims reads its one file once).
var checked sync.Map // params' files and columns → error

// checkTable reads the table (and joins its plan) when the spec is
// compiled, so that a missing column, a bad cell, a single class or a
// plan that disagrees is a positioned spec error before anything runs.
func checkTable(p params, paths files) error {
	key := fmt.Sprintf("%s|%s|%v|%v|%s", p.ScoresSHA256, p.PlanSHA256, p.Columns, p.LowerIsMember, p.Aggregate)
	if err, ok := checked.Load(key); ok {
		return asError(err)
	}
	err := func() error {
		t, _, err := read(p, paths)
		if err != nil {
			return err
		}
		if err := t.Check(); err != nil {
			return &stages.PathError{Path: "audit.source.scores", Err: err}
		}
		if p.Aggregate != "" {
			if t, err = audit.AggregateUsers(t, audit.Aggregation(p.Aggregate)); err != nil {
				return &stages.PathError{Path: "audit.source.aggregate", Err: err}
			}
		}
		if _, err := audit.DetectLayout(t); err != nil {
			return &stages.PathError{Path: "audit.source.scores", Err: err}
		}
		return nil
	}()
	checked.Store(key, err)
	return err
}

func asError(v any) error {
	if v == nil {
		return nil
	}
	return v.(error)
}

// read reads the score table and joins it to its plan; bad input is a
// *stages.PathError at the key that names the file.
func read(p params, paths files) (*audit.ScoreTable, scorefile.Info, error) {
	cols := scorefile.Columns{Member: p.Columns.Member, Score: p.Columns.Score, Canary: p.Columns.Canary,
		Run: p.Columns.Run, User: p.Columns.User, Step: p.Columns.Step}
	if paths.plan != "" {
		// The plan has the bits; a member column, when the table has
		// one, is checked against it (as dpaudit estimate --plan does).
		cols.OptionalMember = true
		if cols.Member == "member" {
			cols.Member = "" // the default name: read when the file has it
		}
		if cols.Canary == "" {
			cols.Canary = "canary"
		}
	}
	t, info, err := scorefile.Read(paths.scores, nil, cols)
	if err != nil {
		return nil, info, &stages.PathError{Path: "audit.source.scores", Err: spoken{err}}
	}
	if paths.plan == "" {
		return t, info, nil
	}
	plan, err := planfile.Read(paths.plan)
	if err != nil {
		return nil, info, &stages.PathError{Path: "audit.source.plan", Err: err}
	}
	if t, err = audit.JoinPlan(t, plan.IDs, plan.Member); err != nil {
		return nil, info, &stages.PathError{Path: "audit.source.plan", Err: err}
	}
	return t, info, nil
}

// estimate is the node's work: the file checked against its digest, then
// dpaudit estimate's path (EstimateScores, Test, SummaryColumns), then
// the columns that say which file and how violations are corrected.
func estimate(p params, paths files) ([]stages.Output, error) {
	for _, f := range []struct{ path, sum string }{{paths.scores, p.ScoresSHA256}, {paths.plan, p.PlanSHA256}} {
		if f.path == "" {
			continue
		}
		sum, _, err := scorefile.Digest(f.path)
		if err != nil {
			return nil, err
		}
		if sum != f.sum {
			return nil, fmt.Errorf("%w: %s changed since this run was planned (sha256 %.12s… then, %.12s… now); run again to use its new content", audit.ErrInvalid, f.path, f.sum, sum)
		}
	}
	t, info, err := read(p, paths)
	if err != nil {
		return nil, err
	}
	o, claim, err := options(p)
	if err != nil {
		return nil, err
	}
	e, err := audit.EstimateScores(t, o)
	if err != nil {
		return nil, err
	}
	ct, err := e.Test(claim)
	if err != nil {
		return nil, err
	}
	outs := []stages.Output{
		{Name: "scores_file", Type: pipeline.String, Value: paths.display},
		{Name: "scores_sha256", Type: pipeline.String, Value: p.ScoresSHA256},
	}
	for _, nv := range e.SummaryColumns(info.Used["score"], ct) {
		outs = append(outs, output(nv))
	}
	return append(outs, stages.Output{Name: "familywise", Type: pipeline.String, Value: p.Familywise}), nil
}

// options are the estimator options and the claim, as dpaudit estimate
// resolves its flags.
func options(p params) (audit.ScoreOptions, audit.Claim, error) {
	o := audit.ScoreOptions{Options: audit.DefaultOptions()}
	o.Delta, o.Confidence, o.SplitFraction, o.Splits, o.Seed = p.Delta, p.Confidence, p.SplitFraction, p.Splits, p.SplitSeed
	o.Method, o.Grid = audit.Method(p.Threshold), p.Grid
	o.LowerMeansWorld1, o.ScoreIsLLR, o.Guesses = p.LowerIsMember, p.ScoreIsLLR, p.Guesses
	o.Aggregate = audit.Aggregation(p.Aggregate)
	claim := audit.Claim{Epsilon: math.Inf(1)}
	if p.ClaimEpsilon > 0 {
		claim.Epsilon = p.ClaimEpsilon
	}
	gaussian := &audit.OSFamily{SamplingRate: 1}
	switch m := p.Mechanism; {
	case p.OSFamily == "none":
		o.NoFamilyWhy = "no order-statistics family: audit.source.os_family none"
	case p.OSFamily == "gaussian" || m == nil:
		o.Family = gaussian
	default:
		if fam, mu, ok := audit.OSFamilyOfSGM(m.NoiseMultiplier, m.SamplingRate, m.Steps); ok {
			o.Family, claim.FamilyMu = &fam, mu
		} else {
			o.NoFamilyWhy = "no order-statistics family for T > 1 steps with q < 1"
		}
	}
	if m := p.Mechanism; m != nil {
		eps, err := privacy.Epsilon(privacy.Accountant(m.Accountant), privacy.SampledGaussian{NoiseMultiplier: m.NoiseMultiplier, SamplingRate: m.SamplingRate, Steps: m.Steps}, p.Delta, privacy.Options{})
		if err != nil {
			return o, claim, err
		}
		claim.Epsilon = eps
		acc := m.Accountant
		if acc == "best" {
			acc = ""
		}
		o.PerStepClaim = &audit.PerStepClaim{NoiseMultiplier: m.NoiseMultiplier, SamplingRate: m.SamplingRate, Steps: m.Steps, Accountant: acc}
	}
	return o, claim, nil
}

// output is a summary cell as a stage output.
func output(nv audit.NamedValue) stages.Output { return stages.Typed(nv.Name, nv.Value) }

// Columns are every column a score estimate may write (the layout
// decides which of the estimators' columns a row has).
var Columns = append(append([]string{"scores_file", "scores_sha256"}, audit.ScoreSummaryColumns()...), "familywise")

// alarm is how a violation found in a score table is worded.
var alarm = stages.Alarm{
	Title:    "PRIVACY VIOLATION",
	Breaks:   "break their claimed guarantee",
	Meaning:  "The scores refute the claim: the model they came from leaks more than the claim allows (only valid estimates flag; a violation proves the claim false at the stated confidence, not where the bug is).",
	Evidence: "The score table",
}

// violations reads the violation column of the rows this game wrote.
func violations(sum *pipeline.Table) ([]stages.Violation, error) {
	var out []stages.Violation
	for _, v := range stages.Flagged(sum, "violation", gameName, alarm, readViolation) {
		if v.Game == gameName {
			out = append(out, v)
		}
	}
	return out, nil
}

func readViolation(r stages.Row, v *stages.Violation) {
	if r.Str("scores_sha256") == "" {
		v.Game = "" // another game's row
		return
	}
	v.Value, v.Limit, v.Confidence = r.Float("epsilon_lb"), r.Float("epsilon_accountant"), r.Float("epsilon_lb_confidence")
	v.Message = fmt.Sprintf("%s: empirical ε lower bound %.4g > claimed ε %.4g (%.0f%% confidence, %s, p = %.3g)",
		r.Str("scores_file"), v.Value, v.Limit, 100*v.Confidence, r.Str("violation_correction"), r.Float("violation_p_value"))
	if f := r.Str("violation_familywise"); f != "" {
		v.Notes = append(v.Notes, "family-wise correction: "+f)
	}
}

// Package dpaudit is the front door of the dpaudit audit runner:
// Load → Plan → Execute → Collect. The CLI (cmd/dpaudit) is a thin layer of
// flags and output over these calls.
package dpaudit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// Version of dpaudit.
const Version = "0.1.0-dev"

// InputError is bad input from the user (exit code 2): a spec error, a bad
// flag value, an unwritable directory.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// IsInputError reports whether err is the user's to fix (exit code 2).
func IsInputError(err error) bool {
	var ie *InputError
	var se spec.Errors
	return errors.As(err, &ie) || errors.As(err, &se)
}

// Options configure loading and running a spec.
type Options struct {
	Store      string   // content-addressed store; default DefaultStore()
	Results    string   // results root; default "results"
	Jobs       int      // parallel nodes; 0 = number of CPUs
	Force      []string // node kinds to recompute
	AllowLarge bool     // allow sweeps above MaxPoints
	MaxPoints  int      // 0 = spec.DefaultMaxPoints
	DataDir    string   // MNIST and Fashion-MNIST; default datasets.DefaultDataDir()
}

// DefaultStore is $DPAUDIT_STORE, else .dpaudit/store in the working directory.
func DefaultStore() string {
	if s := os.Getenv("DPAUDIT_STORE"); s != "" {
		return s
	}
	return filepath.Join(".dpaudit", "store")
}

func (o Options) withDefaults() Options {
	if o.Store == "" {
		o.Store = DefaultStore()
	}
	if o.Results == "" {
		o.Results = "results"
	}
	if o.DataDir == "" {
		o.DataDir = datasets.DefaultDataDir()
	}
	return o
}

// Plan is a loaded, expanded and compiled spec with the decision for every
// node. Making a plan writes nothing.
type Plan struct {
	Spec     *spec.Spec
	Points   []spec.Point
	Columns  []spec.Column
	Compiled *stages.Compiled
	Steps    []pipeline.Step
	Store    *pipeline.Store
	Options  Options
	memo     *stages.Memo
}

// KnownKinds are the node kinds --force accepts.
var KnownKinds = []string{"accountant", "rero", "rero_comparator", "mse_rdp", "minimax_mse", "belief", "train_run", "train", "craft", "trials", "estimate", "summary", "figure"}

// Load reads, validates and expands a spec, compiles its graph and plans
// it against the store. Spec problems come back as spec.Errors.
func Load(path string, o Options) (*Plan, error) {
	o = o.withDefaults()
	for _, k := range o.Force {
		if !contains(KnownKinds, k) {
			return nil, &InputError{fmt.Errorf("--force %s: unknown node kind (known: %s)", k, strings.Join(KnownKinds, ", "))}
		}
	}
	store := pipeline.NewStore(o.Store)
	memo := stages.NewMemo(store)
	s, err := spec.Load(path, spec.Options{
		Functions:   stages.Functions(memo),
		Implemented: stages.Implemented,
		MaxPoints:   o.MaxPoints,
		AllowLarge:  o.AllowLarge,
	})
	if err != nil {
		return nil, err
	}
	points, cols, err := s.Expand()
	if err != nil {
		return nil, err
	}
	c, err := stages.Compile(s.Name, points, cols, stages.Env{DataDir: o.DataDir})
	if err != nil {
		var pe *stages.PathError
		if errors.As(err, &pe) {
			return nil, s.ErrorAt(pe.Path, pe.Err)
		}
		return nil, &InputError{fmt.Errorf("%s: %w", path, err)}
	}
	if err := checkReport(s, points, c); err != nil {
		return nil, err
	}
	force := func(n *pipeline.Node) bool { return contains(o.Force, n.Kind) }
	steps := pipeline.Plan(c.Graph, store, force)
	return &Plan{Spec: s, Points: points, Columns: cols, Compiled: c, Steps: steps, Store: store, Options: o, memo: memo}, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ResultsDir is where this spec's results go.
func (p *Plan) ResultsDir() string { return filepath.Join(p.Options.Results, p.Spec.Name) }

// Result describes a finished run.
type Result struct {
	Dir      string
	Summary  string
	Manifest string
	Figures  []stages.FigureInfo // drawn into Dir/figures
	Report   string              // Dir/report.html
	Run      int
	Cached   int
	Started  time.Time
	Finished time.Time
}

// Execute runs what the plan says must run and collects the results. The
// results directory is checked for writability before anything runs.
func (p *Plan) Execute(ctx context.Context, rep pipeline.Reporter) (*Result, error) {
	dir := p.ResultsDir()
	if err := checkWritable(dir); err != nil {
		return nil, &InputError{fmt.Errorf("results directory %s is not writable: %w", dir, err)}
	}
	if err := p.Store.Init(); err != nil {
		return nil, &InputError{err}
	}
	p.Store.CleanTemp(24 * time.Hour)
	if err := p.memo.Flush(); err != nil {
		return nil, err
	}
	res := &Result{Dir: dir, Started: time.Now()}
	res.Run, res.Cached = pipeline.Counts(p.Steps)
	if err := (pipeline.Local{Jobs: p.Options.Jobs}).Execute(ctx, p.Steps, p.Store, rep); err != nil {
		return nil, err
	}
	pipeline.RecordSlots(p.Steps, p.Store)
	res.Finished = time.Now()
	if err := p.collect(res); err != nil {
		return nil, err
	}
	return res, nil
}

// checkWritable creates dir and writes a probe file in it.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// collect copies the summary table out of the store, publishes the trial
// tables, and writes the manifest.
func (p *Plan) collect(res *Result) error {
	src := filepath.Join(p.Store.Dir(p.Compiled.Summary.Key()), stages.SummaryFile)
	res.Summary = filepath.Join(res.Dir, stages.SummaryFile)
	if err := copyAtomic(src, res.Summary); err != nil {
		return err
	}
	if err := p.publishTrials(res.Dir); err != nil {
		return err
	}
	figs, err := p.publishFigures(res.Dir)
	if err != nil {
		return err
	}
	res.Figures = figs
	res.Manifest = filepath.Join(res.Dir, "manifest.json")
	if err := writeManifest(p, res); err != nil {
		return err
	}
	res.Report, err = writeReportPage(res.Dir)
	return err
}

func copyAtomic(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := pipeline.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp*")
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
	return os.Rename(f.Name(), dst)
}

// publishTrials writes trials/point=<id>/part-<k>.parquet (Hive
// partitioning) for every audited point, replacing the previous run's
// folder as a whole so no stale partition survives a changed sweep. Files
// are hard links into the store when it is on the same file system.
func (p *Plan) publishTrials(dir string) error {
	final := filepath.Join(dir, "trials")
	if len(p.Compiled.Trials) == 0 {
		return os.RemoveAll(final)
	}
	tmp, err := pipeline.MkdirTemp(dir, ".trials-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var srcs []string
	for _, pt := range p.Points {
		for _, n := range p.Compiled.Trials[pt.ID] {
			srcs = append(srcs, filepath.Join(p.Store.Dir(n.Key()), stages.TrialsFile))
		}
	}
	schema, err := trialsSchema(srcs)
	if err != nil {
		return err
	}
	for id, shards := range p.Compiled.Trials {
		pd := filepath.Join(tmp, "point="+id)
		if err := os.MkdirAll(pd, 0o755); err != nil {
			return err
		}
		for k, n := range shards {
			src := filepath.Join(p.Store.Dir(n.Key()), stages.TrialsFile)
			dst := filepath.Join(pd, fmt.Sprintf("part-%05d.parquet", k))
			if err := publishTrialShard(src, dst, schema); err != nil {
				return err
			}
		}
	}
	old := filepath.Join(dir, ".trials-old")
	os.RemoveAll(old)
	if err := os.Rename(final, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// Violation is a point whose empirical lower bound exceeds the
// accountant's ε: the implementation or its analysis is wrong.
type Violation struct {
	PointIndex        int64
	PointID           string
	EpsilonLB         float64
	EpsilonAccountant float64
	Confidence        float64
	Method            string
}

// Violations reads the summary of a finished run.
func Violations(summary string) ([]Violation, error) {
	t, err := pipeline.ReadParquet(summary)
	if err != nil {
		return nil, err
	}
	vc := t.Col("violation")
	if vc == nil {
		return nil, nil
	}
	var out []Violation
	for i, v := range vc.Values {
		if v != true {
			continue
		}
		vi := Violation{PointIndex: t.Col("point_index").Values[i].(int64), PointID: t.Col("point_id").Values[i].(string),
			EpsilonLB: t.Col("epsilon_lb").Float(i), EpsilonAccountant: t.Col("epsilon_accountant").Float(i),
			Confidence: t.Col("epsilon_lb_confidence").Float(i)}
		if m, ok := t.Col("threshold_method").Values[i].(string); ok {
			vi.Method = m
		}
		out = append(out, vi)
	}
	return out, nil
}

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
	"slices"
	"strings"
	"time"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/figure"
	"golang.org/x/sys/unix"
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
	Store   string   // content-addressed store; default DefaultStore()
	Results string   // results root; default "results"
	Jobs    int      // parallel nodes; 0 = number of CPUs
	Force   []string // node kinds to recompute
	DataDir string   // MNIST and Fashion-MNIST; default datasets.DefaultDataDir()
	// Limits checked before anything is allocated for the spec (0 = the
	// spec.Default* values); AllowLarge raises each spec.LargeFactor times.
	AllowLarge                     bool
	MaxPoints, MaxNodes, MaxTrials int
	// Overrides are "key.path=value" settings applied over the spec file
	// (dpaudit run -s), validated like the file and recorded in the
	// manifest; see spec.Options.Overrides.
	Overrides []string
	// Verify checks the SHA-256 of every cached node of the plan, not only
	// of those used as inputs or published.
	Verify bool
	// ReuseAcrossVersions reuses nodes computed by another code fingerprint
	// when everything else is equal (for a change known to be neutral).
	ReuseAcrossVersions bool
	// Executor runs the nodes; nil = pipeline.Local with Jobs workers.
	// Executors that need the plan (a cluster's) are made by
	// NewExecutor, called once the store is initialised.
	Executor    pipeline.Executor
	NewExecutor func(*Plan) (pipeline.Executor, error)
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
	// DataFiles are the users' data files the points read, with their
	// digests (recorded in the manifest); Notes say what changed since the
	// spec's last run (a data file's digest), for plan and run to print.
	DataFiles []stages.DataFile
	Notes     []string
	memo      *stages.Memo
	// expectAt is, per entry of the spec's expect block, the index of the
	// point it selects (expect.go).
	expectAt []int
}

// checkForce refuses a --force kind that no stage produces.
func checkForce(kinds []string) error {
	for _, k := range kinds {
		if !contains(KnownKinds, k) {
			return &InputError{fmt.Errorf("--force %s: unknown node kind (known: %s)", k, strings.Join(KnownKinds, ", "))}
		}
	}
	return nil
}

// Load reads, validates and expands a spec, compiles its graph and plans
// it against the store. Spec problems come back as spec.Errors.
func Load(path string, o Options) (*Plan, error) {
	o = o.withDefaults()
	if err := checkForce(o.Force); err != nil {
		return nil, err
	}
	store := pipeline.NewStore(o.Store)
	if err := store.Check(); err != nil {
		return nil, &InputError{err}
	}
	memo := stages.NewMemo(store)
	s, err := spec.Load(path, spec.Options{
		Functions:   stages.Functions(memo),
		Implemented: stages.Implements(games),
		MaxPoints:   o.MaxPoints,
		MaxNodes:    o.MaxNodes,
		MaxTrials:   o.MaxTrials,
		AllowLarge:  o.AllowLarge,
		Overrides:   o.Overrides,
	})
	if err != nil {
		return nil, err
	}
	points, cols, err := s.Expand()
	if err != nil {
		return nil, err
	}
	env := stages.Env{DataDir: o.DataDir, Code: codeOf}
	c, err := stages.Compile(games, s.Name, points, cols, env)
	if err != nil {
		var pe *stages.PathError
		if errors.As(err, &pe) {
			return nil, s.ErrorAt(pe.Path, pe.Err)
		}
		return nil, &InputError{fmt.Errorf("%s: %w", path, err)}
	}
	figure.Add(c, s.Name, points, env)
	if err := checkReport(s, points, c); err != nil {
		return nil, err
	}
	expectAt, err := expectPoints(s, points, cols, c)
	if err != nil {
		return nil, err
	}
	declarePublished(c)
	force := func(n *pipeline.Node) bool { return contains(o.Force, n.Kind) }
	steps := pipeline.PlanWith(c.Graph, store, pipeline.PlanOptions{Force: force, ReuseAcrossVersions: o.ReuseAcrossVersions, ExplainCode: explainCode})
	p := &Plan{Spec: s, Points: points, Columns: cols, Compiled: c, Steps: steps, Store: store, Options: o, memo: memo, expectAt: expectAt}
	if err := p.noteDataFiles(); err != nil {
		return nil, err
	}
	return p, nil
}

// declarePublished makes the nodes a run publishes declare the file it
// copies from each (the summary table, every shard's trials table), so
// that a stored copy without it is corrupt when planned, not at publish.
func declarePublished(c *stages.Compiled) {
	need := func(n *pipeline.Node, file string) {
		if !slices.Contains(n.Outputs, file) {
			n.Outputs = append(n.Outputs, file)
		}
	}
	need(c.Summary, stages.SummaryFile)
	for _, shards := range c.Trials {
		for _, n := range shards {
			need(n, stages.TrialsFile)
		}
	}
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
	Figures  []figure.Info // drawn into Dir/figures
	Report   string        // Dir/report.html
	Run      int           // nodes the plan had to run (the others were cached)
	Cached   int
	Started  time.Time
	Finished time.Time

	// ComputedHere of the Run nodes were computed by this process, the
	// others (ComputedElsewhere) finished by another process sharing the
	// store meanwhile, or by Slurm workers.
	ComputedHere, ComputedElsewhere int
}

// Execute runs what the plan says must run and collects the results. The
// results and store folders are checked for writability before anything
// (even an empty results/<name>/) is created. Cached nodes that are
// published or used as inputs are verified first (all of them with
// Options.Verify); a node that fails is quarantined and recomputed.
func (p *Plan) Execute(ctx context.Context, rep pipeline.Reporter) (*Result, error) {
	dir := p.ResultsDir()
	if err := checkResultsDir(dir); err != nil {
		return nil, err
	}
	if err := checkWritable(p.Options.Results); err != nil {
		return nil, &InputError{fmt.Errorf("results directory %s is not writable: %w", dir, err)}
	}
	if err := checkWritable(p.Store.Root); err != nil {
		return nil, &InputError{fmt.Errorf("store %s is not writable: %w", p.Store.Root, err)}
	}
	if err := p.Store.Init(); err != nil {
		return nil, &InputError{err}
	}
	release, err := p.holdRun()
	if err != nil {
		return nil, err
	}
	defer release() // after publishing: gc keeps the plan's nodes until then
	p.Store.CleanTemp(24 * time.Hour)
	if err := p.memo.Flush(); err != nil {
		return nil, err
	}
	res := &Result{Dir: dir, Started: time.Now()}
	published := map[*pipeline.Node]bool{p.Compiled.Summary: true}
	for _, shards := range p.Compiled.Trials {
		for _, n := range shards {
			published[n] = true
		}
	}
	p.Steps = pipeline.VerifySteps(p.Steps, p.Store, func(n *pipeline.Node) bool { return p.Options.Verify || published[n] })
	res.Run, res.Cached = pipeline.Counts(p.Steps)
	var ex pipeline.Executor = pipeline.Local{Jobs: p.Options.Jobs}
	if p.Options.Executor != nil {
		ex = p.Options.Executor
	}
	if p.Options.NewExecutor != nil {
		e, err := p.Options.NewExecutor(p)
		if err != nil {
			return nil, err
		}
		ex = e
	}
	computed := p.Store.Computed()
	if err := ex.Execute(ctx, p.Steps, p.Store, rep); err != nil {
		return nil, err
	}
	res.ComputedHere = p.Store.Computed() - computed
	res.ComputedElsewhere = res.Run - res.ComputedHere
	pipeline.RecordSlots(p.Steps, p.Store)
	res.Finished = time.Now()
	if err := p.publish(res); err != nil {
		return nil, err
	}
	return res, nil
}

// RunKeys computes the plan's nodes whose keys are listed (a cluster
// worker's chunk) and nothing else; nodes already in the store are skipped,
// and a node another process holds the lease of is waited for. It neither
// verifies unrelated nodes nor publishes results: the driver does that.
func (p *Plan) RunKeys(ctx context.Context, keys []string, rep pipeline.Reporter) error {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	found := 0
	steps := make([]pipeline.Step, len(p.Steps))
	for i, st := range p.Steps {
		if want[st.Node.Key()] {
			found++
		} else if st.Status == pipeline.Run {
			st = pipeline.Step{Node: st.Node, Status: pipeline.Cached}
		}
		steps[i] = st
	}
	if found != len(want) {
		return fmt.Errorf("%d of the %d node key(s) of this chunk are not in the plan of %s: the worker's spec, flags or dpaudit build differ from the driver's", len(want)-found, len(want), p.Spec.Name)
	}
	if err := p.Store.Init(); err != nil {
		return err
	}
	release, err := p.holdRun()
	if err != nil {
		return err
	}
	defer release()
	if err := p.memo.Flush(); err != nil {
		return err
	}
	jobs := p.Options.Jobs
	if jobs <= 0 {
		jobs = 1
	}
	return pipeline.Local{Jobs: jobs}.Execute(ctx, steps, p.Store, rep)
}

// holdRun takes the run lease over every node of the plan, which store gc
// respects: a node this run has verified or will read is not deleted
// under it.
func (p *Plan) holdRun() (release func(), err error) {
	keys := make([]string, 0, len(p.Steps))
	for _, st := range p.Steps {
		keys = append(keys, st.Node.Key())
		if k := st.Node.StoreKey(); k != st.Node.Key() {
			keys = append(keys, k) // reused across versions
		}
	}
	return p.Store.HoldRun(keys)
}

// checkResultsDir refuses a results/<name> that exists and is not a
// folder: publishing would replace the user's file.
func checkResultsDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return &InputError{fmt.Errorf("results path %s exists and is not a folder (%s): dpaudit never replaces it; move it away or choose another --results", dir, st.Mode().Type())}
	}
	return nil
}

// checkWritable checks, creating nothing, that dir exists and is writable,
// or that its nearest existing ancestor is a writable folder.
func checkWritable(dir string) error {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s is not a folder", d)
			}
			return unix.Access(d, unix.W_OK|unix.X_OK)
		}
		if !os.IsNotExist(err) {
			return err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return err
		}
		d = parent
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/slurm"
	"github.com/dpaudit/dpaudit/spec"
)

// runnerFlags are the flags shared by run and plan.
type runnerFlags struct {
	store, results  string
	dataDir         string
	jobs            int
	force           multiFlag
	limits          limitFlags
	failOnViolation bool
	verify          bool
	reuse           bool
	overrides       overrideFlag
}

func (r *runnerFlags) register(fs *flag.FlagSet, withRun bool) {
	fs.StringVar(&r.dataDir, "data-dir", "", "data directory of MNIST and Fashion-MNIST (default $DPAUDIT_DATA or the user cache dir)")
	fs.StringVar(&r.store, "store", "", "content-addressed cache directory (default $DPAUDIT_STORE or .dpaudit/store)")
	fs.Var(&r.force, "force", "recompute the nodes of this kind and what depends on them (repeatable, comma-separated); kinds: "+strings.Join(dpaudit.KnownKinds, ", "))
	r.limits.register(fs)
	fs.BoolVar(&r.reuse, "reuse-across-versions", false, "reuse stored nodes computed by another dpaudit code version when all else is equal (only for code changes you know are numerically neutral)")
	registerOverrides(fs, &r.overrides)
	fs.StringVar(&r.results, "results", "results", "results root; tables go to DIR/<name>/ (plan reads the last run's manifest there to say which data files changed)")
	if withRun {
		fs.IntVar(&r.jobs, "j", runtime.NumCPU(), "nodes run in parallel")
		fs.BoolVar(&r.verify, "verify", false, "check the SHA-256 of every cached node of the plan (by default only those used as inputs or published)")
		fs.BoolVar(&r.failOnViolation, "fail-on-violation", false, "exit with code 3 when an audit finds a privacy violation (for CI gates)")
	}
}

func (r *runnerFlags) options() dpaudit.Options {
	o := dpaudit.Options{Store: r.store, Results: r.results, Jobs: r.jobs, Force: r.force, DataDir: r.dataDir,
		Verify: r.verify, ReuseAcrossVersions: r.reuse, Overrides: r.overrides}
	r.limits.apply(&o)
	return o
}

// limitFlags are the limits a spec is checked against before anything is
// allocated for it (see docs/store.md).
type limitFlags struct {
	allowLarge                     bool
	maxPoints, maxNodes, maxTrials int
}

func (l *limitFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&l.allowLarge, "allow-large", false, fmt.Sprintf("raise every limit (--max-points, --max-nodes, --max-trials) %d times", spec.LargeFactor))
	fs.IntVar(&l.maxPoints, "max-points", spec.DefaultMaxPoints, "largest sweep (points before the where filter)")
	fs.IntVar(&l.maxNodes, "max-nodes", spec.DefaultMaxNodes, "most pipeline nodes a plan may have (estimated from the spec's counts before the graph is built)")
	fs.IntVar(&l.maxTrials, "max-trials", spec.DefaultMaxTrials, "most trials (or repetitions, trainings) of one point")
}

func (l *limitFlags) apply(o *dpaudit.Options) {
	o.AllowLarge, o.MaxPoints, o.MaxNodes, o.MaxTrials = l.allowLarge, l.maxPoints, l.maxNodes, l.maxTrials
}

// args repeats the limits on a worker's command line.
func (l *limitFlags) args() []string {
	a := []string{"--max-points", strconv.Itoa(l.maxPoints), "--max-nodes", strconv.Itoa(l.maxNodes), "--max-trials", strconv.Itoa(l.maxTrials)}
	if l.allowLarge {
		a = append(a, "--allow-large")
	}
	return a
}

func oneSpec(name string, pos []string) (string, error) {
	if len(pos) != 1 {
		return "", usagef("dpaudit %s takes one spec file, got %d arguments (see dpaudit %s --help)", name, len(pos), name)
	}
	return pos[0], nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "SPEC.yaml [flags]", "Runs a spec: expands the sweep, computes every node that is not in the store,\nand writes results/<name>/summary.parquet and manifest.json. A run that is\ninterrupted (even killed) resumes where it stopped when started again.", stderr)
	var rf runnerFlags
	rf.register(fs, true)
	var sf slurmFlags
	sf.register(fs, true)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	path, err := oneSpec("run", pos)
	if err != nil {
		return err
	}
	if rf.jobs < 1 {
		return usagef("dpaudit run: -j must be ≥ 1, got %d", rf.jobs)
	}
	cfg, err := sf.resolve(setFlags(fs))
	if err != nil {
		return err
	}
	opts := rf.options()
	var ex *slurm.Executor
	if err := sf.useSlurm(&opts, cfg, &rf, path, stderr, &ex); err != nil {
		return err
	}
	plan, err := dpaudit.Load(path, opts)
	if err != nil {
		return err
	}
	plan.Store.Notify = func(msg string) { fmt.Fprintf(stderr, "store: %s\n", msg) }
	for _, n := range plan.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	rep := &interruptReporter{Reporter: pipeline.NewReporter(stderr)}
	kept := func() string { return keptByRun(rep, plan, ex) }
	return interruptibly(stopsAtCheck, kept, func(ctx context.Context) error {
		if sf.detach {
			ctx = context.Background() // a detached run's jobs outlive the driver
		}
		rep.ctx = ctx
		res, err := plan.Execute(ctx, rep)
		if err != nil {
			return runError(ctx, err, ex, plan, rep, stdout, stderr)
		}
		fmt.Fprintf(stdout, "%d point(s): %d node(s) computed here, %d computed by another process, %d cached\nresults: %s\n",
			len(plan.Points), res.ComputedHere, res.ComputedElsewhere, res.Cached, res.Dir)
		return reportViolations(plan, res, rf.failOnViolation, stderr)
	})
}

// keptByRun says what an interrupted run kept: the nodes that finished
// (in the store), and the Slurm jobs it cancelled.
func keptByRun(rep *interruptReporter, plan *dpaudit.Plan, ex *slurm.Executor) string {
	kept := fmt.Sprintf("%d node(s) finished in this run and %d cached are kept in %s; run the same command again to resume", rep.finished.Load(), cachedNodes(plan), plan.Store.Root)
	if ex != nil && len(ex.Submitted) > 0 {
		kept = fmt.Sprintf("cancelled Slurm job(s) %s; %s", strings.Join(ex.Submitted, " "), kept)
	}
	return kept
}

// useSlurm sets opts up for --executor slurm (checking sbatch and the
// flags first); *ex receives the executor once the plan makes it.
func (sf *slurmFlags) useSlurm(opts *dpaudit.Options, cfg slurm.Config, rf *runnerFlags, path string, stderr io.Writer, ex **slurm.Executor) error {
	if sf.executor != "slurm" {
		if sf.detach {
			return usagef("--detach needs --executor slurm")
		}
		return nil
	}
	if err := slurm.CheckSbatch(); err != nil {
		return &usageError{err.Error()}
	}
	if len(rf.force) > 0 {
		return usagef("--force is not implemented yet with --executor slurm: run the forced nodes locally (dpaudit run --force %s), or use a fresh --store", rf.force[0])
	}
	mk := newSlurmExecutor(cfg, rf, path, stderr)
	opts.NewExecutor = func(p *dpaudit.Plan) (pipeline.Executor, error) {
		e, err := mk(p)
		if err != nil {
			return nil, err
		}
		e.Detach = sf.detach
		*ex = e
		if run, _ := pipeline.Counts(p.Steps); run > 0 {
			// Ask Slurm whether it accepts the options before anything
			// is submitted (a wrong partition is refused here).
			if err := e.Validate(context.Background()); err != nil {
				return nil, err
			}
		}
		return e, nil
	}
	return nil
}

// runError turns a failed Execute into the message and exit code of run.
func runError(ctx context.Context, err error, ex *slurm.Executor, plan *dpaudit.Plan, rep *interruptReporter, stdout, stderr io.Writer) error {
	var re *slurm.RefusedError
	var pe *slurm.PathError
	var det *slurm.Detached
	var still *slurm.StillRunning
	switch {
	case errors.As(err, &pe):
		return &usageError{pe.Error()}
	case errors.As(err, &still):
		fmt.Fprintf(stderr, "slurm: %v; nothing submitted\n", still)
		return silent{err}
	case errors.As(err, &det):
		fmt.Fprintf(stdout, "submitted job arrays %s (one per layer, each after the previous with afterok); run the same command without --detach later to collect the results\n", strings.Join(det.Jobs, " "))
		return nil
	case errors.As(err, &re):
		return &usageError{re.Error()}
	case ctx.Err() != nil:
		return &interrupted{keptByRun(rep, plan, ex)}
	}
	return err
}

// reportViolations prints the violations of every game the run found and
// returns errViolation (exit 3) for --fail-on-violation.
func reportViolations(plan *dpaudit.Plan, res *dpaudit.Result, failOnViolation bool, stderr io.Writer) error {
	vs, err := dpaudit.Violations(res.Summary)
	if err != nil {
		return err
	}
	if printViolations(stderr, vs, plan.Spec.Name, len(plan.Points), res.Dir) && failOnViolation {
		return silent{errViolation}
	}
	return nil
}

func cmdPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plan", "SPEC.yaml [flags]", "Lists every node of the spec's graph with 'cached' or 'run' and why\n(new, parameters changed, input changed, stage version changed, code changed,\nforced, failed verification).\nWrites nothing.", stderr)
	var rf runnerFlags
	rf.register(fs, false)
	var sf slurmFlags
	sf.register(fs, false)
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	path, err := oneSpec("plan", pos)
	if err != nil {
		return err
	}
	cfg, err := sf.resolve(setFlags(fs))
	if err != nil {
		return err
	}
	plan, err := dpaudit.Load(path, rf.options())
	if err != nil {
		return err
	}
	if sf.executor == "slurm" && !*asJSON {
		defer func() {
			ex, _ := newSlurmExecutor(cfg, &rf, path, stderr)(plan)
			printSlurmPlan(stdout, ex, plan.Steps, plan.Store)
		}()
	}
	run, cached := pipeline.Counts(plan.Steps)
	if *asJSON {
		type jsonStep struct {
			Kind   string          `json:"kind"`
			Label  string          `json:"label"`
			Key    string          `json:"key"`
			Status string          `json:"status"`
			Reason string          `json:"reason,omitempty"`
			Note   string          `json:"note,omitempty"`
			Inputs []string        `json:"inputs,omitempty"`
			Params json.RawMessage `json:"params"`
		}
		out := struct {
			Spec   string     `json:"spec"`
			Name   string     `json:"name"`
			Points int        `json:"points"`
			Run    int        `json:"run"`
			Cached int        `json:"cached"`
			Notes  []string   `json:"notes,omitempty"`
			Nodes  []jsonStep `json:"nodes"`
		}{Spec: path, Name: plan.Spec.Name, Points: len(plan.Points), Run: run, Cached: cached, Notes: plan.Notes}
		for _, st := range plan.Steps {
			js := jsonStep{Kind: st.Node.Kind, Label: st.Node.Label, Key: st.Node.Key(), Status: string(st.Status), Reason: st.Reason, Note: st.Note, Params: st.Node.ParamsJSON()}
			for _, in := range st.Node.Inputs {
				js.Inputs = append(js.Inputs, in.Key())
			}
			out.Nodes = append(out.Nodes, js)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "%s: %d point(s), %d node(s): %d to run, %d cached\n", plan.Spec.Name, len(plan.Points), len(plan.Steps), run, cached)
	for _, n := range plan.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	for _, st := range plan.Steps {
		reason := ""
		if st.Reason != "" {
			reason = " (" + st.Reason + ")"
		}
		if st.Note != "" {
			reason += " [" + st.Note + "]"
		}
		fmt.Fprintf(stdout, "  %-6s %-10s %s  %s%s\n", st.Status, st.Node.Kind, st.Node.Key()[:12], st.Node.Label, reason)
	}
	return nil
}

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("validate", "SPEC.yaml [SPEC.yaml ...]", "Checks specs (types, ranges, sweep, expressions) and reports every problem\nwith file:line:column. Writes nothing.", stderr)
	var limits limitFlags
	limits.register(fs)
	dataDir := fs.String("data-dir", "", "data directory of MNIST and Fashion-MNIST (default $DPAUDIT_DATA or the user cache dir)")
	var overrides overrideFlag
	registerOverrides(fs, &overrides)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("dpaudit validate needs at least one spec file")
	}
	var firstErr error
	for _, p := range pos {
		o := dpaudit.Options{DataDir: *dataDir, Overrides: overrides}
		limits.apply(&o)
		plan, err := dpaudit.Load(p, o)
		if err != nil {
			fmt.Fprintln(stderr, err)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%d point(s), %d node(s))\n", p, len(plan.Points), len(plan.Steps))
	}
	if firstErr != nil {
		return silent{firstErr}
	}
	return nil
}

// silent is an error already printed; only its exit code matters.
type silent struct{ err error }

func (s silent) Error() string { return "" }
func (s silent) Unwrap() error { return s.err }

func cmdSchema(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("schema", "", "Prints the JSON Schema (draft-07) of the spec language, generated from\nthe Go types; schemas/experiment.schema.json is this output.", stderr)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	_, err := stdout.Write(spec.JSONSchema())
	return err
}

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "[--json]", "Prints the dpaudit version, the module version and git commit it was built\nfrom, and the Go version (--json adds every dependency's version).", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	b := dpaudit.Build()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	printVersion(stdout, b)
	return nil
}

// printVersion prints the version, the module version and the commit the
// binary was built from. go run and go test stamp neither the module
// version nor the commit; that is said plainly rather than left blank.
func printVersion(w io.Writer, b dpaudit.BuildInfo) {
	fmt.Fprintf(w, "dpaudit %s\n", b.Version)
	module := b.Module
	if module == "" || module == "(devel)" {
		module = "devel (built with go run or go test, which stamp no version; go install ./cmd/dpaudit does)"
	}
	fmt.Fprintf(w, "module  %s\n", module)
	switch {
	case b.GitCommit == "":
		fmt.Fprintf(w, "commit  unknown (not built by go build or go install from a git checkout)\n")
	case b.GitDirty:
		fmt.Fprintf(w, "commit  %s %s, with uncommitted changes\n", b.GitCommit, b.GitTime)
	default:
		fmt.Fprintf(w, "commit  %s %s\n", b.GitCommit, b.GitTime)
	}
	fmt.Fprintf(w, "go      %s\n", b.GoVersion)
}

// errViolation ends a run that found a violation with --fail-on-violation.
var errViolation = errors.New("privacy violation found")

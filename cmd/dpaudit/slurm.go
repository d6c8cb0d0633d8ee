package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/slurm"
	"go.yaml.in/yaml/v3"
)

// slurmFlags are the cluster options of run and plan. Flags given on the
// command line win over the config file (~/.config/dpaudit/slurm.yaml or
// $DPAUDIT_SLURM_CONFIG), which wins over the defaults.
type slurmFlags struct {
	executor string
	cfg      slurm.Config
	extra    multiFlag
	detach   bool
}

func (s *slurmFlags) register(fs *flag.FlagSet, withRun bool) {
	fs.StringVar(&s.executor, "executor", "local", "where nodes run: local, or slurm (job arrays on a Slurm cluster sharing the store)")
	fs.StringVar(&s.cfg.Partition, "slurm-partition", "", "Slurm partition (sbatch --partition)")
	fs.StringVar(&s.cfg.Time, "slurm-time", "", "time limit of one array task (sbatch --time, e.g. 1:00:00)")
	fs.StringVar(&s.cfg.Mem, "slurm-mem", "", "memory of one array task (sbatch --mem, e.g. 4G)")
	fs.IntVar(&s.cfg.CPUsPerTask, "slurm-cpus-per-task", 1, "CPUs of one array task; the worker runs that many nodes at once")
	fs.StringVar(&s.cfg.Account, "slurm-account", "", "Slurm account (sbatch --account)")
	fs.StringVar(&s.cfg.QOS, "slurm-qos", "", "Slurm QOS (sbatch --qos)")
	fs.StringVar(&s.cfg.Gres, "slurm-gres", "", "generic resources of one array task, e.g. gpu:1 for an external trainer on a GPU (sbatch --gres)")
	fs.Var(&s.extra, "slurm-extra", "a raw sbatch option line, e.g. '--gres=gpu:1' (repeatable)")
	fs.StringVar(&s.cfg.Template, "slurm-template", "", "sbatch script template with placeholders {{job_name}} {{array}} {{output}} {{options}} {{command}}")
	fs.IntVar(&s.cfg.Chunk, "slurm-chunk", 0, "nodes per array task (0 = sized from measured node times so a task runs about a minute, else at most --slurm-parallel tasks per layer; never more than 1000 tasks per array)")
	fs.IntVar(&s.cfg.Parallel, "slurm-parallel", 64, "array tasks running at once (sbatch --array=0-N%P)")
	fs.IntVar(&s.cfg.Retries, "slurm-retries", 2, "resubmissions of the unfinished nodes of failed or cancelled tasks")
	fs.DurationVar(&s.cfg.Poll, "slurm-poll", 5*time.Second, "interval between squeue polls")
	if withRun {
		fs.BoolVar(&s.detach, "detach", false, "with --executor slurm: submit every layer with afterok dependencies, print the job ids and return; run the same command later to collect")
	}
}

// slurmConfigPath is $DPAUDIT_SLURM_CONFIG or ~/.config/dpaudit/slurm.yaml.
func slurmConfigPath() string {
	if p := os.Getenv("DPAUDIT_SLURM_CONFIG"); p != "" {
		return p
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "dpaudit", "slurm.yaml")
}

// resolve merges the config file under the flags that were set.
func (s *slurmFlags) resolve(set map[string]bool) (slurm.Config, error) {
	cfg := s.cfg
	cfg.Extra = s.extra
	if s.executor != "local" && s.executor != "slurm" {
		return cfg, usagef("--executor %s: unknown executor (local or slurm)", s.executor)
	}
	if s.executor == "local" {
		for name := range set {
			if strings.HasPrefix(name, "slurm-") {
				return cfg, usagef("--%s needs --executor slurm", name)
			}
		}
	}
	p := slurmConfigPath()
	if b, err := os.ReadFile(p); err == nil {
		var file struct {
			slurm.Config `yaml:",inline"`
			Poll         string `yaml:"poll"`
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&file); err != nil && !errors.Is(err, io.EOF) {
			return cfg, usagef("%s: %v", p, err)
		}
		f := file.Config
		pick := func(flag string, dst *string, v string) {
			if !set[flag] && v != "" {
				*dst = v
			}
		}
		pick("slurm-partition", &cfg.Partition, f.Partition)
		pick("slurm-time", &cfg.Time, f.Time)
		pick("slurm-mem", &cfg.Mem, f.Mem)
		pick("slurm-account", &cfg.Account, f.Account)
		pick("slurm-qos", &cfg.QOS, f.QOS)
		pick("slurm-gres", &cfg.Gres, f.Gres)
		pick("slurm-template", &cfg.Template, f.Template)
		pickInt := func(flag string, dst *int, v int) {
			if !set[flag] && v != 0 {
				*dst = v
			}
		}
		pickInt("slurm-cpus-per-task", &cfg.CPUsPerTask, f.CPUsPerTask)
		pickInt("slurm-chunk", &cfg.Chunk, f.Chunk)
		pickInt("slurm-parallel", &cfg.Parallel, f.Parallel)
		pickInt("slurm-retries", &cfg.Retries, f.Retries)
		if !set["slurm-extra"] && len(f.Extra) > 0 {
			cfg.Extra = f.Extra
		}
		if !set["slurm-poll"] && file.Poll != "" {
			d, err := time.ParseDuration(file.Poll)
			if err != nil {
				return cfg, usagef("%s: poll: %v", p, err)
			}
			cfg.Poll = d
		}
	} else if os.Getenv("DPAUDIT_SLURM_CONFIG") != "" {
		return cfg, usagef("$DPAUDIT_SLURM_CONFIG: %v", err)
	}
	switch {
	case cfg.Parallel < 1:
		return cfg, usagef("--slurm-parallel must be ≥ 1 (array tasks running at once), got %d", cfg.Parallel)
	case cfg.Chunk < 0:
		return cfg, usagef("--slurm-chunk must be ≥ 0, got %d", cfg.Chunk)
	case cfg.Retries < 0:
		return cfg, usagef("--slurm-retries must be ≥ 0, got %d", cfg.Retries)
	case cfg.CPUsPerTask < 1:
		return cfg, usagef("--slurm-cpus-per-task must be ≥ 1, got %d", cfg.CPUsPerTask)
	case cfg.Poll <= 0:
		return cfg, usagef("--slurm-poll must be > 0")
	}
	return cfg, nil
}

// newSlurmExecutor makes the executor of a plan: the worker command line
// repeats the driver's spec and flags, with absolute paths, so that the
// worker compiles the same graph and the keys match.
func newSlurmExecutor(cfg slurm.Config, rf *runnerFlags, specPath string, stderr io.Writer) func(*dpaudit.Plan) (*slurm.Executor, error) {
	return func(p *dpaudit.Plan) (*slurm.Executor, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		abs := func(s string) string {
			a, err := filepath.Abs(s)
			if err != nil {
				return s
			}
			return a
		}
		o := p.Options
		w := []string{exe, "worker", abs(specPath), "--store", abs(o.Store), "--data-dir", abs(o.DataDir), "-j", strconv.Itoa(cfg.CPUsPerTask)}
		w = append(w, rf.limits.args()...)
		if rf.reuse {
			w = append(w, "--reuse-across-versions")
		}
		for _, o := range rf.overrides {
			w = append(w, "-s", o)
		}
		// Unique per driver, even for two drivers of one process in one
		// second (the tests run several).
		runID := fmt.Sprintf("%s-%s-%d.%x", p.Spec.Name, time.Now().UTC().Format("20060102T150405"), os.Getpid(), rand.Uint32())
		return &slurm.Executor{Config: cfg, Worker: w, RunDir: filepath.Join(abs(o.Store), "slurm", runID), Name: p.Spec.Name,
			Notify: func(msg string) { fmt.Fprintln(stderr, msg) }}, nil
	}
}

// setFlags lists the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// printSlurmPlan prints the arrays a slurm run would submit.
func printSlurmPlan(w io.Writer, ex *slurm.Executor, steps []pipeline.Step, s *pipeline.Store) {
	arrays := ex.Plan(steps, s)
	if len(arrays) == 0 {
		fmt.Fprintf(w, "slurm: every node is cached; nothing would be submitted\n")
		return
	}
	tasks := 0
	for _, a := range arrays {
		tasks += a.Tasks
	}
	fmt.Fprintf(w, "slurm: %d job array(s), %d task(s) in all, at most %d running at once (nothing submitted)\n", len(arrays), tasks, ex.Parallel)
	for _, a := range arrays {
		var kinds []string
		for k, c := range a.Kinds {
			kinds = append(kinds, fmt.Sprintf("%d %s", c, k))
		}
		et := "unknown (no node of these kinds measured yet)"
		if a.TaskEt > 0 {
			et = a.TaskEt.Round(time.Millisecond).String()
		}
		fmt.Fprintf(w, "  array %d: %s; %d task(s) of ≤ %d node(s); estimated task time %s\n", a.Layer+1, strings.Join(kinds, ", "), a.Tasks, a.Chunk, et)
	}
}

func cmdWorker(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("worker", "SPEC.yaml (--chunks FILE --index N | --keys K1,K2) [flags]", "Computes some nodes of a spec's plan against a shared store and exits: the\nunit of work of a cluster. The node keys come from line N (0-based) of a\nchunk file (N defaults to $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX\nof a Kubernetes Indexed Job) or from --keys. Nodes already in the store are\nskipped and nodes another process is computing are waited for (leases), so\nrunning a chunk twice is safe. Publishes nothing.", stderr)
	var rf runnerFlags
	rf.register(fs, false)
	fs.IntVar(&rf.jobs, "j", 1, "nodes run in parallel")
	chunks := fs.String("chunks", "", "file with one line of space-separated node keys per task")
	index := fs.Int("index", -1, "line of --chunks to run (default $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX)")
	keysFlag := fs.String("keys", "", "comma-separated node keys to run (instead of --chunks)")
	marker := fs.String("marker", "", "folder in which to leave a marker that this task saw the shared file system")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	path, err := oneSpec("worker", pos)
	if err != nil {
		return err
	}
	var keys []string
	switch {
	case *keysFlag != "":
		keys = strings.Split(*keysFlag, ",")
	case *chunks != "":
		i := *index
		if i < 0 {
			for _, env := range []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"} {
				if v := os.Getenv(env); v != "" {
					if i, err = strconv.Atoi(v); err != nil {
						return usagef("dpaudit worker: $%s=%q is not an index", env, v)
					}
					break
				}
			}
		}
		if i < 0 {
			return usagef("dpaudit worker: --chunks needs --index (or $SLURM_ARRAY_TASK_ID / $JOB_COMPLETION_INDEX)")
		}
		f, err := os.Open(*chunks)
		if err != nil {
			return fmt.Errorf("chunk file: %w (is the store on a file system this node mounts?)", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		for n := 0; sc.Scan(); n++ {
			if n == i {
				keys = strings.Fields(sc.Text())
				break
			}
		}
		f.Close()
		if keys == nil {
			return usagef("dpaudit worker: %s has no line %d", *chunks, i)
		}
	default:
		return usagef("dpaudit worker needs --chunks FILE (with --index) or --keys")
	}
	if *marker != "" {
		host, _ := os.Hostname()
		name := fmt.Sprintf("%s_%s", os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID"))
		if err := os.WriteFile(filepath.Join(*marker, name), []byte(host+"\n"), 0o644); err != nil {
			return fmt.Errorf("marker: %w (is the store on a file system this node mounts?)", err)
		}
	}
	plan, err := dpaudit.Load(path, rf.options())
	if err != nil {
		return err
	}
	plan.Store.Notify = func(msg string) { fmt.Fprintf(stderr, "store: %s\n", msg) }
	rep := &interruptReporter{Reporter: pipeline.NewReporter(stderr)}
	kept := func() string {
		return fmt.Sprintf("%d of the task's %d node(s) finished and are kept in %s; run the task again to finish it", rep.finished.Load(), len(keys), plan.Store.Root)
	}
	return interruptibly(stopsAtCheck, kept, func(ctx context.Context) error {
		rep.ctx = ctx
		start := time.Now()
		if err := plan.RunKeys(ctx, keys, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "worker: %d node(s) of %s done in %s\n", len(keys), plan.Spec.Name, time.Since(start).Round(time.Millisecond))
		return nil
	})
}

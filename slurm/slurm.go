// Package slurm runs a pipeline plan on a Slurm cluster: one job array per
// layer of nodes to run (a layer's inputs are all in earlier layers), each
// array task running `dpaudit worker` on a chunk of node keys against the
// shared store. The store stays the only shared state: the driver learns
// what finished by looking in the store, and uses squeue/scontrol only to
// know whether tasks are still queued or running (never sacct, which needs
// slurmdbd and is missing on many clusters).
package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dpaudit/dpaudit/pipeline"
)

// Config holds the cluster options (flags or slurm.yaml).
type Config struct {
	Partition   string   `yaml:"partition"`
	Time        string   `yaml:"time"`
	Mem         string   `yaml:"mem"`
	CPUsPerTask int      `yaml:"cpus_per_task"`
	Account     string   `yaml:"account"`
	QOS         string   `yaml:"qos"`
	Extra       []string `yaml:"extra"`    // raw "#SBATCH ..." option lines (without "#SBATCH")
	Template    string   `yaml:"template"` // sbatch template file; see Script
	// Chunk is the number of nodes per array task; 0 sizes chunks so a
	// task runs about TargetTask of work (from the stored times of
	// nodes of the same kind), else (nothing measured) so that a layer
	// makes at most Parallel tasks; never more than MaxTasks.
	Chunk    int           `yaml:"chunk"`
	Parallel int           `yaml:"parallel"` // array tasks running at once (%P)
	Retries  int           `yaml:"retries"`
	Poll     time.Duration `yaml:"-"` // slurm.yaml: poll: "10s"
}

// TargetTask is how much work the automatic chunk size aims for per task:
// Slurm's own overhead per task (scheduling, prolog, process start) is
// seconds, so shorter tasks waste the allocation.
const TargetTask = time.Minute

// MaxTasks bounds the tasks of one array (a layer) when sizing chunks
// automatically, whatever the node count.
const MaxTasks = 1000

// Executor runs steps as Slurm job arrays.
type Executor struct {
	Config
	// Worker is the command line of `dpaudit worker` for this spec, up to
	// (not including) --chunks FILE --index N, which the executor appends.
	Worker []string
	// RunDir (on the shared file system) receives scripts, chunk lists,
	// logs and the markers of the tasks.
	RunDir string
	// Name goes into the job names (dpaudit-NAME-L<layer>-a<attempt>).
	Name string
	// Notify prints a status line (default: nothing).
	Notify func(string)
	// Detach submits every layer with afterok dependencies and returns
	// without waiting (see Detached).
	Detach bool
	// Submitted lists the job ids submitted (also after an error).
	Submitted []string

	active     string // the array being waited for, cancelled on interrupt
	sawMarkers bool   // a task of this run has seen the run folder
}

// RefusedError is Slurm refusing a submission (a bad partition, account,
// time limit): the user's to fix. Msg is Slurm's message verbatim.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return "Slurm refused the job: " + e.Msg }

// PathError is a store path that an sbatch script cannot carry: the
// user's to change (bad input).
type PathError struct{ Path, Why string }

func (e *PathError) Error() string {
	return fmt.Sprintf("--executor slurm: the path %q holds %s; use a --store path without it", e.Path, e.Why)
}

// Detached is returned by Execute with Detach set.
type Detached struct{ Jobs []string }

func (d *Detached) Error() string {
	return "submitted job arrays " + strings.Join(d.Jobs, ", ") + " (detached)"
}

func (e *Executor) notify(format string, args ...any) {
	if e.Notify != nil {
		e.Notify(fmt.Sprintf(format, args...))
	}
}

// Layers groups the Run steps by depth: a node's layer is one more than
// the deepest layer among its inputs that also run.
func Layers(steps []pipeline.Step) [][]*pipeline.Node {
	depth := map[*pipeline.Node]int{}
	var layers [][]*pipeline.Node
	for _, st := range steps {
		if st.Status != pipeline.Run {
			continue
		}
		d := 0
		for _, in := range st.Node.Inputs {
			if di, ok := depth[in]; ok && di+1 > d {
				d = di + 1
			}
		}
		depth[st.Node] = d
		for len(layers) <= d {
			layers = append(layers, nil)
		}
		layers[d] = append(layers[d], st.Node)
	}
	return layers
}

// Array is one job array of a plan.
type Array struct {
	Layer  int
	Kinds  map[string]int // node kind → count
	Nodes  int
	Chunk  int
	Tasks  int
	TaskEt time.Duration // estimated time of one task; 0 = unknown
}

// ChunkFor sizes the chunks of a layer (see Config.Chunk).
func (c Config) ChunkFor(nodes []*pipeline.Node, s *pipeline.Store, perNode time.Duration) int {
	if c.Chunk > 0 {
		return c.Chunk
	}
	n := len(nodes)
	chunk := 1
	if perNode > 0 {
		chunk = int(TargetTask / perNode)
	} else if c.Parallel > 0 {
		// Unmeasured: one task per slot, so one wave covers the layer.
		chunk = (n + c.Parallel - 1) / c.Parallel
	}
	chunk = max(chunk, (n+MaxTasks-1)/MaxTasks, 1)
	return min(chunk, max(n, 1))
}

// perNode estimates the time of one node of the layer from the stored
// nodes of the same kinds (meta.json records their seconds); 0 if none.
func perNode(nodes []*pipeline.Node, steps []pipeline.Step, s *pipeline.Store) time.Duration {
	kinds := map[string]bool{}
	for _, n := range nodes {
		kinds[n.Kind] = true
	}
	var sum float64
	var cnt int
	for _, st := range steps {
		if st.Status != pipeline.Cached || !kinds[st.Node.Kind] || cnt >= 50 {
			continue
		}
		if m, err := s.ReadMeta(st.Node.StoreKey()); err == nil {
			sum += m.Seconds
			cnt++
		}
	}
	if cnt == 0 {
		return 0
	}
	return time.Duration(sum / float64(cnt) * float64(time.Second))
}

// Plan returns the arrays Execute would submit (first attempt, no retries).
func (e *Executor) Plan(steps []pipeline.Step, s *pipeline.Store) []Array {
	var out []Array
	for i, layer := range Layers(steps) {
		pn := perNode(layer, steps, s)
		chunk := e.ChunkFor(layer, s, pn)
		a := Array{Layer: i, Kinds: map[string]int{}, Nodes: len(layer), Chunk: chunk, Tasks: (len(layer) + chunk - 1) / chunk}
		for _, n := range layer {
			a.Kinds[n.Kind]++
		}
		if pn > 0 {
			a.TaskEt = time.Duration(chunk) * pn
		}
		out = append(out, a)
	}
	return out
}

// CheckSbatch reports whether sbatch is on PATH.
func CheckSbatch() error {
	if _, err := exec.LookPath("sbatch"); err != nil {
		return errors.New("--executor slurm needs Slurm's sbatch on PATH (and squeue, scancel), and it is not there: run on a cluster login node, or load Slurm (e.g. `module load slurm`); nothing was submitted")
	}
	return nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// DefaultTemplate is the sbatch script; a user template (Config.Template)
// may use the same placeholders:
//
//	{{job_name}}  the job name            {{array}}   e.g. 0-99%16
//	{{output}}    the log path pattern, quoted for an #SBATCH line
//	{{options}}   the #SBATCH lines of the options
//	{{command}}   the worker command line, quoted for sh (uses $SLURM_ARRAY_TASK_ID)
const DefaultTemplate = `#!/bin/sh
#SBATCH --job-name={{job_name}}
#SBATCH --array={{array}}
#SBATCH --output={{output}}
{{options}}
{{command}}
`

// chunkFile is the chunk list of one array.
func (e *Executor) chunkFile(layer, attempt int) string {
	return filepath.Join(e.RunDir, fmt.Sprintf("L%d-a%d.chunks", layer, attempt))
}

// sbatchPath quotes a path for an #SBATCH filename option: '%' doubled
// (the value is a filename pattern: %A, %a … are replaced, %% is a '%'),
// then double-quoted with '\' and '"' escaped, as sbatch's own parser of
// #SBATCH lines reads them (quotes group, a backslash escapes; Slurm's
// src/sbatch/opt.c). A newline cannot be carried in an #SBATCH line, and a
// backslash in a filename pattern turns its replacements off: both are
// refused.
func sbatchPath(p string) (string, error) {
	if strings.ContainsAny(p, "\n\r\x00") {
		return "", &PathError{Path: p, Why: "a newline, which an #SBATCH line cannot carry"}
	}
	if strings.Contains(p, `\`) {
		return "", &PathError{Path: p, Why: "a backslash, which Slurm's --output pattern cannot carry (it turns the %A/%a names off)"}
	}
	p = strings.ReplaceAll(p, "%", "%%")
	p = strings.ReplaceAll(p, `"`, `\"`)
	return `"` + p + `"`, nil
}

// script renders the sbatch script of one array.
func (e *Executor) script(name, array, chunks string) (string, error) {
	output, err := sbatchPath(filepath.Join(e.RunDir, "logs"))
	if err != nil {
		return "", err
	}
	output = strings.TrimSuffix(output, `"`) + `/%A_%a.out"`
	tmpl := DefaultTemplate
	if e.Template != "" {
		b, err := os.ReadFile(e.Template)
		if err != nil {
			return "", &RefusedError{Msg: fmt.Sprintf("sbatch template: %v", err)}
		}
		tmpl = string(b)
	}
	var opts []string
	add := func(flag, v string) {
		if v != "" {
			opts = append(opts, "#SBATCH --"+flag+"="+v)
		}
	}
	add("partition", e.Partition)
	add("time", e.Time)
	add("mem", e.Mem)
	if e.CPUsPerTask > 0 {
		add("cpus-per-task", strconv.Itoa(e.CPUsPerTask))
	}
	add("account", e.Account)
	add("qos", e.QOS)
	for _, x := range e.Extra {
		x = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(x), "#SBATCH"))
		if x != "" {
			opts = append(opts, "#SBATCH "+x)
		}
	}
	var cmd []string
	for _, a := range e.Worker {
		cmd = append(cmd, shellQuote(a))
	}
	cmd = append(cmd, "--chunks", shellQuote(chunks), "--index", `"$SLURM_ARRAY_TASK_ID"`, "--marker", shellQuote(filepath.Join(e.RunDir, "markers")))
	r := strings.NewReplacer("{{job_name}}", name, "{{array}}", array, "{{output}}", output,
		"{{options}}", strings.Join(opts, "\n"), "{{command}}", "exec "+strings.Join(cmd, " "))
	return r.Replace(tmpl), nil
}

// run runs a Slurm command and returns its stdout; a failure carries the
// command's stderr verbatim.
func run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), &cmdError{name: name, msg: msg}
	}
	return out.String(), nil
}

type cmdError struct{ name, msg string }

func (e *cmdError) Error() string { return e.name + ": " + e.msg }

// Validate asks Slurm (sbatch --test-only, which submits nothing) whether
// it accepts the options; a refusal comes back verbatim as a RefusedError.
func (e *Executor) Validate(ctx context.Context) error {
	if err := os.MkdirAll(e.RunDir, 0o755); err != nil {
		return err
	}
	sc, err := e.script("dpaudit-check", "0", e.chunkFile(0, 0))
	if err != nil {
		return err
	}
	p := filepath.Join(e.RunDir, "check.sbatch")
	if err := os.WriteFile(p, []byte(sc), 0o644); err != nil {
		return err
	}
	if _, err := run(ctx, "sbatch", "--test-only", p); err != nil {
		var ce *cmdError
		if errors.As(err, &ce) {
			return &RefusedError{Msg: ce.msg}
		}
		return err
	}
	return nil
}

// chunkOf records which task of which job ran a node (for the failure
// report).
type taskRef struct {
	job  string
	task int
}

func (e *Executor) logPath(job string, task int) string {
	return filepath.Join(e.RunDir, "logs", fmt.Sprintf("%s_%d.out", job, task))
}

// submit writes the chunk list and script of one array and submits it.
func (e *Executor) submit(ctx context.Context, layer, attempt int, chunks [][]*pipeline.Node, dependency string) (string, error) {
	base := fmt.Sprintf("L%d-a%d", layer, attempt)
	var b strings.Builder
	for _, c := range chunks {
		for i, n := range c {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(n.Key())
		}
		b.WriteByte('\n')
	}
	cf := e.chunkFile(layer, attempt)
	if err := os.WriteFile(cf, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	array := fmt.Sprintf("0-%d", len(chunks)-1)
	if e.Parallel > 0 && e.Parallel < len(chunks) {
		array += "%" + strconv.Itoa(e.Parallel)
	}
	sc, err := e.script("dpaudit-"+e.Name+"-"+base, array, cf)
	if err != nil {
		return "", err
	}
	sp := filepath.Join(e.RunDir, base+".sbatch")
	if err := os.WriteFile(sp, []byte(sc), 0o644); err != nil {
		return "", err
	}
	args := []string{"--parsable"}
	if dependency != "" {
		args = append(args, "--dependency=afterok:"+dependency)
	}
	out, err := run(ctx, "sbatch", append(args, sp)...)
	if err != nil {
		var ce *cmdError
		if errors.As(err, &ce) {
			return "", &RefusedError{Msg: ce.msg}
		}
		return "", err
	}
	id := strings.TrimSpace(out)
	if i := strings.IndexByte(id, ';'); i >= 0 { // "jobid;cluster"
		id = id[:i]
	}
	if id == "" {
		return "", fmt.Errorf("sbatch printed no job id")
	}
	e.Submitted = append(e.Submitted, id)
	if !e.Detach { // a detached run's arrays are recorded in "detached"
		if err := e.recordArray(id, layer, attempt); err != nil {
			return id, err
		}
	}
	return id, nil
}

// queued returns the array tasks of job still queued or running, by task
// index, with their state. A job Slurm no longer knows has none.
func queued(ctx context.Context, job string) (map[int]string, error) {
	out, err := run(ctx, "squeue", "-h", "-r", "-j", job, "-o", "%i %T")
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return map[int]string{}, nil
		}
		return nil, err
	}
	tasks := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		_, t, ok := strings.Cut(f[0], "_")
		if !ok {
			tasks[0] = f[1] // a one-task array before it is split
			continue
		}
		if i, err := strconv.Atoi(t); err == nil {
			tasks[i] = f[1]
		} else if strings.HasPrefix(t, "[") { // a pending range: count as pending
			tasks[-1] = "PENDING"
		}
	}
	return tasks, nil
}

func chunkNodes(nodes []*pipeline.Node, size int) [][]*pipeline.Node {
	var out [][]*pipeline.Node
	for i := 0; i < len(nodes); i += size {
		out = append(out, nodes[i:min(i+size, len(nodes))])
	}
	return out
}

// DefaultPoll is the interval between squeue polls (Config.Poll at 0).
const DefaultPoll = 5 * time.Second

func (e *Executor) poll() time.Duration {
	if e.Poll > 0 {
		return e.Poll
	}
	return DefaultPoll
}

// Execute submits the plan's Run steps layer by layer and waits until every
// node is in the store. Tasks that end without finishing their nodes are
// resubmitted for those nodes up to Retries times; then the run fails,
// naming the nodes, job ids and logs. Arrays a previous driver of this
// spec left in the queue are adopted (waited for) or cancelled, never
// duplicated. Cancelling ctx cancels the jobs.
func (e *Executor) Execute(ctx context.Context, steps []pipeline.Step, s *pipeline.Store, rep pipeline.Reporter) error {
	run, cached := pipeline.Counts(steps)
	rep.Start(run, cached)
	defer rep.Finish()
	if run == 0 {
		e.notify("slurm: every node is cached; nothing to submit")
		return nil
	}
	for _, d := range []string{"logs", "markers"} {
		if err := os.MkdirAll(filepath.Join(e.RunDir, d), 0o755); err != nil {
			return err
		}
	}
	if err := e.checkDetached(ctx); err != nil {
		return err
	}
	layers := Layers(steps)
	if e.Detach {
		return e.detach(ctx, steps, layers, s)
	}
	unlock, _, err := s.TryLock(e.driverLease())
	if err != nil {
		return err
	}
	defer unlock()
	defer e.cancelOnInterrupt(ctx)
	if err := e.adoptPrevious(ctx, steps, s, rep); err != nil {
		return err
	}
	for li, layer := range layers {
		if err := e.runLayer(ctx, li, len(layers), layer, steps, s, rep); err != nil {
			return err
		}
	}
	return nil
}

// cancelOnInterrupt cancels the active array of an interrupted run (with a
// fresh context: ctx is done).
func (e *Executor) cancelOnInterrupt(ctx context.Context) {
	if e.active == "" || ctx.Err() == nil {
		return
	}
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	exec.CommandContext(c, "scancel", e.active).Run()
	e.notify("slurm: cancelled job %s", e.active)
}

// runLayer submits one layer's unfinished nodes and waits for them,
// resubmitting what did not finish up to Retries times.
func (e *Executor) runLayer(ctx context.Context, li, nl int, layer []*pipeline.Node, steps []pipeline.Step, s *pipeline.Store, rep pipeline.Reporter) error {
	todo := unfinished(layer, s)
	if len(todo) == 0 {
		e.notify("slurm: layer %d/%d: every node is in the store already (computed by an adopted job or another process)", li+1, nl)
		return nil
	}
	chunk := e.ChunkFor(todo, s, perNode(todo, steps, s))
	for attempt := 0; ; attempt++ {
		chunks := chunkNodes(todo, chunk)
		job, err := e.submit(ctx, li, attempt, chunks, "")
		if err != nil {
			return err
		}
		e.active = job
		e.notify("slurm: layer %d/%d: submitted job %s: %d node(s) in %d task(s) of ≤ %d (logs %s)", li+1, nl, job, len(todo), len(chunks), chunk, filepath.Join(e.RunDir, "logs"))
		ref := map[*pipeline.Node]taskRef{}
		for ti, c := range chunks {
			for _, n := range c {
				ref[n] = taskRef{job, ti}
			}
		}
		if err := e.wait(ctx, job, chunks, s, rep); err != nil {
			return err
		}
		e.active = ""
		if err := e.checkMarkers(job, s); err != nil {
			return err
		}
		missing := unfinished(todo, s)
		if len(missing) == 0 {
			return nil
		}
		if attempt >= e.Retries {
			return e.failure(missing, ref, rep)
		}
		tasks := map[int]bool{}
		for _, n := range missing {
			tasks[ref[n].task] = true
		}
		e.notify("slurm: %d node(s) of %d task(s) of job %s did not finish (cancelled, failed or out of time); resubmitting them (retry %d of %d)",
			len(missing), len(tasks), job, attempt+1, e.Retries)
		todo = missing
	}
}

// unfinished returns the nodes that are not (complete) in the store.
func unfinished(nodes []*pipeline.Node, s *pipeline.Store) []*pipeline.Node {
	var out []*pipeline.Node
	for _, n := range nodes {
		if !s.Has(n.Key()) {
			out = append(out, n)
		}
	}
	return out
}

// checkMarkers fails, after the first array, when no task left its marker:
// the compute nodes do not see the run folder.
func (e *Executor) checkMarkers(job string, s *pipeline.Store) error {
	if e.sawMarkers {
		return nil
	}
	if m, _ := filepath.Glob(filepath.Join(e.RunDir, "markers", "*")); len(m) == 0 {
		return fmt.Errorf("no task of job %s left its marker in %s: the compute nodes do not see this folder (the store %s and results must be on a file system every node mounts at the same path), or every task failed before starting; see %s",
			job, filepath.Join(e.RunDir, "markers"), s.Root, e.logPath(job, 0))
	}
	e.sawMarkers = true
	return nil
}

// wait polls until no task of job is queued or running, reporting nodes as
// they appear in the store. Only the nodes of tasks that left the queue
// are looked up, each once: the polling load is one squeue per interval
// plus one stat per node.
func (e *Executor) wait(ctx context.Context, job string, chunks [][]*pipeline.Node, s *pipeline.Store, rep pipeline.Reporter) error {
	checked := make([]bool, len(chunks))
	last := ""
	tick := time.NewTicker(e.poll())
	defer tick.Stop()
	fails := 0
	for {
		q, err := queued(ctx, job)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fails++
			if fails > 10 {
				return fmt.Errorf("slurm: squeue keeps failing: %v", err)
			}
			e.notify("slurm: %v (retrying)", err)
		} else {
			fails = 0
			running, pending := 0, 0
			for _, st := range q {
				if st == "RUNNING" || st == "COMPLETING" || st == "CONFIGURING" {
					running++
				} else {
					pending++
				}
			}
			for ti, c := range chunks {
				if checked[ti] {
					continue
				}
				if _, inQueue := q[ti]; inQueue || (q[-1] != "" && ti > maxKey(q)) {
					continue
				}
				checked[ti] = true
				for _, n := range c {
					if m, err := s.ReadMeta(n.Key()); err == nil && s.Has(n.Key()) {
						rep.NodeStarted(n)
						rep.NodeFinished(n, time.Duration(m.Seconds*float64(time.Second)), nil)
					}
				}
			}
			if len(q) == 0 {
				return nil
			}
			status := fmt.Sprintf("slurm: job %s: %d task(s) running, %d pending", job, running, pending)
			if status != last {
				e.notify("%s", status)
				last = status
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func maxKey(m map[int]string) int {
	k := -1
	for i := range m {
		k = max(k, i)
	}
	return k
}

// failure reports the nodes that never finished, with the job, task and
// log of their last attempt.
func (e *Executor) failure(missing []*pipeline.Node, ref map[*pipeline.Node]taskRef, rep pipeline.Reporter) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d node(s) did not finish after %d retr%s on Slurm (finished nodes are kept in the store; run the same command again to resume):", len(missing), e.Retries, map[bool]string{true: "y", false: "ies"}[e.Retries == 1])
	byTask := map[taskRef][]*pipeline.Node{}
	var refs []taskRef
	for _, n := range missing {
		r := ref[n]
		if byTask[r] == nil {
			refs = append(refs, r)
		}
		byTask[r] = append(byTask[r], n)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].task < refs[j].task })
	for _, r := range refs {
		fmt.Fprintf(&b, "\n  job %s_%d (log %s):", r.job, r.task, e.logPath(r.job, r.task))
		for _, n := range byTask[r] {
			fmt.Fprintf(&b, "\n    %s %s (%s)", n.Kind, n.Label, n.Key()[:12])
			rep.NodeFinished(n, 0, errors.New("did not finish on Slurm"))
		}
	}
	return errors.New(b.String())
}

// StillRunning is a detached run of the same spec whose jobs are still in
// the queue: the driver submits nothing and says so.
type StillRunning struct {
	Jobs   []string
	Reason string
}

func (e *StillRunning) Error() string {
	return "the job arrays " + strings.Join(e.Jobs, " ") + " of a detached run of this spec are still queued or running; " + e.Reason
}

// checkDetached looks for detached runs of this spec (their RunDir holds
// a "detached" file with the job ids). If any of their jobs is still
// queued, it returns StillRunning; otherwise it retires the file so the
// run goes on (collecting what they computed: their nodes are cached).
func (e *Executor) checkDetached(ctx context.Context) error {
	var files []string
	for _, dir := range e.siblingRunDirs() {
		files = append(files, filepath.Join(dir, "detached"))
	}
	var jobs []string
	never := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		alive := false
		for _, job := range strings.Fields(string(b)) {
			out, err := run(ctx, "squeue", "-h", "-j", job, "-o", "%r")
			if err != nil || strings.TrimSpace(out) == "" {
				continue
			}
			alive = true
			jobs = append(jobs, job)
			never = never || strings.Contains(out, "DependencyNeverSatisfied")
		}
		if !alive {
			os.Rename(f, f+".collected")
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	why := "run this command again when they have finished (squeue -j " + strings.Join(jobs, ",") + ")"
	if never {
		why = "some can never start because a task of the layer before failed (DependencyNeverSatisfied): scancel " + strings.Join(jobs, " ") + " and run again without --detach, which resubmits only the unfinished nodes"
	}
	return &StillRunning{Jobs: jobs, Reason: why}
}

// detach submits every layer at once, each depending (afterok) on the
// previous one, and returns the job ids without waiting.
func (e *Executor) detach(ctx context.Context, steps []pipeline.Step, layers [][]*pipeline.Node, s *pipeline.Store) error {
	prev := ""
	var jobs []string
	for li, layer := range layers {
		chunk := e.ChunkFor(layer, s, perNode(layer, steps, s))
		job, err := e.submit(ctx, li, 0, chunkNodes(layer, chunk), prev)
		if err != nil {
			if len(jobs) > 0 {
				exec.Command("scancel", jobs...).Run()
			}
			return err
		}
		jobs = append(jobs, job)
		prev = job
	}
	if err := os.WriteFile(filepath.Join(e.RunDir, "detached"), []byte(strings.Join(jobs, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	return &Detached{Jobs: jobs}
}

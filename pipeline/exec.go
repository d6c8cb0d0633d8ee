package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// NodeError is a failure of one node.
type NodeError struct {
	Node *Node
	Err  error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Node.Kind, e.Node.Label, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// RunError lists the nodes that failed; every node that finished before the
// failure is in the store and will be reused by the next run.
type RunError struct {
	Failed []*NodeError
}

func (e *RunError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d node(s) failed", len(e.Failed))
	for _, f := range e.Failed {
		b.WriteString("\n  ")
		b.WriteString(f.Error())
	}
	return b.String()
}

// Executor runs the Run steps of a plan (Local here; a cluster executor
// elsewhere). Every executor leaves the same bytes in the store.
type Executor interface {
	Execute(ctx context.Context, steps []Step, s *Store, rep Reporter) error
}

// Local runs nodes on this machine with a pool of Jobs workers.
type Local struct {
	Jobs int // 0 = number of CPUs
}

// Execute runs the plan's Run steps, inputs before users, in parallel. On
// the first failure no new node starts; running nodes finish and are kept.
// Cancelling ctx stops scheduling and cancels running nodes.
func (l Local) Execute(ctx context.Context, steps []Step, s *Store, rep Reporter) error {
	jobs := l.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	if rep == nil {
		rep = nopReporter{}
	}
	run, cached := Counts(steps)
	rep.Start(run, cached)
	defer rep.Finish()
	if run == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sc := newScheduler(steps, s)
	results := make(chan attemptResult)
	work := make(chan *Node)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range work {
				results <- attempt(ctx, n, sc.replace[n], s, rep)
			}
		}()
	}
	sc.loop(ctx, run, work, results)
	close(work)
	wg.Wait()
	if len(sc.failed) > 0 {
		return &RunError{Failed: sc.failed}
	}
	return ctx.Err()
}

// scheduler hands ready nodes to the workers, in plan order, and keeps
// nodes leased by another process waiting (retried every poll interval,
// doubling while nothing changes) while the workers take other nodes.
type scheduler struct {
	s        *Store
	replace  map[*Node]bool    // forced or corrupt: replaces the stored copy
	pending  map[*Node]int     // inputs of a node still to run
	users    map[*Node][]*Node // nodes waiting on a node
	ready    []*Node
	waiting  []*Node // leased by another process
	retry    <-chan time.Time
	delay    time.Duration
	told     map[string]bool // lease holders already reported
	failed   []*NodeError
	stopping bool
	inFlight int
	done     int
}

func newScheduler(steps []Step, s *Store) *scheduler {
	sc := &scheduler{s: s, replace: map[*Node]bool{}, pending: map[*Node]int{}, users: map[*Node][]*Node{},
		delay: s.poll(), told: map[string]bool{}}
	toRun := map[*Node]bool{}
	for _, st := range steps {
		if st.Status == Run {
			toRun[st.Node] = true
			sc.replace[st.Node] = st.replaces()
		}
	}
	for _, st := range steps {
		n := st.Node
		if !toRun[n] {
			continue
		}
		for _, in := range n.Inputs {
			if toRun[in] {
				sc.pending[n]++
				sc.users[in] = append(sc.users[in], n)
			}
		}
		if sc.pending[n] == 0 {
			sc.ready = append(sc.ready, n)
		}
	}
	return sc
}

// loop schedules until every node has run, or until the nodes in flight
// have finished after a failure or cancellation.
func (sc *scheduler) loop(ctx context.Context, run int, work chan<- *Node, results <-chan attemptResult) {
	ctxDone := ctx.Done()
	for sc.done < run && !(sc.stopping && sc.inFlight == 0) {
		var next *Node
		var sendCh chan<- *Node
		if !sc.stopping && len(sc.ready) > 0 {
			next, sendCh = sc.ready[0], work
		}
		select {
		case sendCh <- next:
			sc.ready = sc.ready[1:]
			sc.inFlight++
		case <-sc.retry:
			sc.retry = nil
			sc.ready = append(sc.ready, sc.waiting...)
			sc.waiting = nil
		case r := <-results:
			sc.inFlight--
			sc.finished(ctx, r)
		case <-ctxDone:
			sc.stopping, ctxDone = true, nil
		}
	}
}

// finished records the outcome of one attempt.
func (sc *scheduler) finished(ctx context.Context, r attemptResult) {
	if r.holder != nil {
		sc.wait(r)
		return
	}
	sc.done++
	sc.delay = sc.s.poll()
	if r.err != nil {
		if ctx.Err() == nil || !errors.Is(r.err, ctx.Err()) { // else interrupted, not failed
			sc.failed = append(sc.failed, &NodeError{Node: r.n, Err: r.err})
		}
		sc.stopping = true
		return
	}
	for _, u := range sc.users[r.n] {
		sc.pending[u]--
		if sc.pending[u] == 0 {
			sc.ready = append(sc.ready, u)
		}
	}
}

// wait parks a node another process holds the lease of, saying so once per
// holder.
func (sc *scheduler) wait(r attemptResult) {
	owner := fmt.Sprintf("pid %d on host %s", r.holder.Pid, r.holder.Host)
	if r.holder.Unreadable != "" {
		owner = r.holder.Unreadable
	}
	if !sc.told[owner] {
		sc.told[owner] = true
		sc.s.notify("waiting for %s %s (and any other node) computed by %s; working on other nodes meanwhile", r.n.Kind, r.n.Label, r.holder)
	}
	sc.waiting = append(sc.waiting, r.n)
	if sc.retry == nil {
		sc.retry = time.After(sc.delay)
		sc.delay = min(2*sc.delay, max(maxPoll, sc.s.poll()))
	}
}

// maxPoll bounds the interval between retries of leased nodes.
const maxPoll = time.Second

type attemptResult struct {
	n      *Node
	err    error
	holder *LeaseInfo // another process holds the node's lease
}

// attempt computes n unless another process has finished it (then it is
// picked up) or holds its lease (then the holder is returned and the
// scheduler retries later). A forced node (replace) is computed regardless
// of a stored copy, which it replaces.
func attempt(ctx context.Context, n *Node, replace bool, s *Store, rep Reporter) attemptResult {
	key := n.Key()
	pickUp := func() bool {
		if replace {
			return false
		}
		err := s.VerifyNode(n, true)
		if err != nil && !IsMissing(err) {
			s.Quarantine(key, err)
		}
		if err == nil {
			rep.NodeStarted(n)
			rep.NodeFinished(n, 0, nil)
		}
		return err == nil
	}
	if err := ctx.Err(); err != nil {
		return attemptResult{n: n, err: err}
	}
	if pickUp() {
		return attemptResult{n: n}
	}
	l, holder, err := s.tryLease(key)
	if err != nil {
		return attemptResult{n: n, err: fmt.Errorf("lease: %w", err)}
	}
	if holder != nil {
		return attemptResult{n: n, holder: holder}
	}
	defer l.release()
	if pickUp() { // finished by another process between the check and the lease
		return attemptResult{n: n}
	}
	rep.NodeStarted(n)
	start := time.Now()
	err = runNode(ctx, n, s, rep, replace)
	rep.NodeFinished(n, time.Since(start), err)
	return attemptResult{n: n, err: err}
}

// runNode computes one node into a temporary directory and commits it.
func runNode(ctx context.Context, n *Node, s *Store, rep Reporter, replace bool) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := &Work{Node: n, store: s, warn: func(msg string) { rep.Warning(n, msg) }}
	if w.Inputs, err = verifiedInputs(n, s); err != nil {
		return err
	}
	tmp, err := s.tempDir(n.Key())
	if err != nil {
		return err
	}
	w.Dir = tmp
	defer func() {
		if r := recover(); r != nil {
			err = parallel.Recovered(r) // the message keeps the panic's stack
		}
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if n.Run == nil {
		return errors.New("node has no Run function")
	}
	started := time.Now()
	cpu, err := runMeasured(ctx, n, w)
	if err != nil {
		return vanishedInput(n, s, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkOutputs(n, tmp); err != nil {
		return err
	}
	finished := time.Now()
	m := &Meta{Key: n.Key(), Kind: n.Kind, Version: n.Version, Code: n.code(), Label: n.Label, Params: n.ParamsJSON(),
		Inputs: w.inputKeys(), Started: started.UTC(), Finished: finished.UTC(), Seconds: finished.Sub(started).Seconds(), Owner: ownerTag()}
	if !math.IsNaN(cpu) && !math.IsInf(cpu, 0) {
		m.CPUSeconds = &cpu
	}
	if err := s.commit(tmp, m, replace); err != nil {
		return err
	}
	s.computed.Add(1)
	if err := s.writeSlot(n); err != nil {
		// Slots only explain the next plan: the node is done.
		s.notify("could not record slot %s of %s %s: %v", n.slot(), n.Kind, n.Label, err)
	}
	return nil
}

// verifiedInputs returns the folders of n's inputs, each verified (a no-op
// for inputs this process has hashed already, beyond seeing that they are
// still there): a node never consumes unverified bytes.
func verifiedInputs(n *Node, s *Store) ([]string, error) {
	var dirs []string
	codes := map[string]bool{}
	for _, in := range n.Inputs {
		k := in.StoreKey()
		if err := s.VerifyNode(in, true); err != nil {
			if IsMissing(err) {
				return nil, &VanishedError{Node: in}
			}
			s.Quarantine(k, err)
			return nil, fmt.Errorf("input %s %s: %w; run again to recompute it", in.Kind, in.Label, err)
		}
		if n.SameCodeInputs {
			if m, err := s.ReadMeta(k); err == nil {
				codes[m.Code] = true
			}
		}
		dirs = append(dirs, s.Dir(k))
	}
	if len(codes) > 1 {
		return nil, fmt.Errorf("inputs were computed by %d different code versions (--reuse-across-versions mixed old and new nodes); rerun without --reuse-across-versions", len(codes))
	}
	return dirs, nil
}

// VanishedError is an input that was in the store when the run planned or
// verified it and is gone when a node needs it: something outside the
// run (store gc, a manual deletion) removed it.
type VanishedError struct{ Node *Node }

func (e *VanishedError) Error() string {
	return fmt.Sprintf("input %s %s (node %s) is no longer in the store: `dpaudit store gc` or a manual deletion removed it while this run needed it; run again to recompute it",
		e.Node.Kind, e.Node.Label, short(e.Node.StoreKey()))
}

// vanishedInput explains a failed run whose input vanished while it ran
// (the stage's own error is then a bare "no such file").
func vanishedInput(n *Node, s *Store, err error) error {
	for _, in := range n.Inputs {
		if _, statErr := os.Lstat(filepath.Join(s.Dir(in.StoreKey()), "meta.json")); errors.Is(statErr, fs.ErrNotExist) {
			return fmt.Errorf("%w (%v)", &VanishedError{Node: in}, err)
		}
	}
	return err
}

// runMeasured runs the node and returns the CPU time it used; its share
// of the meter ends even when Run panics (else every later node's CPU
// would be split with a node that no longer runs).
func runMeasured(ctx context.Context, n *Node, w *Work) (cpu float64, err error) {
	share := nodeCPU.start()
	defer func() { cpu = nodeCPU.stop(share) }()
	return 0, n.Run(ctx, w)
}

// checkOutputs fails a run that did not write every file its node
// declares, or wrote nothing at all (a stored node must list its files:
// an empty list is what a doctored meta looks like).
func checkOutputs(n *Node, dir string) error {
	for _, name := range n.Outputs {
		st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("did not write its declared output %s", name)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return errors.New("wrote no output file")
	}
	return nil
}

func (w *Work) inputKeys() []string {
	var keys []string
	for _, in := range w.Node.Inputs {
		keys = append(keys, in.StoreKey())
	}
	return keys
}

// RecordSlots remembers the keys of cached nodes too, so the next plan
// explains changes relative to this run.
func RecordSlots(steps []Step, s *Store) {
	for _, st := range steps {
		if st.Status == Cached {
			s.writeSlot(st.Node)
		}
	}
}

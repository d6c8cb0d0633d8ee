package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
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
	toRun := map[*Node]bool{}
	replace := map[*Node]bool{}
	var order []*Node
	for _, st := range steps {
		if st.Status == Run {
			toRun[st.Node] = true
			replace[st.Node] = st.replaces()
			order = append(order, st.Node)
		}
	}
	run, cached := Counts(steps)
	rep.Start(run, cached)
	defer rep.Finish()
	if run == 0 {
		return nil
	}
	// pending[n] = inputs of n still to run; users[n] = nodes waiting on n.
	pending := map[*Node]int{}
	users := map[*Node][]*Node{}
	var ready []*Node
	for _, n := range order {
		for _, in := range n.Inputs {
			if toRun[in] {
				pending[n]++
				users[in] = append(users[in], n)
			}
		}
		if pending[n] == 0 {
			ready = append(ready, n)
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan attemptResult)
	work := make(chan *Node)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range work {
				results <- attempt(ctx, n, replace[n], s, rep)
			}
		}()
	}

	var failed []*NodeError
	inFlight, done := 0, 0
	ctxDone := ctx.Done()
	stopping := false
	// Nodes leased by another process wait here and are retried every
	// Poll; meanwhile the workers take other ready nodes.
	var waiting []*Node
	var retry <-chan time.Time
	delay := s.poll() // doubles while nothing changes, up to maxPoll
	told := map[string]bool{}
	for done < run {
		if stopping && inFlight == 0 {
			break
		}
		var next *Node
		var sendCh chan *Node
		if !stopping && len(ready) > 0 {
			next, sendCh = ready[0], work
		}
		select {
		case sendCh <- next:
			ready = ready[1:]
			inFlight++
		case <-retry:
			retry = nil
			ready = append(ready, waiting...)
			waiting = nil
		case r := <-results:
			inFlight--
			if r.holder != nil {
				owner := fmt.Sprintf("pid %d on host %s", r.holder.Pid, r.holder.Host)
				if !told[owner] {
					told[owner] = true
					s.notify("waiting for %s %s (and any other node) computed by %s; working on other nodes meanwhile", r.n.Kind, r.n.Label, r.holder)
				}
				waiting = append(waiting, r.n)
				if retry == nil {
					retry = time.After(delay)
					delay = min(2*delay, max(maxPoll, s.poll()))
				}
				continue
			}
			done++
			delay = s.poll()
			if r.err != nil {
				if ctx.Err() != nil && errors.Is(r.err, ctx.Err()) {
					stopping = true // interrupted, not failed
					continue
				}
				failed = append(failed, &NodeError{Node: r.n, Err: r.err})
				stopping = true
				continue
			}
			for _, u := range users[r.n] {
				pending[u]--
				if pending[u] == 0 {
					ready = append(ready, u)
				}
			}
		case <-ctxDone:
			stopping, ctxDone = true, nil
		}
	}
	close(work)
	wg.Wait()
	if len(failed) > 0 {
		return &RunError{Failed: failed}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return nil
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
		err := s.Verify(key, true)
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
	codes := map[string]bool{}
	for _, in := range n.Inputs {
		k := in.StoreKey()
		// Never consume unverified bytes (a no-op for inputs already
		// checked by this process).
		if err := s.Verify(k, true); err != nil {
			if !IsMissing(err) {
				s.Quarantine(k, err)
			}
			return fmt.Errorf("input %s %s: %w; run again to recompute it", in.Kind, in.Label, err)
		}
		if n.SameCodeInputs {
			if m, err := s.ReadMeta(k); err == nil {
				codes[m.Code] = true
			}
		}
		w.Inputs = append(w.Inputs, s.Dir(k))
	}
	if len(codes) > 1 {
		return fmt.Errorf("inputs were computed by %d different code versions (--reuse-across-versions mixed old and new nodes); rerun without --reuse-across-versions", len(codes))
	}
	tmp, err := s.tempDir(n.Key())
	if err != nil {
		return err
	}
	w.Dir = tmp
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if n.Run == nil {
		return errors.New("node has no Run function")
	}
	started := time.Now()
	share := nodeCPU.start()
	err = n.Run(ctx, w)
	cpu := nodeCPU.stop(share)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
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
	return s.writeSlot(n)
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

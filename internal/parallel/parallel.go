// Package parallel is dpaudit's one worker pool: a loop over indices run on
// a bounded number of goroutines that stops early on cancellation or on the
// first error, and that turns a worker's panic into an error carrying the
// panic's stack (as net/http's conn.serve logs it) instead of killing the
// process.
//
// Which index a worker gets is decided at run time, so fn must write its
// result to a place chosen by the index (out[i] = …), never by arrival
// order: results then do not depend on the number of workers or on
// scheduling.
package parallel

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// PanicError is a panic recovered in a worker, with the stack of the
// goroutine that panicked.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // runtime.Stack of the panicking goroutine
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("panic: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns the panic value when it is an error, so errors.Is and
// errors.As see through a recovered panic(err).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Recovered turns the value of recover() into a *PanicError with the
// current goroutine's stack; nil stays nil. Call it in the deferred
// function itself: `if r := recover(); r != nil { err = parallel.Recovered(r) }`.
func Recovered(r any) error {
	if r == nil {
		return nil
	}
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	return &PanicError{Value: r, Stack: buf}
}

// Workers returns the number of goroutines For uses for n items when asked
// for workers: at least 1, at most n, and GOMAXPROCS when workers ≤ 0.
func Workers(n, workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return max(1, min(workers, n))
}

// For calls fn(i) for every i in [0, n) on Workers(n, workers) goroutines
// and returns when all calls have returned. After ctx is done, or after a
// call returns an error or panics, no further index is handed out; For
// then returns the first error (a panic as a *PanicError, cancellation as
// ctx.Err()). With one worker the calls run in index order on the calling
// goroutine.
func For(ctx context.Context, n, workers int, fn func(i int) error) error {
	return ForWorker(ctx, n, workers, func(_, i int) error { return fn(i) })
}

// ForWorker is For with the worker's number w ∈ [0, Workers(n, workers))
// passed along, so a call can use per-worker scratch space (buffers[w])
// without locking. A worker runs its indices one after another. Worker 0
// is the calling goroutine, which would otherwise only wait: a loop that
// runs thousands of times a second (a training step's blocks) starts one
// goroutine fewer each time.
func ForWorker(ctx context.Context, n, workers int, fn func(w, i int) error) error {
	if n <= 0 {
		return ctx.Err()
	}
	workers = Workers(n, workers)
	var (
		next    atomic.Int64
		stopped atomic.Bool
		once    sync.Once
		first   error
	)
	fail := func(err error) {
		once.Do(func() { first = err })
		stopped.Store(true)
	}
	work := func(w int) {
		defer func() {
			if err := Recovered(recover()); err != nil {
				fail(err)
			}
		}()
		for !stopped.Load() {
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			if err := fn(w, i); err != nil {
				fail(err)
				return
			}
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	work(0)
	wg.Wait()
	return first
}

// Chunks splits [0, n) into ceil(n/size) consecutive ranges of at most
// size items and calls fn(lo, hi) for each through ForWorker: the way to
// hand out many cheap items without paying one atomic add per item.
func Chunks(ctx context.Context, n, size, workers int, fn func(w, lo, hi int) error) error {
	size = max(1, size)
	chunks := (n + size - 1) / size
	return ForWorker(ctx, chunks, workers, func(w, c int) error {
		lo := c * size
		return fn(w, lo, min(lo+size, n))
	})
}

// Pool is a fixed set of goroutines for a loop that runs thousands of
// times a second on the same workers, each with its own scratch space: a
// training run's steps, a few hundred microseconds of work per round. The
// trainer was tuned with persistent workers that wait on their own
// channel; For would start fresh goroutines every round, and no
// measurement on the shared machine could show that costs nothing (with
// two threads, callgrind's counts of unchanged code differ by 5% between
// runs, more than any difference between the two), so the tuned shape
// stays, here in one place.
//
// The caller decides which worker runs which job, so results never depend
// on scheduling: job j sent to worker w runs run(w, j), and a worker runs
// its jobs in the order sent. A panic in a job is recovered with its
// stack and returned by the next Wait; the other jobs still run. There is
// no context: the owner checks its own between rounds.
type Pool struct {
	jobs []chan int
	wg   sync.WaitGroup
	run  func(worker, job int)

	mu    sync.Mutex
	first error // the first panic since the last Wait
}

// NewPool starts workers goroutines (at least 1) that run run(worker, job)
// for the jobs submitted to them, until Close.
func NewPool(workers int, run func(worker, job int)) *Pool {
	p := &Pool{jobs: make([]chan int, max(1, workers)), run: run}
	for w := range p.jobs {
		p.jobs[w] = make(chan int, 64)
		go p.loop(w)
	}
	return p
}

// Workers returns the number of workers.
func (p *Pool) Workers() int { return len(p.jobs) }

func (p *Pool) loop(w int) {
	for j := range p.jobs[w] {
		p.Do(w, j)
		p.wg.Done()
	}
}

// Submit queues job j on worker w.
func (p *Pool) Submit(w, j int) {
	p.wg.Add(1)
	p.jobs[w] <- j
}

// Do runs job j as worker w on the calling goroutine (for the caller's own
// share of a round, rather than waiting idle), recovering a panic as the
// workers do. The caller must not run worker w's scratch space
// concurrently with jobs it submitted to w.
func (p *Pool) Do(w, j int) {
	defer func() {
		if err := Recovered(recover()); err != nil {
			p.mu.Lock()
			if p.first == nil {
				p.first = err
			}
			p.mu.Unlock()
		}
	}()
	p.run(w, j)
}

// Wait blocks until every submitted job has finished, and returns the
// first panic of a job (submitted or run by Do) since the last Wait, as a
// *PanicError.
func (p *Pool) Wait() error {
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.first
	p.first = nil
	return err
}

// Close stops the workers once their queued jobs are done.
func (p *Pool) Close() {
	for _, c := range p.jobs {
		close(c)
	}
}

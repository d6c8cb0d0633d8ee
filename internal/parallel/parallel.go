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
// without locking. A worker runs its indices one after another.
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
	if workers == 1 {
		work(0)
		return first
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
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

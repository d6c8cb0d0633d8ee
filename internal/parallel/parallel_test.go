package parallel

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestForVisitsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 7, 100} {
		for _, n := range []int{0, 1, 5, 1000} {
			seen := make([]atomic.Int32, n)
			if err := For(context.Background(), n, workers, func(i int) error {
				seen[i].Add(1)
				return nil
			}); err != nil {
				t.Fatalf("n=%d workers=%d: %v", n, workers, err)
			}
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n=%d workers=%d: index %d visited %d times", n, workers, i, c)
				}
			}
		}
	}
}

func TestForWorkerNumbersInRange(t *testing.T) {
	const n, workers = 500, 3
	var bad atomic.Bool
	err := ForWorker(context.Background(), n, workers, func(w, i int) error {
		if w < 0 || w >= Workers(n, workers) {
			bad.Store(true)
		}
		return nil
	})
	if err != nil || bad.Load() {
		t.Fatalf("err=%v, worker number out of range=%v", err, bad.Load())
	}
}

func TestForStopsAtFirstError(t *testing.T) {
	boom := errors.New("boom")
	var calls atomic.Int64
	err := For(context.Background(), 1_000_000, 4, func(i int) error {
		calls.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if c := calls.Load(); c > 100_000 {
		t.Fatalf("%d calls after an early error: the loop did not stop", c)
	}
}

func TestForObservesCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	err := For(ctx, 1_000_000, 2, func(i int) error {
		if calls.Add(1) == 50 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if c := calls.Load(); c > 1000 {
		t.Fatalf("%d calls after cancellation", c)
	}
	if err := For(ctx, 10, 1, func(int) error { t.Fatal("ran after cancel"); return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("already-cancelled context: err = %v", err)
	}
}

func panicky(i int) error {
	if i == 3 {
		panic("index three")
	}
	return nil
}

func TestForTurnsPanicIntoErrorWithStack(t *testing.T) {
	for _, workers := range []int{1, 4} {
		err := For(context.Background(), 10, workers, panicky)
		var pe *PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("workers=%d: err = %v, want *PanicError", workers, err)
		}
		if pe.Value != "index three" || !strings.Contains(string(pe.Stack), "panicky") {
			t.Fatalf("workers=%d: panic value %v, stack does not name the panicking function:\n%s", workers, pe.Value, pe.Stack)
		}
	}
}

func TestPanicErrorUnwrapsErrorValues(t *testing.T) {
	boom := errors.New("boom")
	err := For(context.Background(), 1, 1, func(int) error { panic(boom) })
	if !errors.Is(err, boom) {
		t.Fatalf("errors.Is(%v, boom) = false", err)
	}
}

func TestChunksCoverRange(t *testing.T) {
	for _, size := range []int{0, 1, 3, 64, 1000} {
		const n = 257
		seen := make([]atomic.Int32, n)
		err := Chunks(context.Background(), n, size, 3, func(_, lo, hi int) error {
			if hi-lo > max(size, 1) || lo >= hi {
				t.Errorf("size %d: chunk [%d, %d)", size, lo, hi)
			}
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("size %d: index %d visited %d times", size, i, seen[i].Load())
			}
		}
	}
}

// Every worker runs at once (the calling goroutine is one of them): each
// of n = workers calls waits until all have started.
func TestForWorkersRunConcurrently(t *testing.T) {
	const workers = 4
	var started sync.WaitGroup
	started.Add(workers)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	err := For(context.Background(), workers, workers, func(int) error {
		started.Done()
		select {
		case <-all:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the workers did not all run at once")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A Pool runs each job on the worker it was sent to, in the order sent,
// and Wait returns once all have run.
func TestPoolRunsJobsOnTheirWorker(t *testing.T) {
	const workers, jobs = 3, 300
	var order [workers][]int
	p := NewPool(workers, func(w, j int) {
		if j%workers != w {
			t.Errorf("job %d ran on worker %d", j, w)
		}
		order[w] = append(order[w], j) // worker w's slice: no other goroutine touches it
	})
	defer p.Close()
	for round := 0; round < 3; round++ {
		for j := range jobs {
			p.Submit(j%workers, j)
		}
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	for w := range order {
		var want []int
		for range 3 {
			for j := w; j < jobs; j += workers {
				want = append(want, j)
			}
		}
		if !slices.Equal(order[w], want) {
			t.Fatalf("worker %d ran %v, want %v", w, order[w], want)
		}
	}
}

// A panic in a pool job, submitted or run by Do on the caller, is returned
// by the next Wait with its stack, once; the pool keeps working.
func TestPoolTurnsPanicIntoError(t *testing.T) {
	var ran atomic.Int64
	p := NewPool(2, func(w, j int) {
		if j == 3 {
			panicky(3)
		}
		ran.Add(1)
	})
	defer p.Close()
	for j := range 6 {
		p.Submit(j%2, j)
	}
	err := p.Wait()
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(string(pe.Stack), "panicky") {
		t.Fatalf("Wait = %v, want a *PanicError whose stack names panicky", err)
	}
	if ran.Load() != 5 {
		t.Errorf("%d of the 5 other jobs ran", ran.Load())
	}
	if err := p.Wait(); err != nil {
		t.Errorf("second Wait = %v, want nil (the panic is reported once)", err)
	}
	p.Do(0, 3)
	if err := p.Wait(); !errors.As(err, &pe) {
		t.Errorf("panic in Do: Wait = %v, want a *PanicError", err)
	}
}

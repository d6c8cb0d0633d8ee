package parallel

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
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

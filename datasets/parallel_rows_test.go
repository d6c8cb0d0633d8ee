package datasets

import (
	"errors"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/internal/parallel"
)

// parallelRows covers every row once, in blocks, and a panic in a block is
// raised on the caller with the panicking goroutine's stack (in a worker
// goroutine it would end the process before any recovery could see it).
func TestParallelRows(t *testing.T) {
	const d = 512 // 2M values: a block per CPU
	n := explodingRowsN
	seen := make([]int, n)
	parallelRows(n, d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			seen[r]++
		}
	})
	for r, c := range seen {
		if c != 1 {
			t.Fatalf("row %d visited %d times", r, c)
		}
	}
	defer func() {
		err, _ := recover().(error)
		var pe *parallel.PanicError
		if !errors.As(err, &pe) || !strings.Contains(string(pe.Stack), "explodingRows") {
			t.Fatalf("recovered %v, want a *parallel.PanicError whose stack names explodingRows", err)
		}
	}()
	parallelRows(n, d, explodingRows)
	t.Fatal("no panic")
}

const explodingRowsN = 4096

// explodingRows fails in the last block (a worker's unless there is one CPU).
func explodingRows(lo, hi int) {
	if hi == explodingRowsN {
		panic("a block failed")
	}
}

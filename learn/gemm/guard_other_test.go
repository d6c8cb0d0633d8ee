//go:build !linux

package gemm

import "testing"

// guardedAlloc falls back to exact-length Go slices where guard pages are not
// available; the Go path's bounds checks still catch over-reads there.
func guardedAlloc(t *testing.T) func(n int) []float32 { return goAlloc }

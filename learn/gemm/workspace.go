package gemm

import (
	"sync"
	"unsafe"
)

// workspace holds the packing buffers of one goroutine's Sgemm call. Buffers
// grow to the largest problem seen and are then reused through a sync.Pool,
// so steady-state calls do not allocate.
type workspace struct {
	a, b []float32
	aMem []float32 // backing arrays; a and b are 64-byte-aligned windows
	bMem []float32
}

var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// grow returns an n-float window of *mem aligned to 64 bytes (one cache
// line, one ZMM load), reallocating *mem only when it is too small.
func grow(mem *[]float32, n int) []float32 {
	const align = 16 // floats per 64 bytes
	if cap(*mem) < n+align {
		*mem = make([]float32, n+align)
	}
	m := (*mem)[:cap(*mem)]
	off := 0
	if r := uintptr(unsafe.Pointer(&m[0])) % 64; r != 0 {
		off = int(64-r) / 4
	}
	return m[off : off+n]
}

func (w *workspace) bufA(n int) []float32 {
	if len(w.a) < n {
		w.a = grow(&w.aMem, n)
	}
	return w.a[:n]
}

func (w *workspace) bufB(n int) []float32 {
	if len(w.b) < n {
		w.b = grow(&w.bMem, n)
	}
	return w.b[:n]
}

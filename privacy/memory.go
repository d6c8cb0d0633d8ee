package privacy

import "sync"

// pldBytesPerPoint is the peak memory per grid point of a PLD composed by
// the accountant: the self-composition's real FFT buffer and half-length
// spectrum (8 + 16/2 bytes per transform point, the transform up to 4/3 of
// the window), the window of the remove PMF kept while the add PMF is
// composed and the add PMF's own (8 + 8), the tilted pass's extra input and
// output (8 + 8), and the garbage collector's headroom over the live heap.
// Measured: 1.07–1.34 GB peak RSS (/usr/bin/time -v, depending on when the
// collector runs) for the 9.8M-point windows of q = 0.01, σ = 1,
// T = 2·10⁵ at h = 1e-5 (docs/accounting.md, "PLD at fine intervals"), 109–136 bytes
// per window point; 160 leaves a margin.
const pldBytesPerPoint = 160

// DefaultPLDMemory returns the memory the PLD accountant may use by
// default: a quarter of physical RAM, or, when that cannot be read, what
// the old fixed cap of MaxPMFLen points needed.
func DefaultPLDMemory() int64 {
	defaultMemOnce.Do(func() {
		defaultMem = int64(MaxPMFLen) * pldBytesPerPoint
		if total := physicalMemory(); total > 0 {
			defaultMem = total / 4
		}
	})
	return defaultMem
}

var (
	defaultMemOnce sync.Once
	defaultMem     int64
)

// pldLimit is the grid-point cap of the PLD accountant's PMFs for a memory
// budget in bytes (0: DefaultPLDMemory); at least 1.
func pldLimit(mem int64) int {
	if mem == 0 {
		mem = DefaultPLDMemory()
	}
	return int(max(1, mem/pldBytesPerPoint))
}

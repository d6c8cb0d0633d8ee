package privacy

import (
	"errors"
	"math"
	"testing"
)

// oldCapMemory is the PLD memory that gives the old fixed grid cap
// (MaxPMFLen points), for tests that must not build the large grids the
// default cap (a quarter of RAM) allows.
const oldCapMemory = MaxPMFLen * pldBytesPerPoint

// TestPLDMemoryCap: the PLD accountant's grid cap comes
// from Options.PLDMemory, not the fixed MaxPMFLen. The MNIST schedule at
// the default interval composes to ~99k points: with a cap of 2^16 points
// it is coarsened (to about 2^13 points: ×16, h = 1.6e-3) and stays an
// upper bound on the limit 2.381695 (see PMF); with 2^17 points it runs at
// the requested interval. If the cap were ignored both would run at 1e-4.
func TestPLDMemoryCap(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}
	small := mustR(t)(EpsilonDetail(AccountantPLD, m, 1e-5, Options{PLDMemory: 1 << 16 * pldBytesPerPoint}))
	if small.PLDInterval != 1.6e-3 {
		t.Errorf("cap 2^16 points: interval used = %v, want 1.6e-3", small.PLDInterval)
	}
	if small.Value < 2.381695 {
		t.Errorf("cap 2^16 points: ε = %v below the limit 2.381695", small.Value)
	}
	fits := mustR(t)(EpsilonDetail(AccountantPLD, m, 1e-5, Options{PLDMemory: 1 << 17 * pldBytesPerPoint}))
	if fits.PLDInterval != DefaultPLDInterval {
		t.Errorf("cap 2^17 points: interval used = %v, want %v", fits.PLDInterval, DefaultPLDInterval)
	}
	if !(fits.Value <= small.Value) {
		t.Errorf("finer grid gave ε = %v > coarser %v", fits.Value, small.Value)
	}
	// δ(ε) goes through the same cap.
	d := mustR(t)(DeltaDetail(AccountantPLD, m, 2.5, Options{PLDMemory: 1 << 16 * pldBytesPerPoint}))
	if d.PLDInterval != 1.6e-3 {
		t.Errorf("δ(ε), cap 2^16 points: interval used = %v, want 1.6e-3", d.PLDInterval)
	}
	// A cap too small for even the coarsest grid: the trivial bound.
	tiny := mustR(t)(EpsilonDetail(AccountantPLD, m, 1e-5, Options{PLDMemory: 1}))
	if !math.IsInf(tiny.Value, 1) || tiny.PLDInterval != MaxPLDInterval {
		t.Errorf("cap of 1 byte: ε = %v at %v, want +Inf at %v", tiny.Value, tiny.PLDInterval, MaxPLDInterval)
	}
	if _, err := Epsilon(AccountantPLD, m, 1e-5, Options{PLDMemory: -1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative PLDMemory: err = %v, want ErrInvalid", err)
	}
}

// TestPLDMemoryLimit: the byte budget maps to grid points at
// pldBytesPerPoint, past the old cap when the budget allows; the default is
// a quarter of RAM (at least something on any machine).
func TestPLDMemoryLimit(t *testing.T) {
	if got := pldLimit(4 << 30); got != (4<<30)/pldBytesPerPoint || got <= MaxPMFLen { // 26.8M points
		t.Errorf("4 GiB: %d points, want %d (> %d)", got, (4<<30)/pldBytesPerPoint, MaxPMFLen)
	}
	if pldLimit(1) != 1 {
		t.Errorf("1 byte: %d points, want 1", pldLimit(1))
	}
	if total := physicalMemory(); total > 0 && DefaultPLDMemory() != total/4 {
		t.Errorf("default %d, want a quarter of %d", DefaultPLDMemory(), total)
	}
	if DefaultPLDMemory() <= 0 {
		t.Errorf("default %d ≤ 0", DefaultPLDMemory())
	}
}

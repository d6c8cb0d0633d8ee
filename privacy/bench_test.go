package privacy

import "testing"

// The accountants' benchmarks, at the MNIST schedule q = 256/60000, σ = 1.1,
// T = 14063, δ = 1e-5 (the calibration at q = 0.04, T = 2250). Google's
// dp_accounting side by side on this machine
// (privacy/testdata/dp_accounting_pld.py; docs/performance.md): 19.4 ms
// RDP, 380 ms PLD, 5.4 s PLD calibration. Targets: ≤ 100 µs, ≤ 30 ms, ≤ 0.5 s.
// Each also reports cpu-ns/op (process CPU time), which is less affected
// than wall time by the other processes on the shared machine.

// BenchmarkRDPEpsilon: ε at the default 156 orders, from scratch (the
// per-order RDP values are computed in every call).
func BenchmarkRDPEpsilon(b *testing.B) {
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}
	benchCPU(b, func() {
		if _, err := Epsilon(AccountantRDP, m, 1e-5, Options{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkPLDEpsilon: ε at interval 1e-4 (both adjacency directions built,
// composed and queried).
func BenchmarkPLDEpsilon(b *testing.B) {
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: mnistQ, Steps: mnistT}
	benchCPU(b, func() {
		if _, err := Epsilon(AccountantPLD, m, 1e-5, Options{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkCalibratePLD: σ for ε = 8, δ = 1e-5, q = 0.04, T = 2250.
func BenchmarkCalibratePLD(b *testing.B) {
	benchCPU(b, func() {
		if _, err := Calibrate(AccountantPLD, 8, 1e-5, 0.04, 2250, Options{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkCalibrateRDP: the same calibration with RDP.
func BenchmarkCalibrateRDP(b *testing.B) {
	benchCPU(b, func() {
		if _, err := Calibrate(AccountantRDP, 8, 1e-5, 0.04, 2250, Options{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkPLDFine: the PLD at a fine interval, 1e-5 at q = 0.01, σ = 1,
// T = 2·10⁵, δ = 1e-5 — windows of ~9.8M points, past the old fixed cap
// of 2²³, so it runs only under the memory cap (~1 GB peak).
// dp_accounting (privacy/testdata/dp_accounting_pld.py): ε = 41.209317661,
// 11.3 s wall side by side with this benchmark's 6.0 s (docs/accounting.md).
func BenchmarkPLDFine(b *testing.B) {
	m := SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 200000}
	var r Result
	benchCPU(b, func() {
		var err error
		if r, err = EpsilonDetail(AccountantPLD, m, 1e-5, Options{PLDInterval: 1e-5}); err != nil {
			b.Fatal(err)
		}
	})
	if r.PLDInterval != 1e-5 {
		b.Fatalf("interval used %g, want 1e-5 (memory cap too small?)", r.PLDInterval)
	}
	b.ReportMetric(r.Value, "eps")
}

package datasets

import (
	"testing"
)

// Benchmarks report examples/s besides ns/op. MNIST benchmarks skip when
// the files are not in DefaultDataDir (set DPAUDIT_DATA).

func benchLoad(b *testing.B, src Source, o Options) {
	b.Helper()
	dir := DefaultDataDir()
	if _, err := Load(src, o, dir); err != nil {
		if IsBadInput(err) {
			b.Skipf("%s not available: %v", src.Name, err)
		}
		b.Fatal(err)
	}
	b.ResetTimer()
	var n int
	for b.Loop() {
		s, err := Load(src, o, dir)
		if err != nil {
			b.Fatal(err)
		}
		n += s.Train.N + s.Test.N
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "examples/s")
}

// BenchmarkLoadMNIST: read + verify (SHA-256) + decode all 70,000 images
// to float32 in [0,1]. The budget is about 100 ms.
func BenchmarkLoadMNIST(b *testing.B) {
	benchLoad(b, Source{Name: SourceMNIST}, Options{})
}

// BenchmarkLoadMNIST01: the 0-vs-1 subset (12,665 + 2,115), the common
// case for the reconstruction papers.
func BenchmarkLoadMNIST01(b *testing.B) {
	benchLoad(b, Source{Name: SourceMNIST}, Options{Classes: []int{0, 1}})
}

func BenchmarkLoadDigits(b *testing.B) {
	benchLoad(b, Source{Name: SourceDigits}, Options{})
}

func benchGenerate(b *testing.B, gen func(seed uint64) (*Dataset, error)) {
	b.Helper()
	var n int
	for i := 0; b.Loop(); i++ {
		ds, err := gen(uint64(i))
		if err != nil {
			b.Fatal(err)
		}
		n += ds.N
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "examples/s")
}

func BenchmarkGaussianMixture20(b *testing.B) {
	benchGenerate(b, func(seed uint64) (*Dataset, error) {
		return GaussianMixture(10000, []int{20}, 2, 3, seed)
	})
}

func BenchmarkGaussianMixtureCIFARShape(b *testing.B) {
	benchGenerate(b, func(seed uint64) (*Dataset, error) {
		return GaussianMixture(1000, []int{3, 32, 32}, 10, 3, seed)
	})
}

func BenchmarkPurchaseLike(b *testing.B) {
	benchGenerate(b, func(seed uint64) (*Dataset, error) {
		return PurchaseLike(10000, 100, seed)
	})
}

func BenchmarkAdultLike(b *testing.B) {
	benchGenerate(b, func(seed uint64) (*Dataset, error) {
		return AdultLike(10000, seed)
	})
}

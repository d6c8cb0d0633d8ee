package chacha8

import (
	"math/rand/v2"
	"testing"
)

// TestMatchesStdlib: the words of New(seed) are those of
// rand.NewChaCha8(seed).Uint64(), over 50 iterations (each reseeds from its
// own last 4 words), for a few seeds.
func TestMatchesStdlib(t *testing.T) {
	t.Logf("vector path: %q; this CPU has %d", Vector(), len(iters))
	paths := map[string]func(seed *[4]uint64, out *[128]uint64){"stdlib": nil}
	for name, f := range iters {
		paths[name] = f
	}
	for name, f := range paths {
		t.Run(name, func(t *testing.T) { matchesStdlib(t, f) })
	}
}

func matchesStdlib(t *testing.T, f func(seed *[4]uint64, out *[128]uint64)) {
	var seeds [][32]byte
	seeds = append(seeds, [32]byte{}, [32]byte{1})
	var s3 [32]byte
	for i := range s3 {
		s3[i] = byte(255 - 7*i)
	}
	seeds = append(seeds, s3)
	var buf Buffer
	for _, seed := range seeds {
		ref := rand.NewChaCha8(seed)
		s := New(seed)
		if s.iter = f; f == nil {
			s.std = rand.NewChaCha8(seed)
		}
		for it := 0; it < 50; it++ {
			s.Next(&buf)
			for i, got := range buf[:Words] {
				if want := ref.Uint64(); got != want {
					t.Fatalf("seed %x iteration %d word %d: %#x, want %#x", seed[:4], it, i, got, want)
				}
			}
		}
	}
}

func BenchmarkNext(b *testing.B) {
	for name, f := range iters {
		b.Run(name, func(b *testing.B) {
			s := New([32]byte{3})
			s.iter = f
			var buf Buffer
			for b.Loop() {
				s.Next(&buf)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*Words), "ns/word")
		})
	}
}

func BenchmarkStdlib(b *testing.B) {
	r := rand.NewChaCha8([32]byte{3})
	var x uint64
	for b.Loop() {
		for range Words {
			x += r.Uint64()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*Words), "ns/word")
}

package gemm

import (
	"math"
	"testing"
)

// zigTables: any tables will do for comparing paths; these accept about
// 6% of halves at layer 0 and most elsewhere, so runs of fast words end at
// varied places, and some weights are huge so that products overflow.
func zigTables() (*[128]uint32, *[128]float32) {
	var k [128]uint32
	var w [128]float32
	r := newRand("zig-tables")
	for i := range k {
		k[i] = uint32(r.IntN(1 << 24))
		if i%16 == 0 {
			k[i] = 1 << 20
		}
		w[i] = float32(r.NormFloat64()) * 1e-7
		if i == 5 {
			w[i] = math.MaxFloat32
		}
	}
	k[1] = 1 << 25 // always fast
	return &k, &w
}

// reference is ZigguratFast written out from its documentation.
func zigReference(w []uint64, kTab *[128]uint32, wTab *[128]float32, scale float32, dst []float32) int {
	for n, u := range w {
		h := [2]uint32{uint32(u), uint32(u >> 32)}
		var x [2]float32
		for s, v := range h {
			i, j := v&0x7F, int32(v)>>7
			a := j
			if a < 0 {
				a = -a
			}
			if uint32(a) >= kTab[i] {
				return n
			}
			x[s] = float32(j) * wTab[i]
		}
		dst[2*n] += float32(scale * x[0])
		dst[2*n+1] += float32(scale * x[1])
	}
	return len(w)
}

// TestZigguratFast: every path consumes the same words and produces the same
// bits as the definition, from every offset and length (group edges, the
// first slow word in every lane of a group, empty input).
func TestZigguratFast(t *testing.T) {
	kTab, wTab := zigTables()
	r := newRand("zig")
	words := make([]uint64, 300)
	for i := range words {
		words[i] = r.Uint64()
		if r.IntN(3) > 0 {
			words[i] = words[i]&^0x7F_0000_007F | 1 | 1<<32 // both halves in the always-fast layer 1
		}
	}
	base := make([]float32, 2*len(words))
	for i := range base {
		base[i] = float32(r.NormFloat64())
	}
	forEachPath(t, func(t *testing.T) {
		for off := 0; off < 40; off++ {
			for _, n := range []int{0, 1, 7, 8, 9, 16, 17, 64, 250} {
				w := words[off : off+n]
				want, got := append([]float32(nil), base[:2*n]...), append([]float32(nil), base[:2*n]...)
				wn := zigReference(w, kTab, wTab, 0.75, want)
				gn := ZigguratFast(w, kTab, wTab, 0.75, got)
				if gn != wn {
					t.Fatalf("off %d n %d: consumed %d words, want %d", off, n, gn, wn)
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("off %d n %d: dst[%d] = %v, want %v", off, n, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// TestZigguratScan: on every path that has it, ZigguratScan flags exactly
// the words the reference stops at and gives the reference's scale·x bits
// for every other word (dst = 0 in the reference, so dst[i] = 0 + v = v).
func TestZigguratScan(t *testing.T) {
	kTab, wTab := zigTables()
	r := newRand("zig-scan")
	words := make([]uint64, 256)
	for i := range words {
		words[i] = r.Uint64()
		if r.IntN(3) > 0 {
			words[i] = words[i]&^0x7F_0000_007F | 1 | 1<<32
		}
	}
	ran := false
	forEachPath(t, func(t *testing.T) {
		for _, n := range []int{0, 8, 16, 128, 256} {
			vals := make([]float32, 2*n+1)
			slow := make([]uint8, n/8+1)
			vals[2*n], slow[n/8] = 42, 0xA5 // must stay untouched
			if !ZigguratScan(words[:n], kTab, wTab, 0.75, vals[:2*n], slow[:n/8]) {
				return
			}
			ran = true
			slows := 0
			for w := range n {
				want := make([]float32, 2)
				isSlow := zigReference(words[w:w+1], kTab, wTab, 0.75, want) == 0
				if got := slow[w/8]>>(w%8)&1 == 1; got != isSlow {
					t.Fatalf("n %d: word %d slow = %v, want %v", n, w, got, isSlow)
				}
				if isSlow {
					slows++
					continue
				}
				for h := range 2 {
					if math.Float32bits(vals[2*w+h]) != math.Float32bits(want[h]) {
						t.Fatalf("n %d: vals[%d] = %v, want %v", n, 2*w+h, vals[2*w+h], want[h])
					}
				}
			}
			if n == 256 && (slows == 0 || slows == n) {
				t.Fatalf("test data has %d slow words of %d: not a test", slows, n)
			}
			if vals[2*n] != 42 || slow[n/8] != 0xA5 {
				t.Fatalf("n %d: wrote past the end", n)
			}
		}
	})
	if !ran && zigguratScanVector != nil {
		t.Fatal("ZigguratScan never ran although the CPU has its kernel")
	}
}

// BenchmarkZigguratFast: 4096 words that are all on the fast path, in
// draws per second, every path.
func BenchmarkZigguratFast(b *testing.B) {
	kTab, wTab := zigTables()
	for i := range kTab {
		kTab[i] = 1 << 25
	}
	r := newRand("zig-bench")
	w := make([]uint64, 4096)
	for i := range w {
		w[i] = r.Uint64()
	}
	dst := make([]float32, 2*len(w))
	for _, ar := range available {
		b.Run(ar.name, func(b *testing.B) {
			useArch(b, ar)
			for b.Loop() {
				ZigguratFast(w, kTab, wTab, 1e-30, dst)
			}
			b.ReportMetric(float64(2*len(w)*b.N)/b.Elapsed().Seconds()/1e9, "Gdraws/s")
		})
	}
}

// TestZigguratAddKept: every path adds exactly the kept words' two values,
// in order, to the front of dst (the reference is the loop written out
// from the documentation), for word counts that end mid-group, skip
// patterns from none to all, and leaves the rest of dst alone.
func TestZigguratAddKept(t *testing.T) {
	r := newRand("zig-addkept")
	const maxWords = 40
	vals := make([]float32, 2*maxWords+16)
	for i := range vals {
		vals[i] = float32(r.NormFloat64())
	}
	forEachPath(t, func(t *testing.T) {
		for _, words := range []int{0, 1, 7, 8, 9, 16, 23, 40} {
			for _, density := range []int{0, 1, 3, 8} { // skip one word in density (0: none; 1: all)
				skip := make([]uint8, words+8)
				kept := 0
				for n := range words {
					if density > 0 && r.IntN(density) == 0 {
						skip[n] = 1
					} else {
						kept++
					}
				}
				base := make([]float32, 2*kept+3)
				for i := range base {
					base[i] = float32(r.NormFloat64())
				}
				want := append([]float32(nil), base...)
				k := 0
				for n := range words {
					if skip[n] == 0 {
						want[2*k] += vals[2*n]
						want[2*k+1] += vals[2*n+1]
						k++
					}
				}
				got := append([]float32(nil), base...)
				n, finite := ZigguratAddKept(vals, skip, words, got[:2*kept])
				if n != kept {
					t.Fatalf("words %d density %d: returned %d, want %d", words, density, n, kept)
				}
				if !finite {
					t.Fatalf("words %d density %d: finite sums reported as not finite", words, density)
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("words %d density %d: dst[%d] = %v, want %v", words, density, i, got[i], want[i])
					}
				}
				// a non-finite sum is reported wherever it is among the
				// stored ones, and a non-finite value outside them is not
				for _, bad := range []float32{float32(math.Inf(-1)), float32(math.NaN())} {
					for i := 0; i < 2*kept; i += 1 + 2*kept/5 {
						got := append([]float32(nil), base...)
						got[i] = bad
						if _, finite := ZigguratAddKept(vals, skip, words, got[:2*kept]); finite {
							t.Fatalf("words %d density %d: %v at dst[%d] not reported", words, density, bad, i)
						}
					}
					got := append([]float32(nil), base...)
					got[2*kept] = bad // past the stored sums
					if _, finite := ZigguratAddKept(vals, skip, words, got[:2*kept]); !finite {
						t.Fatalf("words %d density %d: %v past the sums reported", words, density, bad)
					}
				}
			}
		}
	})
}

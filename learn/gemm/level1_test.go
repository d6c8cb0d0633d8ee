package gemm

import (
	"math"
	"testing"
)

// level1Lengths: empty, below/at/above one vector (8, 16 lanes), around the
// 64-element main loop, and the trainer's sizes (10 classes, 784 inputs,
// 26,010 CNN parameters).
var level1Lengths = []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 128, 129, 784, 1000, 26010}

// TestDot: against a float64 sum. Tolerance 1e-6·√n·Σ|x·y| (float32 pairwise
// summation error is ≲ log2(n)·2⁻²⁴·Σ|x·y|, Higham §4.2; the √n form is
// looser for these n). On small integers the sum is exact. Vectors end at a
// guard page, so reading past len(x) faults.
func TestDot(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		alloc := guardedAlloc(t)
		r := newRand("dot", current.name)
		for _, n := range level1Lengths {
			for _, ints := range []bool{false, true} {
				gen := uniform(r)
				if ints {
					gen = smallInts(r)
				}
				x, y := alloc(n), alloc(n)
				for i := range x {
					x[i], y[i] = gen(), gen()
				}
				var want, scale float64
				for i := range x {
					want += float64(x[i]) * float64(y[i])
					scale += math.Abs(float64(x[i]) * float64(y[i]))
				}
				got := float64(Dot(x, y))
				if ints {
					if got != want {
						t.Errorf("n=%d integers: Dot = %v, want exactly %v", n, got, want)
					}
				} else if tol := 1e-6 * math.Sqrt(float64(n)) * scale; math.Abs(got-want) > tol {
					t.Errorf("n=%d: Dot = %v, want %v ± %.3g", n, got, want, tol)
				}
			}
		}
	})
}

// TestAxpy: each element is one correctly rounded multiply-add (assembly:
// FMA; purego: multiply then add), so it is within one float32 rounding
// (2⁻²⁴ relative, plus one for the purego product) of the exact value; the
// element after len(x) in y is untouched.
func TestAxpy(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		alloc := guardedAlloc(t)
		r := newRand("axpy", current.name)
		gen := uniform(r)
		for _, n := range level1Lengths {
			x, y := alloc(n), alloc(n+1)
			for i := range x {
				x[i] = gen()
			}
			for i := range y {
				y[i] = gen()
			}
			y0 := append([]float32(nil), y...)
			const alpha = float32(-0.37)
			Axpy(alpha, x, y)
			for i := range x {
				want := float64(alpha)*float64(x[i]) + float64(y0[i])
				tol := 2 * math.Ldexp(math.Abs(float64(alpha)*float64(x[i]))+math.Abs(float64(y0[i])), -24)
				if math.Abs(float64(y[i])-want) > tol {
					t.Fatalf("n=%d: y[%d] = %v, want %v ± %.3g", n, i, y[i], want, tol)
				}
			}
			if !sameBits(y[n], y0[n]) {
				t.Fatalf("n=%d: Axpy wrote y[len(x)]", n)
			}
		}
	})
}

// TestScal: x·alpha is one correctly rounded float32 multiply on every path,
// so it must equal Go's float32 product exactly.
func TestScal(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		alloc := guardedAlloc(t)
		r := newRand("scal", current.name)
		gen := uniform(r)
		for _, n := range level1Lengths {
			x := alloc(n)
			for i := range x {
				x[i] = gen()
			}
			x0 := append([]float32(nil), x...)
			const alpha = float32(1.7)
			Scal(alpha, x)
			for i := range x {
				if want := x0[i] * alpha; !sameBits(x[i], want) {
					t.Fatalf("n=%d: x[%d] = %v, want %v", n, i, x[i], want)
				}
			}
		}
	})
}

// TestLevel1PathsBitIdentical: Dot's 64-partial-sum order and Axpy's FMA are
// the same on AVX2 and AVX-512 (level1_amd64.s), so the bits must agree.
func TestLevel1PathsBitIdentical(t *testing.T) {
	var asm []*arch
	for _, ar := range available {
		if ar.name != "purego" {
			asm = append(asm, ar)
		}
	}
	if len(asm) < 2 {
		t.Skip("needs two assembly paths; this CPU/build has", len(asm))
	}
	r := newRand("level1-bits")
	gen := uniform(r)
	for _, n := range level1Lengths {
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = gen(), gen()
		}
		d0, d1 := asm[0].dot(x, y), asm[1].dot(x, y)
		if !sameBits(d0, d1) {
			t.Errorf("n=%d: Dot %s = %v, %s = %v", n, asm[0].name, d0, asm[1].name, d1)
		}
		y0, y1 := append([]float32(nil), y...), append([]float32(nil), y...)
		asm[0].axpy(0.3, x, y0)
		asm[1].axpy(0.3, x, y1)
		for i := range y0 {
			if !sameBits(y0[i], y1[i]) {
				t.Fatalf("n=%d: Axpy differs at %d: %v vs %v", n, i, y0[i], y1[i])
			}
		}
	}
}

func TestLevel1RejectsShortY(t *testing.T) {
	for name, f := range map[string]func(){
		"Dot":  func() { Dot(make([]float32, 3), make([]float32, 2)) },
		"Axpy": func() { Axpy(1, make([]float32, 3), make([]float32, 2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with len(y) < len(x) did not panic", name)
				}
			}()
			f()
		}()
	}
}

package glm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQuadForm: xᵀBx from the quadruples (twice quadForm over all of a
// row's non-zeros, in blocks of rows as JacobianNorms calls it) against
// the plain double sum, and the AVX2 kernel's bits against the Go code's,
// on sparse rows with every pattern of quadruples.
func TestQuadForm(t *testing.T) {
	g := sparseData(t, 200, 61, 0.3, true, 4)
	p := g.P
	stride := (p + 3) &^ 3
	a := randomSym(p, 5)
	b := make([]float64, p*stride)
	for r := range p {
		copy(b[r*stride:], a[r*p:(r+1)*p])
	}
	q := g.quads()
	for j := range g.N {
		c, v := g.row(j)
		index, vals := q.index[q.ptr[j]:q.ptr[j+1]], q.vals[4*q.ptr[j]:4*q.ptr[j+1]]
		var want, scale float64
		for k := range c {
			for l := range c {
				want += v[k] * v[l] * a[int(c[k])*p+int(c[l])]
				scale += math.Abs(v[k] * v[l] * a[int(c[k])*p+int(c[l])])
			}
		}
		var got float64
		for k0 := 0; k0 < len(c); k0 += 7 {
			k1 := min(len(c), k0+7)
			fast := quadForm(b, stride, c[k0:k1], v[k0:k1], index, vals)
			slow := quadFormGo(b, stride, c[k0:k1], v[k0:k1], index, vals)
			if math.Float64bits(fast) != math.Float64bits(slow) {
				t.Fatalf("row %d, non-zeros [%d, %d): %v, the Go code %v", j, k0, k1, fast, slow)
			}
			got += 2 * fast
		}
		if math.Abs(got-want) > 1e-13*scale {
			t.Fatalf("row %d: xᵀBx = %v, want %v", j, got, want)
		}
	}
}

// quads returns g's rows by quadruples.
func (g *Data) quads() quadRows {
	var q quadRows
	quadsOf(g.rowPtr, g.col, g.val, &q)
	return q
}

// TestBounds: bounds against the plain scan, on increasing lists with
// repeats, gaps and blocks beyond the last element.
func TestBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 200 {
		var xs []int32
		x := int32(r.IntN(5))
		for range r.IntN(40) {
			xs = append(xs, x)
			x += int32(r.IntN(6))
		}
		width := 1 + r.IntN(9)
		got := make([]int32, 2+r.IntN(12))
		bounds(xs, width, got)
		for b := range got {
			want := 0
			for want < len(xs) && int(xs[want]) < b*width {
				want++
			}
			if int(got[b]) != want {
				t.Fatalf("trial %d: xs %v, width %d: bound %d = %d, want %d", trial, xs, width, b, got[b], want)
			}
		}
	}
}

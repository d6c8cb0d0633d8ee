package glm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// hessianRef is Hessian as it was written before the row blocks: one
// pass over the samples, each adding its outer product to the whole
// matrix.
func hessianRef(g *Data, lambda float64, theta []float64) *mat.SymDense {
	p := g.P
	h := make([]float64, p*p)
	for j := 0; j < g.N; j++ {
		s := sigmoid(g.Dot(j, theta))
		a := s * (1 - s)
		if a == 0 {
			continue
		}
		c, v := g.row(j)
		for k, r := range c {
			av := a * v[k]
			base := int(r) * p
			for l := k; l < len(c); l++ {
				h[base+int(c[l])] += av * v[l]
			}
		}
	}
	for r := 0; r < p; r++ {
		h[r*p+r] += float64(g.N) * lambda
		for c := r + 1; c < p; c++ {
			h[c*p+r] = h[r*p+c]
		}
	}
	return mat.NewSymDense(p, h)
}

// jacobianNormsRef is JacobianNorms the direct way: A = H⁻¹ by gonum's
// Cholesky over all columns, then u_i = A·x̃_i by one AddScaled per
// non-zero, sample by sample, and the norms from u_i.
func jacobianNormsRef(t testing.TB, g *Data, lambda float64, theta []float64) []float64 {
	p := g.P
	var chol mat.Cholesky
	if !chol.Factorize(hessianRef(g, lambda, theta)) {
		t.Fatal("not positive definite")
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	a := make([]float64, p*p)
	for r := 0; r < p; r++ {
		for c := r; c < p; c++ {
			v := inv.At(r, c)
			a[r*p+c], a[c*p+r] = v, v
		}
	}
	first := 0
	if g.Bias {
		first = 1
	}
	thetaK := append([]float64(nil), theta...)
	for c := 0; c < first; c++ {
		thetaK[c] = 0
	}
	thetaKSq := floats.Dot(thetaK, thetaK)
	v := make([]float64, p)
	for r := 0; r < p; r++ {
		v[r] = floats.Dot(a[r*p:(r+1)*p], thetaK)
	}
	var frobK float64
	for c := first; c < p; c++ {
		row := a[c*p : (c+1)*p]
		frobK += floats.Dot(row, row)
	}
	d := float64(p - first)
	out := make([]float64, g.N)
	u := make([]float64, p)
	for i := 0; i < g.N; i++ {
		clear(u)
		cols, vals := g.row(i)
		for k, c := range cols {
			floats.AddScaled(u, vals[k], a[int(c)*p:(int(c)+1)*p])
		}
		s := sigmoid(g.Dot(i, theta))
		ai, bi := s*(1-s), s-g.Y[i]
		out[i] = (ai*ai*floats.Dot(u, u)*thetaKSq + 2*ai*bi*floats.Dot(v, u) + bi*bi*frobK) / d
	}
	return out
}

// sparseData is n samples of d features, a fraction density non-zero
// (some rows empty), labels from a noisy linear rule.
func sparseData(t testing.TB, n, d int, density float64, bias bool, seed uint64) *Data {
	return sparseDataBy(t, n, d, func(int) float64 { return density }, bias, seed)
}

// sparseDataBy is sparseData with feature k non-zero in a fraction
// density(k) of the samples.
func sparseDataBy(t testing.TB, n, d int, density func(k int) float64, bias bool, seed uint64) *Data {
	r := rand.New(rand.NewPCG(seed, 3))
	x := make([]float32, n*d)
	y := make([]int32, n)
	for i := range n {
		var s float64
		for k := range d {
			if r.Float64() < density(k) {
				x[i*d+k] = float32(r.Float64())
				s += float64(x[i*d+k]) * math.Sin(float64(k))
			}
		}
		if s+0.3*r.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	g, err := NewData(x, y, n, d, bias)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestHessianBitsAndDFIL: the row-blocked Hessian gives exactly the bits
// of the sample-at-a-time code, and the dFIL from the quadratic forms
// matches the direct computation to a relative 1e-12, on synthetic data
// (sizes that leave partial row blocks, quadruples and sample chunks;
// columns that are zero in every row) and on MNIST 0-vs-1 when it is
// fetched.
func TestHessianBitsAndDFIL(t *testing.T) {
	type tc struct {
		name string
		g    *Data
	}
	cases := []tc{
		{"d=70 bias", sparseData(t, 300, 70, 0.2, true, 1)},
		{"d=33 dense", sparseData(t, 97, 33, 1, false, 2)},
		{"d=100 sparse", sparseData(t, 130, 100, 0.05, true, 3)},
		{"d=50, every third column zero", sparseDataBy(t, 150, 50, func(k int) float64 { return float64(min(1, k%3)) * 0.3 }, true, 5)},
		{"d=30, no bias, columns 0–9 zero", sparseDataBy(t, 120, 30, func(k int) float64 { return float64(min(1, k/10)) * 0.5 }, false, 6)},
	}
	if testing.Short() {
		cases = append(cases[:2], cases[3:]...)
	} else if g, _ := mnist01Maybe(t); g != nil {
		cases = append(cases, tc{"mnist", g})
	}
	for _, c := range cases {
		sol, err := Fit(c.g, 1e-2, 1e-8, 50)
		if err != nil {
			t.Fatal(err)
		}
		got, want := Hessian(c.g, 1e-2, sol.Theta), hessianRef(c.g, 1e-2, sol.Theta)
		gr, wr := got.RawSymmetric(), want.RawSymmetric()
		for k := range wr.Data {
			if math.Float64bits(gr.Data[k]) != math.Float64bits(wr.Data[k]) {
				t.Fatalf("%s: Hessian entry %d: %v, before %v", c.name, k, gr.Data[k], wr.Data[k])
			}
		}
		norms, err := JacobianNorms(c.g, 1e-2, sol.Theta)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range jacobianNormsRef(t, c.g, 1e-2, sol.Theta) {
			if math.Abs(norms[i]-w) > 1e-12*w {
				t.Fatalf("%s: sample %d: %v, directly %v", c.name, i, norms[i], w)
			}
		}
	}
}

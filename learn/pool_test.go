package learn

import (
	"fmt"
	"math"
	"testing"
)

// TestAvgPoolMatchesDefinition checks the whole-chunk pooling (shifted
// vector sums, see pool.go) against the definition
// y[oy, ox, c] = (1/k²)·Σ_{dy,dx<k} x[oy·st+dy, ox·st+dx, c], computed in
// float64, and its backward pass against the adjoint identity
// ⟨pool(x), g⟩ = ⟨x, poolᵀ(g)⟩, also against a float64 scatter of g.
// Shapes: TanhCNN's two pools (k2 s1 on 14×14×16 and 5×5×32) and strided,
// 3×3 and single-channel windows. Tolerance: float32 sums of k² terms
// below 1 in size: 1e−6 absolute.
func TestAvgPoolMatchesDefinition(t *testing.T) {
	shapes := []struct{ h, w, c, k, s int }{
		{14, 14, 16, 2, 1},
		{5, 5, 32, 2, 1},
		{7, 6, 3, 2, 2},
		{9, 8, 1, 3, 2},
		{6, 7, 2, 3, 1},
		{5, 5, 1, 5, 1},
	}
	for _, sh := range shapes {
		t.Run(fmt.Sprintf("%dx%dx%d-k%d-s%d", sh.h, sh.w, sh.c, sh.k, sh.s), func(t *testing.T) {
			p, err := newAvgPool(sh.h, sh.w, sh.c, sh.k, sh.s)
			if err != nil {
				t.Fatal(err)
			}
			const b = 3
			x, _ := randomData(31, b, p.inSize(), 2)
			g, _ := randomData(32, b, p.outSize(), 2)
			s := p.newScratch(b)
			y := make([]float32, b*p.outSize())
			p.forward(s, x, y, b)
			dx := make([]float32, b*p.inSize())
			for j := range dx {
				dx[j] = float32(math.NaN()) // backward must overwrite
			}
			p.backward(s, x, y, g, dx, b, nil, false)

			wantDx := make([]float64, len(dx))
			inv := 1 / float64(sh.k*sh.k)
			for i := 0; i < b; i++ {
				for oy := 0; oy < p.outH; oy++ {
					for ox := 0; ox < p.outW; ox++ {
						for c := 0; c < sh.c; c++ {
							o := i*p.outSize() + (oy*p.outW+ox)*sh.c + c
							var want float64
							for dy := 0; dy < sh.k; dy++ {
								for ddx := 0; ddx < sh.k; ddx++ {
									j := i*p.inSize() + ((oy*sh.s+dy)*sh.w+ox*sh.s+ddx)*sh.c + c
									want += inv * float64(x[j])
									wantDx[j] += inv * float64(g[o])
								}
							}
							if math.Abs(float64(y[o])-want) > 1e-6 {
								t.Fatalf("forward[%d] = %g, want %g", o, y[o], want)
							}
						}
					}
				}
			}
			var lhs, rhs float64
			for j, v := range wantDx {
				if math.Abs(float64(dx[j])-v) > 1e-6 {
					t.Fatalf("backward[%d] = %g, want %g", j, dx[j], v)
				}
				rhs += float64(x[j]) * float64(dx[j])
			}
			for o, v := range y {
				lhs += float64(v) * float64(g[o])
			}
			if math.Abs(lhs-rhs) > 1e-5*(1+math.Abs(lhs)) {
				t.Errorf("⟨pool(x), g⟩ = %g, ⟨x, poolᵀ(g)⟩ = %g", lhs, rhs)
			}
		})
	}
}

package numeric

import (
	"math"
	"testing"
)

func TestBrent(t *testing.T) {
	cases := []struct {
		name string
		f    func(float64) float64
		a, b float64
		root float64
	}{
		// Roots known in closed form.
		{"cubic", func(x float64) float64 { return x*x*x - 2*x - 5 }, 2, 3, 2.0945514815423265}, // Newton's example; Wallis
		{"cos", math.Cos, 1, 2, math.Pi / 2},
		{"exp", func(x float64) float64 { return math.Exp(x) - 10 }, 0, 5, math.Log(10)},
		{"flat", func(x float64) float64 { return math.Pow(x-1, 3) }, -3, 4, 1},
		{"step with +Inf", func(x float64) float64 {
			if x < 0.3 {
				return math.Inf(1)
			}
			return 0.7 - x
		}, 0, 1, 0.7},
	}
	for _, c := range cases {
		br, err := NewBracket(c.f, c.a, c.b)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Brent(c.f, br, 1e-13, 1e-13, 200)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		near(t, c.name+" root", out.B, c.root, 1e-6) // flat cube: |f| < 1e-18 already at 1e-6
		if out.FA != 0 && out.FB != 0 && (out.FA > 0) == (out.FB > 0) {
			t.Errorf("%s: final bracket lost the sign change: %+v", c.name, out)
		}
		if w := math.Abs(out.A - out.B); w > 2*(1e-13+1e-13*math.Abs(c.root))+1e-15 {
			t.Errorf("%s: final bracket width %v", c.name, w)
		}
	}
	if _, err := NewBracket(math.Cos, 0, 1); err == nil {
		t.Error("no sign change: want an error")
	}
}

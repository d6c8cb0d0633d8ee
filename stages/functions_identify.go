package stages

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/spec"
)

// bernauNoise is the spec function
//
//	bernau_noise(rho_beta, delta, steps) → noise multiplier z
//
// that caps the posterior belief of k full-batch Gaussian steps at ρ_β:
// ε = ln(ρ_β/(1 − ρ_β)) (Bernau et al. Eq. 10), z from the RDP accountant
// with the authors' order grid and the classic conversion (bounds.
// NoiseForRhoBeta). bernau_noise(0.9, 0.01, 30) = 8.380227.
func bernauNoise(args ...any) (any, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("bernau_noise(rho_beta, delta, steps) takes 3 arguments, got %d", len(args))
	}
	var a [3]float64
	for i := range a {
		v, err := spec.ToFloat(args[i])
		if err != nil {
			return nil, fmt.Errorf("bernau_noise: argument %d: %v", i+1, err)
		}
		a[i] = v
	}
	if !(a[0] > 0.5 && a[0] < 1) {
		return nil, fmt.Errorf("bernau_noise: the target posterior belief ρ_β must be in (0.5, 1), got %v", a[0])
	}
	if !(a[1] > 0 && a[1] < 1) {
		return nil, fmt.Errorf("bernau_noise: δ must be in (0, 1), got %v", a[1])
	}
	if a[2] != math.Trunc(a[2]) || a[2] < 1 {
		return nil, fmt.Errorf("bernau_noise: steps must be a whole number ≥ 1, got %v", a[2])
	}
	z, _, err := bounds.NoiseForRhoBeta(a[0], a[1], int(a[2]), nil)
	if err != nil {
		return nil, fmt.Errorf("bernau_noise: %v", err)
	}
	return z, nil
}

package main

import (
	"fmt"
	"io"

	"github.com/dpaudit/dpaudit"
)

// reportIdentifiabilityViolations prints, as loudly as a membership
// violation, every point whose empirical δ′ (its lower confidence end) is
// above δ, and reports whether there was one.
func reportIdentifiabilityViolations(stderr io.Writer, summary, dir, name string, points int) (bool, error) {
	vs, err := dpaudit.IdentifiabilityViolations(summary)
	if err != nil || len(vs) == 0 {
		return false, err
	}
	fmt.Fprintf(stderr, "\n!!! PRIVACY VIOLATION: %d of %d point(s) of %s break their claimed guarantee !!!\n", len(vs), points, name)
	for _, v := range vs {
		fmt.Fprintf(stderr, "  point %d (%s): the posterior belief exceeded ρ_β = %.4g in %d of %d repetitions: δ′ = %.4g, lower confidence end %.4g > δ = %.4g\n",
			v.PointIndex, v.PointID, v.RhoBeta, v.Exceed, v.N, v.DeltaPrime, v.DeltaPrimeLo, v.Delta)
	}
	fmt.Fprintf(stderr, "The identifiability bound β ≤ ρ_β fails more often than δ allows (Bernau et al. Theorem 1): the training leaks more than its (ε, δ).\nRepetitions: %s/trials/point=<id>/\n", dir)
	return true, nil
}

package glm

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Solution is θ* with how well it satisfies the optimality condition.
type Solution struct {
	Theta      []float64 // θ*, length P (bias first)
	GradNorm   float64   // ‖∇F(θ*)‖₂ of the sum objective
	Iterations int       // Newton steps taken
	Converged  bool      // GradNorm ≤ the tolerance asked for
	Lambda     float64
}

// Objective returns F(θ) = Σ BCE(θᵀx̃_j, y_j) + (Nλ/2)‖θ‖².
func Objective(g *Data, lambda float64, theta []float64) float64 {
	var s float64
	for j := 0; j < g.N; j++ {
		s += bce(g.Dot(j, theta), g.Y[j])
	}
	return s + 0.5*float64(g.N)*lambda*floats.Dot(theta, theta)
}

// Gradient writes ∇F(θ) = Σ (σ(θᵀx̃_j) − y_j)·x̃_j + Nλθ into dst.
func Gradient(g *Data, lambda float64, theta, dst []float64) []float64 {
	if cap(dst) < g.P {
		dst = make([]float64, g.P)
	}
	dst = dst[:g.P]
	for c := range dst {
		dst[c] = float64(g.N) * lambda * theta[c]
	}
	for j := 0; j < g.N; j++ {
		g.AddScaled(dst, sigmoid(g.Dot(j, theta))-g.Y[j], j)
	}
	return dst
}

// Fit minimises F by Newton's method with a backtracking (Armijo) line
// search from θ = 0, until ‖∇F‖₂ ≤ tol or maxIter steps. F is strongly
// convex (Hessian ⪰ NλI), so θ* is unique and the start does not matter;
// Newton reaches rounding level in a handful of steps. When the line
// search can no longer decrease F (rounding), it stops and reports the
// gradient norm reached with Converged false.
func Fit(g *Data, lambda, tol float64, maxIter int) (*Solution, error) {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, invalidf("regularisation λ must be > 0, got %v", lambda)
	}
	if !(tol > 0) {
		return nil, invalidf("tolerance must be > 0, got %v", tol)
	}
	if maxIter < 1 {
		maxIter = 100
	}
	p := g.P
	theta := make([]float64, p)
	grad := Gradient(g, lambda, theta, nil)
	f := Objective(g, lambda, theta)
	step := make([]float64, p)
	trial := make([]float64, p)
	sol := &Solution{Lambda: lambda}
	var chol mat.Cholesky
	for it := 0; it < maxIter; it++ {
		gn := floats.Norm(grad, 2)
		if gn <= tol {
			sol.Converged = true
			break
		}
		if !chol.Factorize(Hessian(g, lambda, theta)) {
			return nil, invalidf("Hessian is not positive definite (λ = %v)", lambda)
		}
		dir := mat.NewVecDense(p, step)
		if err := chol.SolveVecTo(dir, mat.NewVecDense(p, grad)); err != nil {
			return nil, err
		}
		slope := -floats.Dot(grad, step) // direction is −step
		// The full Newton step first. Near θ* the decrease of F falls
		// below F's rounding error and Armijo's test becomes noise, so
		// the step is also taken when it halves the gradient norm (the
		// quadratic-convergence region).
		for c := range trial {
			trial[c] = theta[c] - step[c]
		}
		accepted := false
		if ft := Objective(g, lambda, trial); ft <= f+1e-4*slope {
			f, accepted = ft, true
		} else if next := Gradient(g, lambda, trial, nil); floats.Norm(next, 2) < gn/2 {
			f, accepted = ft, true
		}
		for t := 0.5; !accepted && t > 1e-12; t /= 2 {
			for c := range trial {
				trial[c] = theta[c] - t*step[c]
			}
			if ft := Objective(g, lambda, trial); ft <= f+1e-4*t*slope {
				f, accepted = ft, true
			}
		}
		if !accepted {
			break // rounding: neither F nor ‖∇F‖ decreases
		}
		copy(theta, trial)
		grad = Gradient(g, lambda, theta, grad)
		sol.Iterations = it + 1
	}
	sol.Theta = theta
	sol.GradNorm = floats.Norm(grad, 2)
	sol.Converged = sol.GradNorm <= tol
	return sol, nil
}

// Accuracy returns the share of samples whose predicted label
// (θᵀx̃ > 0) matches y.
func Accuracy(g *Data, theta []float64) float64 {
	ok := 0
	for j := 0; j < g.N; j++ {
		pred := 0.0
		if g.Dot(j, theta) > 0 {
			pred = 1
		}
		if pred == g.Y[j] {
			ok++
		}
	}
	return float64(ok) / float64(g.N)
}

// Package recon is the reconstruction game of Hayes, Mahloujifar & Balle
// (2023) and its prior-aware attacks: the informed adversary knows every
// training record but the target z*, the initial model, every privatised
// gradient sum, and a uniform prior π = {z_1, …, z_n} that holds z*; it
// must say which candidate was trained on (success = exact match).
//
// The attacks score each candidate from the same per-step evidence: at
// step t, with θ_t the parameters before the step and ḡ_t the privatised
// sum with the known gradients of D₋ subtracted,
//
//	d_{t,i} = ⟨clip_C(∇ℓ(θ_t, z_i)), ḡ_t⟩ / C²    n_{t,i} = ‖clip_C(∇ℓ(θ_t, z_i))‖² / C²
//
// (the 1/C² of the paper's Appendix A puts the target's expected inner
// product at 1, so C = 0.1 causes no precision trouble). The rules:
//
//   - RuleSum, Algorithm 2 (full batch): O_i = Σ_t d_{t,i}.
//   - RuleTopSteps, Algorithm 3 (mini-batch, Appendix F): the sum of the
//     k = ⌈qT⌉ largest d_{t,i} over t.
//   - RuleLogLikelihood, Appendix G: s_i = Σ_t ln(1 − q + q·exp((2d_{t,i} −
//     n_{t,i})/(2σ²))), the log-likelihood ratio of the steps given z_i
//     (‖ḡ − g‖² − ‖ḡ‖² = n − 2d in units of C²). With a non-uniform prior
//     the MAP rule adds ln p_i (the paper's "s_z · p_z" is a typo); every
//     prior here is uniform, so the term is constant and left out.
//
// Reference: shared/reference/hayes2023-rero-dpsgd.md §2.7–2.9.
package recon

import (
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/internal/inputerr"
)

// ErrInvalid is wrapped by every error for bad input (the module's one
// sentinel, internal/inputerr, so one errors.Is test maps it to exit code 2).
var ErrInvalid = inputerr.ErrInvalid

func invalidf(format string, args ...any) error {
	return fmt.Errorf("recon: %w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Rule is a decision rule of the prior-aware attack.
type Rule int

const (
	RuleSum           Rule = iota // Algorithm 2
	RuleTopSteps                  // Algorithm 3
	RuleLogLikelihood             // Appendix G
	numRules
)

// Rules lists every rule in column order.
var Rules = []Rule{RuleSum, RuleTopSteps, RuleLogLikelihood}

var ruleNames = []string{"sum", "top_steps", "log_likelihood"}

// String is the rule's spec name.
func (r Rule) String() string {
	if r >= 0 && r < numRules {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// ParseRule parses a spec name.
func ParseRule(s string) (Rule, error) {
	for i, n := range ruleNames {
		if n == s {
			return Rule(i), nil
		}
	}
	return 0, invalidf("unknown rule %q (want sum, top_steps or log_likelihood)", s)
}

// TopSteps is Algorithm 3's k = ⌈qT⌉, the expected number of steps that
// sample the target, at least 1 (the paper leaves the rounding open; qT is
// an integer in all its settings). The 1e-9 keeps 0.07·100 = 7.000…01 at 7.
func TopSteps(q float64, steps int) int {
	return max(1, int(math.Ceil(q*float64(steps)-1e-9)))
}

// stepLLR is ln(1 − q + q·e^z), the log-likelihood ratio of one step, in
// a form that neither overflows nor loses the small-z digits.
func stepLLR(z, q float64) float64 {
	switch {
	case q == 1:
		return z
	case z > 30:
		return z + math.Log(q) + math.Log1p((1-q)/q*math.Exp(-z))
	default:
		return math.Log1p(q * math.Expm1(z))
	}
}

// Evidence accumulates the per-step inner products of one trial and turns
// them into each rule's scores. Reset it per trial; it keeps its buffers.
type Evidence struct {
	n, steps int
	q        float64
	inv2s2   float64   // 1/(2σ²) with the σ the attack assumes
	k        int       // Algorithm 3's k
	t        int       // steps observed so far
	d        []float64 // steps × n, row t = step t
	sum, llr []float64
	// The log-likelihood is kept as llr + log(prod): one Exp per step and
	// candidate instead of an Expm1 and a Log1p (twice as fast); the
	// product is folded into llr whenever it leaves [1e-150, 1e150], and
	// its rounding costs ~T·1e-16 relative.
	prod []float64
}

// NewEvidence prepares the evidence of n candidates over at most steps
// steps of DP-SGD at rate q with noise multiplier sigma (the attack's
// assumption, used by the log-likelihood rule).
func NewEvidence(n, steps int, q, sigma float64) (*Evidence, error) {
	if n < 2 {
		return nil, invalidf("a prior needs at least 2 candidates, got %d", n)
	}
	if steps < 1 || !(q > 0 && q <= 1) || !(sigma > 0) || math.IsInf(sigma, 0) {
		return nil, invalidf("evidence needs steps ≥ 1, q in (0, 1] and σ > 0, got %d, %v, %v", steps, q, sigma)
	}
	return &Evidence{n: n, steps: steps, q: q, inv2s2: 1 / (2 * sigma * sigma), k: TopSteps(q, steps),
		d: make([]float64, steps*n), sum: make([]float64, n), llr: make([]float64, n), prod: ones(n)}, nil
}

func ones(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
	}
	return x
}

// Reset clears the evidence for a new trial.
func (e *Evidence) Reset() {
	e.t = 0
	clear(e.sum)
	clear(e.llr)
	for i := range e.prod {
		e.prod[i] = 1
	}
}

// Observe adds one step: dots[i] = d_{t,i}, sq[i] = n_{t,i}.
func (e *Evidence) Observe(dots, sq []float64) error {
	if len(dots) != e.n || len(sq) != e.n {
		return invalidf("step evidence for %d and %d candidates, want %d", len(dots), len(sq), e.n)
	}
	if e.t >= e.steps {
		return invalidf("more than %d steps observed", e.steps)
	}
	row := e.d[e.t*e.n : (e.t+1)*e.n]
	for i, d := range dots {
		if d-d != 0 || sq[i]-sq[i] != 0 {
			return fmt.Errorf("recon: step %d candidate %d: non-finite evidence (%v, %v)", e.t, i, d, sq[i])
		}
		row[i] = d
		e.sum[i] += d
		z := (2*d - sq[i]) * e.inv2s2
		if z > 30 || e.q == 1 {
			e.llr[i] += stepLLR(z, e.q)
			continue
		}
		p := e.prod[i] * (1 - e.q + e.q*math.Exp(z))
		if p > 1e150 || p < 1e-150 {
			e.llr[i] += math.Log(p)
			p = 1
		}
		e.prod[i] = p
	}
	e.t++
	return nil
}

// Scores writes rule r's score of every candidate into dst (len n).
func (e *Evidence) Scores(r Rule, dst []float64, scratch []float64) {
	switch r {
	case RuleSum:
		copy(dst, e.sum)
	case RuleLogLikelihood:
		for i, l := range e.llr {
			dst[i] = l + math.Log(e.prod[i])
		}
	case RuleTopSteps:
		if e.k >= e.t {
			copy(dst, e.sum)
			return
		}
		col := scratch[:e.t]
		for i := 0; i < e.n; i++ {
			for t := 0; t < e.t; t++ {
				col[t] = e.d[t*e.n+i]
			}
			dst[i] = topSum(col, e.k)
		}
	}
}

// topSum is the sum of the k largest values of x (x is reordered).
func topSum(x []float64, k int) float64 {
	if k >= len(x) {
		var s float64
		for _, v := range x {
			s += v
		}
		return s
	}
	// Partial selection: place the k largest first (quickselect), then sum.
	lo, hi := 0, len(x)-1
	for lo < hi {
		p := x[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for x[i] > p {
				i++
			}
			for x[j] < p {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		if k-1 <= j {
			hi = j
		} else if k-1 >= i {
			lo = i
		} else {
			break
		}
	}
	var s float64
	for _, v := range x[:k] {
		s += v
	}
	return s
}

// Decision is one rule's verdict on a trial.
type Decision struct {
	Guess  int     // argmax of the scores (lowest index on ties)
	Rank   int     // candidates scoring strictly above the target (0: the target is on top)
	Margin float64 // target's score minus the best other score (> 0 iff the guess is right, barring ties)
}

// Decide returns the verdict on scores for the given target.
func Decide(scores []float64, target int) Decision {
	best, other := 0, math.Inf(-1)
	for i, s := range scores {
		if s > scores[best] {
			best = i
		}
		if i != target && s > other {
			other = s
		}
	}
	rank := 0
	for i, s := range scores {
		if i != target && s > scores[target] {
			rank++
		}
	}
	return Decision{Guess: best, Rank: rank, Margin: scores[target] - other}
}

// Outcome is a trial's row: the target's position in the prior and every
// rule's decision.
type Outcome struct {
	Target    int
	Decisions [numRules]Decision
	// TargetSteps counts the steps whose batch held the target.
	TargetSteps int
	// TargetGradNorm is the mean over steps of ‖clip_C(∇ℓ(θ_t, z*))‖ (in
	// the model's units; NaN for the ideal mechanism).
	TargetGradNorm float64
	// Record is the target's index in the pool the prior was drawn from
	// (−1 for a synthetic prior).
	Record int
	// Inversion is the gradient-based attack's outcome, when it ran.
	Inversion *InversionOutcome
}

// InversionOutcome is the prior-oblivious attack's result: the nearest
// candidate's decision (scores are minus L2 distances to ẑ) and the mean
// squared error per feature between ẑ and the target.
type InversionOutcome struct {
	Decision Decision
	MSE      float64
}

// decideAll fills o.Decisions from the evidence.
func (e *Evidence) decideAll(o *Outcome, scores, scratch []float64) {
	for _, r := range Rules {
		e.Scores(r, scores, scratch)
		o.Decisions[r] = Decide(scores, o.Target)
	}
}

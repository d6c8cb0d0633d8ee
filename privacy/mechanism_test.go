package privacy

import (
	"errors"
	"math"
	"testing"
)

// Quick numbers quoted for these mechanisms: q = 0.01, σ = 1.1, T = 3000, δ = 1e-5, RDP.
// "About 5.0 for replace-one, 18.0 for σ/2" (a quick RDP computation of
// the ±C mixture pair). The add/remove RDP is 2.933 here (the signed MTZ
// series, see rdp_sgm.go); dp_accounting's RdpAccountant, which sums |terms|,
// prints 2.97 (privacy/testdata/dp_accounting_pld.py rdp 0.01 1.1 3000 1e-5).
func TestReplaceOneIssueNumbers(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: 0.01, Steps: 3000}
	cases := []struct {
		adj      Adjacency
		want     float64
		tol      float64
		whatSaid string
	}{
		{AdjacencyAddRemove, 2.933, 0.001, "2.97 (dp_accounting's |terms| series)"},
		{AdjacencyReplaceOne, 4.987, 0.001, "about 5.0"},
		{AdjacencyReplaceOneSigmaHalf, 17.981, 0.001, "about 18.0"},
	}
	for _, c := range cases {
		m.Adjacency = c.adj
		e := mustF(t)(Epsilon(AccountantRDP, m, 1e-5, Options{}))
		if math.Abs(e-c.want) > c.tol {
			t.Errorf("RDP %s: ε = %.6f, want %.3f (quoted: %s)", c.adj, e, c.want, c.whatSaid)
		}
	}
}

// dp_accounting's PLDAccountant(REPLACE_ONE) at interval 1e-4, δ = 1e-5,
// printed by privacy/testdata/dp_accounting_mech.py replace-pld (commit
// 125d46c of google/differential-privacy). Both are pessimistic
// connect-the-dots PLDs of the same pair; ours may not fall below theirs
// by more than the discretisation error the PMF documents (≈ 1e-4 at the
// MNIST schedule), nor differ by more than 2e-4.
func TestReplaceOneMatchesDPAccounting(t *testing.T) {
	cases := []struct {
		q, sigma float64
		steps    int
		want     float64
	}{
		{0.01, 1.1, 3000, 4.611810178},
		{0.001, 0.8, 1000, 0.365708952},
		{0.05, 2.0, 500, 4.980757340},
		{0.1, 1.0, 100, 10.516380281},
		{0.2, 0.7, 50, 25.994208292},
		{1.0, 5.0, 10, 5.759481501},
		{256.0 / 60000, 1.1, 14063, 4.221530922}, // the MNIST schedule
	}
	for _, c := range cases {
		m := SampledGaussian{NoiseMultiplier: c.sigma, SamplingRate: c.q, Steps: c.steps, Adjacency: AdjacencyReplaceOne}
		e := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, Options{}))
		if e < c.want-1e-4 || math.Abs(e-c.want) > 2e-4 {
			t.Errorf("q=%v σ=%v T=%d: PLD replace-one ε = %.9f, dp_accounting %.9f", c.q, c.sigma, c.steps, e, c.want)
		}
	}
}

// The replace-one pair is exactly symmetric (one PMF, mirror-invariant),
// lies between the add/remove mechanism (a replacement by a zero-gradient
// record is a removal) and the σ/2 bound, and at q = 1 is the Gaussian
// mechanism with sensitivity 2.
func TestReplaceOneOrdering(t *testing.T) {
	for _, acc := range []Accountant{AccountantRDP, AccountantPLD} {
		for _, q := range []float64{0.001, 0.02, 0.2} {
			m := SampledGaussian{NoiseMultiplier: 1, SamplingRate: q, Steps: 100}
			ar := mustF(t)(Epsilon(acc, m, 1e-6, Options{}))
			m.Adjacency = AdjacencyReplaceOne
			ro := mustF(t)(Epsilon(acc, m, 1e-6, Options{}))
			m.Adjacency = AdjacencyReplaceOneSigmaHalf
			half := mustF(t)(Epsilon(acc, m, 1e-6, Options{}))
			if !(ar <= ro+1e-9 && ro <= half+1e-9) {
				t.Errorf("%s q=%v: add/remove %.5f ≤ replace-one %.5f ≤ σ/2 %.5f fails", acc, q, ar, ro, half)
			}
		}
	}
	// q = 1: N(−1, σ²) against N(1, σ²), exactly (2√T/σ)-GDP.
	m := SampledGaussian{NoiseMultiplier: 3, SamplingRate: 1, Steps: 20, Adjacency: AdjacencyReplaceOne}
	exact := mustF(t)(GDPEpsilon(2*math.Sqrt(20)/3, 1e-5))
	for _, acc := range []Accountant{AccountantPLD, AccountantRDP} {
		e := mustF(t)(Epsilon(acc, m, 1e-5, Options{}))
		if e < exact-1e-6 || (acc == AccountantPLD && e > exact+1e-3) {
			t.Errorf("%s replace-one at q = 1: ε = %.6f, exact %.6f", acc, e, exact)
		}
	}
	d, err := mechanismPLD(SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.05, Steps: 1, Adjacency: AdjacencyReplaceOne}, 1e-3, true, MaxPMFLen, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := d.Remove
	if p.Offset() != -(p.Offset()+p.Len()-1) || d.Add != nil {
		t.Fatalf("replace-one grid not symmetric: offset %d, len %d", p.Offset(), p.Len())
	}
	// Symmetry of a PLD: P[L = l]·e^{−l} = P[L = −l] (the law of −L under Q).
	for i := 0; i < p.Len(); i++ {
		j := p.Len() - 1 - i
		a, b := p.Prob(i)*math.Exp(-p.Loss(i)), p.Prob(j)
		if math.Abs(a-b) > 1e-9*math.Max(b, 1e-6) && math.Abs(a-b) > 1e-15 {
			t.Fatalf("loss %v: e^{−l}·P = %v, P(−l) = %v", p.Loss(i), a, b)
		}
	}
}

// The antipodal pair dominates every pair of gradients in the ball: on a
// grid of g, g′ in the plane (norm ≤ 1), the hockey-stick divergence of
// (1−q)N(0,σ²I) + qN(g,σ²I) against (1−q)N(0,σ²I) + qN(g′,σ²I), computed
// by 2-D quadrature, never exceeds the ±1 pair's at ε ∈ {−1, 0, 0.5, 1, 2}
// (the midpoint rule's error at the kink of (p − e^ε·p′)₊ is 2e-6; the
// smallest margin, 5% of δ, is the nearly antipodal (1, 0), (−0.6, 0.8) at
// ε = 2).
func TestReplaceOneAntipodalDominates(t *testing.T) {
	const q, sigma = 0.2, 1.0
	m := replaceOneLoss(q, sigma)
	type vec struct{ x, y float64 }
	pairs := [][2]vec{
		{{1, 0}, {-1, 0}}, // the antipodal pair itself: checks the quadrature
		{{1, 0}, {0, 0}},
		{{1, 0}, {0, 1}},
		{{1, 0}, {-0.6, 0.8}},
		{{0.5, 0}, {-0.5, 0}},
		{{0.8, 0.6}, {-0.2, -0.3}},
	}
	margin := math.Inf(1)
	for _, eps := range []float64{-1, 0, 0.5, 1, 2} {
		want := m.Delta(eps)
		for k, pr := range pairs {
			got := hockeyStick2D(q, sigma, pr[0].x, pr[0].y, pr[1].x, pr[1].y, eps)
			if k == 0 && math.Abs(got-want) > 5e-6 {
				t.Fatalf("ε=%v: 2-D quadrature of the antipodal pair %.9f, 1-D %.9f", eps, got, want)
			}
			if k > 0 {
				margin = math.Min(margin, want-got)
			}
			if got > want+5e-6 {
				t.Errorf("ε=%v: g=%v g′=%v: δ = %.9f above the antipodal pair's %.9f", eps, pr[0], pr[1], got, want)
			}
		}
	}
	t.Logf("smallest margin below the antipodal pair: %.3g", margin)
}

// hockeyStick2D is ∫ (p − e^ε·p′)₊ over the plane by the midpoint rule on
// [−9, 9]² at spacing 0.02 (σ = 1: the integrand is smooth, the tails
// beyond ±9 hold < 1e-17).
func hockeyStick2D(q, sigma, gx, gy, hx, hy, eps float64) float64 {
	const lim, step = 9.0, 0.02
	n := int(2 * lim / step)
	ee := math.Exp(eps)
	s2 := 2 * sigma * sigma
	norm := 1 / (math.Pi * s2)
	sum := 0.0
	for i := 0; i < n; i++ {
		x := -lim + (float64(i)+0.5)*step
		for j := 0; j < n; j++ {
			y := -lim + (float64(j)+0.5)*step
			base := math.Exp(-(x*x + y*y) / s2)
			p := (1-q)*base + q*math.Exp(-((x-gx)*(x-gx)+(y-gy)*(y-gy))/s2)
			pp := (1-q)*base + q*math.Exp(-((x-hx)*(x-hx)+(y-hy)*(y-hy))/s2)
			if d := p - ee*pp; d > 0 {
				sum += d
			}
		}
	}
	return sum * norm * step * step
}

// The quadrature of the replace-one RDP converges: halving the pieces
// changes log A by < 1e-12 relative + 1e-14 (the rounding of a sum near 1:
// 3e-11 of ε after 3000 steps), over σ from 0.5 to 5, q from 1e-3 to 0.5,
// α from 1.5 to 1024.
func TestRDPReplaceOneQuadratureConverges(t *testing.T) {
	for _, sigma := range []float64{0.5, 1.1, 5} {
		for _, q := range []float64{1e-3, 0.05, 0.5} {
			for _, a := range []float64{1.5, 2, 7.3, 64, 1024} {
				v4 := replaceOneLogA(q, sigma, a, 4)
				v8 := replaceOneLogA(q, sigma, a, 8)
				if math.Abs(v4-v8) > 1e-12*math.Abs(v8)+1e-14 {
					t.Errorf("σ=%v q=%v α=%v: log A %.15g (pieces min(σ,σ²)/4) vs %.15g (/8)", sigma, q, a, v4, v8)
				}
			}
		}
	}
}

// Fixed-size batches: the RDP is dp_accounting's
// SampledWithoutReplacementDpEvent under REPLACE_ONE with the noise
// multiplier relative to the replace-one sensitivity (σ/2): 26.444139772 at
// b/n = 0.01, σ = 1.1 (0.55 to dp_accounting), T = 3000, δ = 1e-5
// (privacy/testdata/dp_accounting_mech.py wor-rdp 0.01 0.55 3000 1e-5).
// The PLD (the symmetrised σ/2 pair) is tighter than that RDP bound and no
// tighter than the σ/2 add/remove pair of either orientation, which the
// sampler attains.
func TestFixedSize(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 1.1, SamplingRate: 0.01, Steps: 3000, Sampling: SamplingFixedSize, Adjacency: AdjacencyReplaceOne}
	r := mustF(t)(Epsilon(AccountantRDP, m, 1e-5, Options{}))
	if math.Abs(r-26.444139772) > 1e-6 {
		t.Errorf("fixed-size RDP ε = %.9f, dp_accounting 26.444139772", r)
	}
	p := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, Options{}))
	half := mustF(t)(Epsilon(AccountantPLD, SampledGaussian{NoiseMultiplier: 0.55, SamplingRate: 0.01, Steps: 3000}, 1e-5, Options{}))
	if !(p < r && p >= half) {
		t.Errorf("fixed-size PLD ε = %.6f, want in [%.6f (σ/2 add/remove), %.6f (RDP))", p, half, r)
	}
	b := mustR(t)(EpsilonDetail(AccountantBest, m, 1e-5, Options{}))
	if b.Value != p || b.Accountant != AccountantPLD {
		t.Errorf("best = %+v, want the PLD's %.6f", b, p)
	}
}

// What no accountant here covers is refused with the reason, and the
// errors are bad input (ErrInvalid: exit code 2 at the CLI).
func TestMechanismRefusals(t *testing.T) {
	base := SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 100}
	cases := []struct {
		name string
		acc  Accountant
		edit func(*SampledGaussian)
	}{
		{"shuffle", AccountantPLD, func(m *SampledGaussian) { m.Sampling = SamplingShuffle }},
		{"shuffle best", AccountantBest, func(m *SampledGaussian) { m.Sampling = SamplingShuffle }},
		{"fixed size add/remove", AccountantRDP, func(m *SampledGaussian) { m.Sampling = SamplingFixedSize }},
		{"balls-in-bins by RDP", AccountantRDP, func(m *SampledGaussian) { m.Sampling = SamplingBallsInBins }},
		{"balls-in-bins replace-one", AccountantPLD, func(m *SampledGaussian) {
			m.Sampling, m.Adjacency = SamplingBallsInBins, AdjacencyReplaceOne
		}},
		{"replace-one by GDP", AccountantGDP, func(m *SampledGaussian) { m.Adjacency = AdjacencyReplaceOne }},
	}
	for _, c := range cases {
		m := base
		c.edit(&m)
		_, err := Epsilon(c.acc, m, 1e-5, Options{})
		if !errors.Is(err, ErrNoAccountant) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrNoAccountant and ErrInvalid", c.name, err)
		}
	}
	for _, m := range []SampledGaussian{
		{NoiseMultiplier: 1, SamplingRate: 0.3, Steps: 10, Sampling: SamplingBallsInBins}, // 1/q not an integer
		{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 10, Sampling: "systematic"},
		{NoiseMultiplier: 1, SamplingRate: 0.01, Steps: 10, Adjacency: "swap"},
	} {
		if _, err := Epsilon(AccountantPLD, m, 1e-5, Options{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", m, err)
		}
	}
}

// Balls-in-bins against dp_accounting's random-allocation PLD (the pull
// request's commit 125d46c of google/differential-privacy, interval 1e-3:
// its default 1e-4 takes hours here), whose DOMINATES and IS_DOMINATED
// constructions bracket the true ε (privacy/testdata/dp_accounting_mech.py
// bib-pld t σ epochs 1e-5 1e-3 upper|lower). Ours, an upper bound at the
// default interval, must lie in the bracket.
func TestBallsInBinsMatchesDPAccounting(t *testing.T) {
	cases := []struct {
		t, epochs    int
		sigma        float64
		lower, upper float64
	}{
		{100, 1, 1.0, 0.617399885, 0.624736140},
		{10, 5, 1.0, 4.273767558, 4.295268382},
	}
	for _, c := range cases {
		m := SampledGaussian{NoiseMultiplier: c.sigma, SamplingRate: 1 / float64(c.t), StepsPerEpoch: c.t, Steps: c.t * c.epochs, Sampling: SamplingBallsInBins}
		e := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, Options{}))
		if e < c.lower || e > c.upper {
			t.Errorf("t=%d σ=%v epochs=%d: ε = %.9f outside dp_accounting's [%.9f, %.9f]", c.t, c.sigma, c.epochs, e, c.lower, c.upper)
		}
		t.Logf("t=%d σ=%v epochs=%d: ε = %.6f, dp_accounting [%.6f, %.6f]", c.t, c.sigma, c.epochs, e, c.lower, c.upper)
	}
}

// With one batch per epoch every record is in every step: E epochs are E
// Gaussian mechanisms, exactly (√E/σ)-GDP; the grid construction must give
// that ε from above, to its discretisation error. A partial last epoch is
// accounted as a whole one.
func TestBallsInBinsOneBatch(t *testing.T) {
	m := SampledGaussian{NoiseMultiplier: 2, SamplingRate: 1, Steps: 7, Sampling: SamplingBallsInBins}
	exact := mustF(t)(GDPEpsilon(math.Sqrt(7)/2, 1e-5))
	e := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, Options{}))
	if e < exact-1e-9 || e > exact+1e-3 {
		t.Errorf("t = 1: ε = %.6f, exact %.6f", e, exact)
	}
	m = SampledGaussian{NoiseMultiplier: 1, SamplingRate: 0.25, Steps: 9, Sampling: SamplingBallsInBins}
	whole := m
	whole.Steps = 12
	if a, b := mustF(t)(Epsilon(AccountantPLD, m, 1e-5, Options{})), mustF(t)(Epsilon(AccountantPLD, whole, 1e-5, Options{})); a != b {
		t.Errorf("9 steps of 4-batch epochs: ε = %v, want the 3 whole epochs' %v", a, b)
	}
}

// The one-epoch law keeps its mass and first moment (the splits are
// mean-preserving; rounding is moved to +∞), so the two PMFs are a pair:
// Σ_remove P·e^{−l} is the Q-mass of the grid, Σ_add Q·e^{−l}... and both
// total at least 1.
func TestBallsInBinsMass(t *testing.T) {
	d, err := ballsInBinsEpochStep(37, 0.8, 1e-4, 4e-3, true, MaxPMFLen)
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Remove.Mass(); m < 1-1e-15 || m > 1+1e-9 {
		t.Errorf("remove mass %v", m)
	}
	if m := d.Add.Mass(); m < 1-1e-15 || m > 1+1e-9 {
		t.Errorf("add mass %v", m)
	}
	// E_P[e^{−L_remove}] = Q[grid] and E_Q[e^{−L_add}] = E_Q[Ŷ] = P[grid].
	q := d.Remove.DualSurvival(math.Inf(-1))
	p := d.Add.DualSurvival(math.Inf(-1))
	if math.Abs(q-(1-d.Add.InfinityMass())) > 1e-12 || math.Abs(p-(1-d.Remove.InfinityMass())) > 1e-12 {
		t.Errorf("moments: Σ P e^{−l} = %v (Q grid mass %v), Σ Q e^{−l} = %v (P grid mass %v)", q, 1-d.Add.InfinityMass(), p, 1-d.Remove.InfinityMass())
	}
}

// Calibration inverts the new accountants: the σ found meets the target,
// 0.1% less noise does not.
func TestCalibrateMechanism(t *testing.T) {
	for _, m := range []SampledGaussian{
		{SamplingRate: 0.01, Steps: 300, Adjacency: AdjacencyReplaceOne},
		{SamplingRate: 0.01, Steps: 300, Adjacency: AdjacencyReplaceOne, Sampling: SamplingFixedSize},
		{SamplingRate: 0.1, Steps: 30, Sampling: SamplingBallsInBins},
	} {
		for _, acc := range []Accountant{AccountantPLD, AccountantBest} {
			s := mustF(t)(CalibrateMechanism(acc, 2, 1e-5, m, Options{}))
			m.NoiseMultiplier = s
			e := mustF(t)(Epsilon(acc, m, 1e-5, Options{}))
			m.NoiseMultiplier = s * 0.999
			e2 := mustF(t)(Epsilon(acc, m, 1e-5, Options{}))
			if e > 2 || e2 <= 2 {
				t.Errorf("%s %s/%s: σ = %.6f gives ε = %.6f, 0.999σ gives %.6f", acc, m.Sampling, m.Adjacency, s, e, e2)
			}
		}
	}
}

package privacy

import (
	"math"
	"sync"

	"github.com/dpaudit/dpaudit/internal/numeric"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mathext"
)

// Balls-in-bins (random allocation) sampling under add/remove adjacency.
//
// Every epoch puts each record into one of t batches uniformly at random.
// The other records' contributions are the same in both worlds, so an
// epoch is dominated by the t-dimensional pair (Chua et al., AISTATS 2025;
// Feldman & Shenfeld 2025; dp_accounting's random-allocation PLD)
//
//	P = (1/t)·Σ_j N(e_j, σ²I_t)   against   Q = N(0, σ²I_t),
//
// whose likelihood ratio is the mean Ȳ = (1/t)·Σ_j Y_j of the t
// single-step ratios Y_j = e^{(x_j − ½)/σ²}, i.i.d. log-normal under Q
// (log Y ∼ N(−a, 2a), a = 1/(2σ²), E[Y] = 1). Both orientations are
// functionals of the one law of Ȳ under Q:
//
//	δ_remove(ε) = E_Q[(Ȳ − e^ε)₊],   δ_add(ε) = E_Q[(1 − e^ε·Ȳ)₊],
//
// and both are convex in Ȳ. So any Ŷ that dominates Ȳ in convex order
// (a mean-preserving spread of it) gives upper bounds on both curves at
// every ε, and (Ŷ under Q, Ŷ·Q) is a genuine dominating pair: its PLDs
// (log Ŷ under Ŷ·Q for remove, −log Ŷ under Q for add) compose.
//
// The law of Ȳ is built on the geometric grid y_k = e^{k·g}, where a loss
// log y_k = k·g lands exactly on the PLD grid when g is a multiple of the
// PLD interval: the one-record law of Y is discretised cell by cell, each
// cell's Q-mass split between its two ends so that its first moment is
// kept (a mean-preserving spread); sums of independent copies are formed
// by binary powering, each sum e^{ig} + e^{jg} = e^{ig}(1 + e^{−dg}),
// d = i − j ≥ 0, again split between the two grid points around it with
// its mean kept — a split that depends on d only, so the work is one
// pass over the pairs at d < D (where the sum moves by more than a grid
// step) and two running sums for the rest. Convex order is preserved by
// independent sums and by spreads, so the final Ŷ dominates Ȳ; the error
// is second order in g, as connect-the-dots' (Doroshenko et al. 2022).
// Tails: below the grid the mass is spread to {0, y_lo} (an atom at Ȳ = 0
// is an add-loss of +∞); above it mass goes to an overflow atom counted
// at +∞ in both orientations with the Q-mass and first moment it
// carries (a union bound over the sums), so the result stays an upper
// bound. Floating point: every mass is a sum of positive products, so
// its rounding is relative (≈ 1e-14), not absolute.
//
// dp_accounting's construction (geometric grids too) rounds each sum up
// or down instead of splitting it, which costs about a grid step per sum
// level, and enumerates all pairs (quadratic in the grid); its numbers
// agree with these to within that rounding (TestBallsInBinsMatchesDPAccounting).

// ballsInBinsStep is the least geometric step g used inside an epoch (the
// smallest multiple of the PLD interval h at or above it is used). The
// error of the mean-preserving splits is second order in g: at t = 100,
// σ = 1, one epoch, δ = 1e-5, ε is 0.6210179, 0.6209619, 0.6209432,
// 0.6209408 at g = 4e-3, 2e-3, 1e-3, 5e-4 (each an upper bound), taking
// 0.06, 1.2, 4.5 and 15 s on this machine.
const ballsInBinsStep = 2e-3

// ballsInBinsTail is the Q-mass (and P-mass) the tails of each component
// law and of each partial sum may lose to the overflow or zero atoms.
const ballsInBinsTail = 1e-18

// geoDist is a sub-probability law on {0} ∪ {e^{(lo+i)·g}} plus an
// overflow atom (values above the grid) known by its mass and first
// moment.
type geoDist struct {
	g        float64
	lo       int
	p        []float64
	zero     float64
	ovMass   float64
	ovMoment float64
}

func (d *geoDist) value(i int) float64 { return math.Exp(float64(d.lo+i) * d.g) }

// mean is the first moment of the whole law (overflow included).
func (d *geoDist) mean() float64 {
	s := d.ovMoment
	for i, x := range d.p {
		s += x * d.value(i)
	}
	return s
}

// ballsInBinsEpoch is the PLD of one epoch of t batches with noise
// multiplier σ, at PLD interval h (remove and add orientations).
func ballsInBinsEpoch(t int, sigma, h float64, pessimistic bool, limit int) (*PLD, error) {
	return ballsInBinsEpochStep(t, sigma, h, ballsInBinsStep, pessimistic, limit)
}

// ballsInBinsEpochStep is ballsInBinsEpoch with the in-epoch grid step at
// least step.
func ballsInBinsEpochStep(t int, sigma, h, step float64, pessimistic bool, limit int) (*PLD, error) {
	if !pessimistic {
		return nil, invalidf("balls-in-bins has a pessimistic PLD only (no lower estimate)")
	}
	m := int(math.Ceil(step/h - 1e-9))
	g := float64(m) * h
	one, err := logNormalOnGrid(sigma, g, limit)
	if err != nil {
		return nil, err
	}
	sum, err := geoPower(one, t, limit)
	if err != nil {
		return nil, err
	}
	mean := geoScale(sum, 1/float64(t))
	return geoPLD(mean, m, h)
}

// logNormalOnGrid discretises Y = e^ℓ, ℓ ∼ N(−a, 2a), a = 1/(2σ²), on the
// geometric grid of step g by mean-preserving splits of each cell.
func logNormalOnGrid(sigma, g float64, limit int) (*geoDist, error) {
	a := 1 / (2 * sigma * sigma)
	s := 1 / sigma // std of ℓ
	z := -mathext.NormalQuantile(ballsInBinsTail)
	// Q's bulk sits at −a, the mean-carrying part (P's bulk) at +a.
	lo := int(math.Floor((-a - z*s) / g))
	hi := int(math.Ceil((a + z*s) / g))
	n := hi - lo + 1
	if n > limit {
		return nil, tooLarge(float64(n), limit)
	}
	d := &geoDist{g: g, lo: lo, p: make([]float64, n)}
	// Cell [k, k+1]: ∫ (e^ℓ − y_k)/(y_{k+1} − y_k) dN(ℓ; −a, s²) goes up,
	// the rest of its mass down; 8-point Gauss–Legendre in ℓ over a cell of
	// width g ≤ s/100 is exact to rounding.
	nodes, weights := legendre8()
	den := math.Expm1(g)
	for k := lo; k < hi; k++ {
		l0 := float64(k) * g
		up, mass := 0.0, 0.0
		for j, u := range nodes {
			l := l0 + (u+1)*g/2
			w := weights[j] * normalDensity((l+a)/s) / s * g / 2
			mass += w
			up += w * math.Expm1(l-l0) / den
		}
		d.p[k-lo] += mass - up
		d.p[k+1-lo] += up
	}
	// Lower tail (ℓ < lo·g): spread to {0, y_lo}, keeping its moment.
	lowMass := numeric.NormCDF((float64(lo)*g + a) / s)
	lowMoment := numeric.NormCDF((float64(lo)*g - a) / s) // E[Y; ℓ < lo·g]
	atLo := math.Min(lowMoment/d.value(0), lowMass)
	d.p[0] += atLo
	d.zero = lowMass - atLo
	// Upper tail: the overflow atom.
	d.ovMass = numeric.NormSF((float64(hi)*g + a) / s)
	d.ovMoment = numeric.NormSF((float64(hi)*g - a) / s)
	return d, nil
}

// geoPower returns the law of the sum of t independent copies of d.
func geoPower(d *geoDist, t, limit int) (*geoDist, error) {
	var acc *geoDist
	base := d
	for t > 0 {
		var err error
		if t&1 == 1 {
			if acc == nil {
				acc = base
			} else if acc, err = geoAdd(acc, base, limit); err != nil {
				return nil, err
			}
		}
		t >>= 1
		if t > 0 {
			if base, err = geoAdd(base, base, limit); err != nil {
				return nil, err
			}
		}
	}
	return acc, nil
}

// geoSplit describes where e^{ig}·(1 + e^{−dg}) lands: between i + c and
// i + c + 1, with weight w on the upper point (mean kept).
type geoSplit struct {
	c int
	w float64
}

func splitFor(d int, g float64) geoSplit {
	r := math.Log1p(math.Exp(-float64(d) * g)) // log(1 + e^{−dg}) ∈ (0, log 2]
	c := int(math.Floor(r / g))
	// w = (1 + e^{−dg} − e^{cg})/(e^{cg}(e^g − 1)) = (e^{r−cg} − 1)/(e^g − 1)
	w := math.Expm1(r-float64(c)*g) / math.Expm1(g)
	return geoSplit{c, math.Min(math.Max(w, 0), 1)}
}

// geoAdd returns the law of X + Y for independent X ∼ x, Y ∼ y on the
// same grid.
func geoAdd(x, y *geoDist, limit int) (*geoDist, error) {
	g := x.g
	// Offsets below near move the larger value by ≥ half a grid step's
	// weight; beyond it the sum lands on {i, i+1} with upper weight
	// w(d) = e^{−dg}/(e^g − 1) < ½, handled by running sums.
	near := 0
	for splitFor(near, g).c > 0 || splitFor(near, g).w > 0.5 {
		near++
	}
	splits := make([]geoSplit, near)
	for d := range splits {
		splits[d] = splitFor(d, g)
	}
	top := splits[0].c + 1 // the largest upward move
	lo := min(x.lo, y.lo)  // 0 + Y = Y keeps Y's lowest cell
	hi := max(x.lo+len(x.p), y.lo+len(y.p)) - 1 + top
	n := hi - lo + 1
	if n > limit {
		return nil, tooLarge(float64(n), limit)
	}
	out := &geoDist{g: g, lo: lo, p: make([]float64, n)}
	addOrdered(out, x, y, splits, true)
	addOrdered(out, y, x, splits, false)
	// Zero atoms: 0 + Y = Y.
	for i, v := range y.p {
		out.p[y.lo+i-lo] += x.zero * v
	}
	for i, v := range x.p {
		out.p[x.lo+i-lo] += y.zero * v
	}
	out.zero = x.zero * y.zero
	// Overflow: a union bound over the two events.
	mx, my := x.mean(), y.mean()
	out.ovMass = x.ovMass + y.ovMass
	out.ovMoment = x.ovMoment + x.ovMass*my + y.ovMoment + y.ovMass*mx
	out.trim()
	return out, nil
}

// addOrdered adds the pairs (X = e^{ig}, Y = e^{jg}) with i ≥ j (i > j
// unless withTies) to out: offsets d = i − j below len(splits) one offset
// at a time (a contiguous run of i, so the loop is a plain slice pass),
// the rest through two running sums.
func addOrdered(out, x, y *geoDist, splits []geoSplit, withTies bool) {
	g := x.g
	near := len(splits)
	first := 1
	if withTies {
		first = 0
	}
	for d := first; d < near; d++ {
		// i ranges over x's indices with j = i − d inside y.
		iLo := max(x.lo, y.lo+d)
		iHi := min(x.lo+len(x.p), y.lo+len(y.p)+d) // exclusive
		if iLo >= iHi {
			continue
		}
		s := splits[d]
		xs := x.p[iLo-x.lo : iHi-x.lo]
		ys := y.p[iLo-d-y.lo : iHi-d-y.lo]
		o := out.p[iLo+s.c-out.lo : iHi+s.c-out.lo+1]
		a, b := 1-s.w, s.w
		// o[k] gets a·m_k + b·m_{k−1}: no store feeds the next iteration.
		prev := 0.0
		ys = ys[:len(xs)]
		o = o[:len(xs)+1]
		for k, xv := range xs {
			m := xv * ys[k]
			o[k] += m*a + prev*b
			prev = m
		}
		o[len(xs)] += prev * b
	}
	eg := math.Exp(-g)
	den := math.Expm1(g)
	farW := math.Exp(-float64(near) * g) // e^{−near·g}
	// far: Σ_{j ≤ i−near} y_j; farExp: Σ_{j ≤ i−near} e^{−(i−j)g}·y_j.
	far, farExp := 0.0, 0.0
	for jj := 0; jj < len(y.p) && y.lo+jj < x.lo-near; jj++ {
		far += y.p[jj]
		farExp += math.Exp(-float64(x.lo-y.lo-jj)*g) * y.p[jj]
	}
	for ii, xv := range x.p {
		i := x.lo + ii
		if jj := i - near - y.lo; jj >= 0 && jj < len(y.p) {
			far += y.p[jj]
			farExp += farW * y.p[jj]
		}
		if far > 0 && xv != 0 {
			up := farExp / den
			out.p[i-out.lo] += xv * (far - up)
			out.p[i+1-out.lo] += xv * up
		}
		farExp *= eg
	}
}

// trim moves negligible tails off the grid: low cells to {0, lowest kept
// cell} (mean kept), high cells to the overflow atom, each side at most
// ballsInBinsTail of mass and of moment.
func (d *geoDist) trim() {
	n := len(d.p)
	first, mass, moment := 0, 0.0, 0.0
	for first < n-1 {
		v := d.p[first]
		if mass+v > ballsInBinsTail {
			break
		}
		mass += v
		moment += v * d.value(first)
		first++
	}
	if first > 0 {
		keep := math.Min(moment/d.value(first), mass)
		d.p[first] += keep
		d.zero += mass - keep
	}
	last, mass, moment := n-1, 0.0, 0.0
	for last > first {
		v := d.p[last]
		mv := v * d.value(last)
		if mass+v > ballsInBinsTail || moment+mv > ballsInBinsTail {
			break
		}
		mass += v
		moment += mv
		last--
	}
	d.ovMass += mass
	d.ovMoment += moment
	d.p = d.p[first : last+1]
	d.lo += first
}

// geoScale returns the law of c·X: each atom e^{kg}·c falls between two
// grid points, split with its mean kept (the same split for every k).
func geoScale(d *geoDist, c float64) *geoDist {
	r := math.Log(c) / d.g
	shift := int(math.Floor(r))
	f := (r - float64(shift)) * d.g // e^{kg}·c = e^{(k+shift)g}·e^f, 0 ≤ f < g
	w := math.Expm1(f) / math.Expm1(d.g)
	out := &geoDist{g: d.g, lo: d.lo + shift, p: make([]float64, len(d.p)+1), zero: d.zero,
		ovMass: d.ovMass, ovMoment: d.ovMoment * c}
	for i, v := range d.p {
		out.p[i] += v * (1 - w)
		out.p[i+1] += v * w
	}
	return out
}

// geoPLD turns the law of Ŷ (grid step g = m·h) into the remove PMF (loss
// log y with P-mass y·Q(y)) and the add PMF (loss −log y with Q-mass).
func geoPLD(d *geoDist, m int, h float64) (*PLD, error) {
	n := len(d.p)
	rem := make([]float64, (n-1)*m+1)
	add := make([]float64, (n-1)*m+1)
	for i, v := range d.p {
		rem[i*m] = v * d.value(i)
		add[(n-1-i)*m] = v
	}
	// P and Q have mass 1 exactly; what rounding lost of it goes to +∞,
	// so that no rounding can lower δ.
	remInf := math.Max(d.ovMoment, 1-kahanSum(rem))
	addInf := math.Max(d.ovMass+d.zero, 1-kahanSum(add))
	remove := &PMF{interval: h, offset: d.lo * m, probs: rem, infMass: math.Min(1, remInf), pessimistic: true}
	addP := &PMF{interval: h, offset: -(d.lo + n - 1) * m, probs: add, infMass: math.Min(1, addInf), pessimistic: true}
	return &PLD{Remove: remove, Add: addP}, nil
}

// kahanSum is Σ x with compensated summation.
func kahanSum(x []float64) float64 {
	s, c := 0.0, 0.0
	for _, v := range x {
		y := v - c
		t := s + y
		c = (t - s) - y
		s = t
	}
	return s
}

func normalDensity(x float64) float64 { return math.Exp(-0.5*x*x - numeric.LogSqrt2Pi) }

// legendre8 returns the 8-point Gauss–Legendre nodes and weights on
// [−1, 1].
var legendre8 = sync.OnceValues(func() ([]float64, []float64) {
	x, w := make([]float64, 8), make([]float64, 8)
	quad.Legendre{}.FixedLocations(x, w, -1, 1)
	return x, w
})

package bound

import (
	"errors"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// Hayes et al. (2023) Table 2, T = 1, q = 1, C = 1 (notes
// shared/reference/hayes2023-rero-dpsgd.md §5.1 and §7).
var table2Sigmas = []float64{0.5, 1, 1.5, 2, 2.5, 3}

func TestReroTable2Ours(t *testing.T) {
	rows := []struct {
		n            int
		paper, exact []float64
		tolPaper     float64
	}{
		// Paper "Ours" row; the notes' exact values of the closed form. The
		// paper's n = 100 row is 10⁵-sample Monte Carlo, off by up to 0.006
		// (notes §5.1), hence ±0.007 there and ±0.003 for n = 10.
		{10, []float64{0.737, 0.322, 0.189, 0.128, 0.099, 0.080}, []float64{0.7375, 0.3213, 0.1881, 0.1303, 0.0989, 0.0795}, 0.003},
		{100, []float64{0.362, 0.077, 0.035, 0.024, 0.018, 0.012}, []float64{0.3657, 0.0832, 0.0389, 0.0241, 0.0172, 0.0133}, 0.007},
	}
	for _, row := range rows {
		for i, sigma := range table2Sigmas {
			outs := boundOutputs(t, reroEntry(row.n, 0, "exact"), dpsgd(sigma, 1, 1, 1e-5), 1)
			adv := col(t, outs, "rero_advantage")
			nearAbs(t, "Table 2 Ours (paper)", adv, row.paper[i], row.tolPaper)
			nearAbs(t, "Table 2 Ours (notes, exact)", adv, row.exact[i], 6e-5) // 4 printed decimals
			if lo, hi := col(t, outs, "rero_gamma_lo"), col(t, outs, "rero_gamma_hi"); hi-lo > 1e-12 {
				t.Errorf("closed form at q = 1 has a bracket [%v, %v]", lo, hi)
			}
			if outs["rero_method"] != "exact" || col(t, outs, "rero_kappa") != 1/float64(row.n) {
				t.Errorf("method/kappa columns: %v", outs)
			}
		}
	}
}

func TestReroTable2Guo(t *testing.T) {
	// Table 2 rows "Guo et al. (2022b)" (closed form, ±0.001 as the notes'
	// §7) and "(MC)" (10⁵ samples as the paper's; ±0.005, notes §7).
	rows := []struct {
		n       int
		closed  []float64
		montec  []float64
		mcCheck []int // σ indices checked by Monte Carlo (it is the slow part)
	}{
		{10, []float64{0.976, 0.593, 0.380, 0.274, 0.213, 0.174}, []float64{0.771, 0.397, 0.257, 0.184, 0.144, 0.118}, []int{0, 1, 5}},
		{100, []float64{0.861, 0.346, 0.195, 0.131, 0.097, 0.076}, []float64{0.549, 0.210, 0.120, 0.081, 0.062, 0.049}, []int{0, 3}},
	}
	for _, row := range rows {
		for i, sigma := range table2Sigmas {
			compare := []string{"guo_fano"}
			if contains(row.mcCheck, i) {
				compare = append(compare, "guo_fano_mc")
			}
			e := reroEntry(row.n, 0, "exact", compare...)
			e.Rero.Samples = 100_000
			outs := boundOutputs(t, e, dpsgd(sigma, 1, 1, 1e-5), 1)
			nearAbs(t, "Table 2 Guo et al. (2022b)", col(t, outs, "rero_guo_fano_advantage"), row.closed[i], 1e-3)
			if contains(row.mcCheck, i) {
				nearAbs(t, "Table 2 Guo et al. (2022b) (MC)", col(t, outs, "rero_guo_fano_mc_advantage"), row.montec[i], 5e-3)
			}
		}
	}
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestReroSubsampled(t *testing.T) {
	// Notes §7, "fixed σ, q < 1": the exact method at T = 100.
	cases := []struct {
		sigma, q, kappa, want, tol float64
	}{
		{0.590762, 0.01, 0.1, 0.1867, 0.002}, // Fig. 5 at q = 0.01 (0.1866–0.1870 by three methods)
		{10.7172, 0.99, 0.1, 0.3602, 0.002},  // Fig. 5 at q = 0.99
		{0.2808, 0.01, 0.01, 0.3748, 0.002},  // Fig. 15 at q = 0.01, |π| = 100
	}
	for _, c := range cases {
		outs := boundOutputs(t, reroEntry(0, c.kappa, "exact"), dpsgd(c.sigma, c.q, 100, 1e-5), 1)
		g, lo, hi := col(t, outs, "rero_gamma"), col(t, outs, "rero_gamma_lo"), col(t, outs, "rero_gamma_hi")
		nearAbs(t, "ReRo bound", g, c.want, c.tol)
		if !(lo <= g && g <= hi && hi-lo <= 1e-3) {
			t.Errorf("bracket [%v, %v] around %v wider than the tolerance 1e-3", lo, hi, g)
		}
	}
	// The robust Monte Carlo estimate (10⁵ samples, seeded) agrees with
	// the exact value 0.1867 within its sampling error (sd ≈ 0.0013 at
	// p ≈ 0.19, N = 10⁵; ±0.006 allows 4.5 sd), and its 99.9% interval
	// contains it.
	e := reroEntry(10, 0, "robust")
	e.Rero.Samples = 100_000
	outs := boundOutputs(t, e, dpsgd(0.590762, 0.01, 100, 1e-5), 7)
	nearAbs(t, "robust ReRo bound", col(t, outs, "rero_gamma"), 0.1867, 0.006)
	if lo, hi := col(t, outs, "rero_gamma_lo"), col(t, outs, "rero_gamma_hi"); !(lo <= 0.1867 && 0.1867 <= hi) {
		t.Errorf("robust interval [%v, %v] misses 0.1867", lo, hi)
	}
	if col(t, outs, "rero_confidence") != 0.999 {
		t.Errorf("confidence column %v", outs["rero_confidence"])
	}
}

func TestReroRDPComparator(t *testing.T) {
	// Hayes et al. Eq. 2 (full batch, every real order), notes §7:
	// κ = 0.1, T = 100: σ = 4.9989 → 0.9895, σ = 37.3063 → 0.1715 (±1e-4,
	// the notes print 4 decimals).
	for _, c := range []struct{ sigma, want float64 }{{4.9989, 0.9895}, {37.3063, 0.1715}} {
		outs := boundOutputs(t, reroEntry(10, 0, "exact", "rdp"), dpsgd(c.sigma, 1, 100, 1e-5), 1)
		nearAbs(t, "Eq. 2 RDP bound", col(t, outs, "rero_rdp_gamma"), c.want, 1e-4)
		if g := col(t, outs, "rero_gamma"); !(g < col(t, outs, "rero_rdp_gamma")) {
			t.Errorf("σ = %v: Corollary 4 (%v) must be tighter than the RDP bound", c.sigma, g)
		}
	}
	// q < 1: the accountant's RDP curve; still looser than the exact bound
	// (Fig. 5 setting, ReRo 0.1867).
	outs := boundOutputs(t, reroEntry(10, 0, "exact", "rdp"), dpsgd(0.590762, 0.01, 100, 1e-5), 1)
	if g := col(t, outs, "rero_rdp_gamma"); !(g > 0.1867 && g <= 1) {
		t.Errorf("RDP bound %v at the Fig. 5 setting, want in (0.1867, 1]", g)
	}
	if o := col(t, outs, "rero_rdp_order"); !(o > 1) {
		t.Errorf("RDP order %v", o)
	}
}

// ⌈κN⌉ < 100 is refused before anything runs, naming the key and the N
// that would do.
func TestReroTooFewSamples(t *testing.T) {
	e := reroEntry(0, 0.001, "robust")
	e.Rero.Samples = 10_000
	_, err := Values(e, dpsgd(1, 0.01, 100, 1e-5), 0)
	var pe *stages.PathError
	if !errors.As(err, &pe) || pe.Path != "bound[0].samples" || !errors.Is(err, bounds.ErrInvalid) {
		t.Fatalf("want a stages.PathError at bound[0].samples wrapping ErrInvalid, got %v", err)
	}
	if !strings.Contains(err.Error(), "⌈κN⌉") || !strings.Contains(err.Error(), "samples ≥ 100000") {
		t.Fatalf("message %q should explain ⌈κN⌉ and suggest N", err)
	}
	// The exact method has no such limit.
	e.Rero.Method = "exact"
	if _, err := Values(e, dpsgd(1, 0.01, 100, 1e-5), 0); err != nil {
		t.Fatal(err)
	}
}

// Monte Carlo seeds come from the spec seed alone: the same entry at two
// sweep positions is one node, another spec seed is another node, and the
// exact method does not depend on the seed at all.
func TestReroSeedsAndSharing(t *testing.T) {
	key := func(seed int64, index int, e spec.Bound) string {
		exp := &spec.Experiment{Seed: seed, DPSGD: dpsgd(1, 0.01, 100, 1e-5), Bound: []spec.Bound{e}}
		return nodeOf(t, exp, index, "rero").Key()
	}
	robust, exact := reroEntry(10, 0, "robust"), reroEntry(10, 0, "exact")
	if key(1, 0, robust) != key(1, 5, robust) {
		t.Error("the robust node depends on the point's position")
	}
	if key(1, 0, robust) == key(2, 0, robust) {
		t.Error("the robust node ignores the spec seed")
	}
	if key(1, 0, exact) != key(2, 3, exact) {
		t.Error("the exact node depends on the seed or the position")
	}
	if key(1, 0, exact) != key(1, 0, reroEntry(0, 0.1, "exact")) {
		t.Error("prior_size: 10 and kappa: 0.1 make different nodes")
	}
}

// Non-private training (σ = 0) reaches the summary as trivial bounds.
func TestReroNoNoise(t *testing.T) {
	outs := boundOutputs(t, reroEntry(10, 0, "exact", "rdp", "guo_fano"), dpsgd(0, 0.5, 10, 1e-5), 1)
	for _, c := range []string{"rero_gamma", "rero_advantage", "rero_rdp_gamma", "rero_guo_fano_gamma"} {
		if col(t, outs, c) != 1 {
			t.Errorf("%s = %v without noise, want 1", c, outs[c])
		}
	}
}

// BoundValues refuses, instead of panicking, an entry that needs a DP-SGD
// configuration it was not given.
func TestBoundValuesWithoutDPSGD(t *testing.T) {
	for _, e := range []spec.Bound{
		reroEntry(10, 0, "exact"),
		{Kind: "mse_rdp", MSE: &spec.MSERDPBound{Diameter: 1}},
		{Kind: "minimax_mse", Minimax: &spec.MinimaxBound{Models: 1, Diameter: 1, Alpha: 2}},
		{Kind: "belief", Belief: &spec.BeliefBound{Epsilon: 1}},
	} {
		if _, err := Values(e, nil, 0); !errors.Is(err, bounds.ErrInvalid) {
			t.Errorf("%s without dpsgd: want ErrInvalid, got %v", e.Kind, err)
		}
	}
}

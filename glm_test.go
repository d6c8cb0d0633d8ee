package dpaudit

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
)

// Output perturbation with tiny Gaussian noise on digits 0-vs-1: the GLM
// attack is then in its locally linear regime, nearly unbiased, and Guo et
// al.'s §7.2 observation holds: every sample whose dFIL predicts an MSE
// ≤ 1 has a realised MSE at or above its prediction. The RDP ε is the
// paper's 2/(Nλσ).
func TestGLMReconDigits(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "g.yaml", `name: g
seed: 2
dataset: {source: digits, classes: [0, 1]}
model: {arch: output_perturbation, lambda: 0.01, sigma: 1.0e-6}
reconstruction: {attack: glm, releases: 30}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	row := summaryRow(t, res.Summary, 0)
	cols := trialTable(t, filepath.Join(dir, "results", "g"))
	n := len(cols["sample_index"])
	if n < 200 || row["glm_targets"] != int64(n) {
		t.Fatalf("%d per-sample rows, glm_targets = %v", n, row["glm_targets"])
	}
	wantEps := 2 / (float64(n) * 0.01 * 1e-6) // paper_v1, all training samples are targets
	if e := row["glm_epsilon"].(float64); math.Abs(e-wantEps) > 1e-9*wantEps {
		t.Errorf("glm_epsilon = %v, want 2/(Nλσ) = %v", e, wantEps)
	}
	if row["glm_failed_trials"] != int64(0) || row["glm_mse_bound_violation"] != nil {
		t.Errorf("failed = %v, violation = %v", row["glm_failed_trials"], row["glm_mse_bound_violation"])
	}
	if f := row["glm_fraction_respected_pred_le1"]; f != 1.0 {
		t.Errorf("fraction of samples with predicted MSE ≤ 1 respecting their dFIL bound = %v, want 1 (Guo et al. §7.2)", f)
	}
	if g := row["glm_grad_norm"].(float64); !(g <= 1e-8) {
		t.Errorf("‖∇F(θ*)‖ = %v > tolerance 1e-8", g)
	}
	for i := 0; i < n; i++ {
		lo, hi, m := cols["mse_lo"][i].(float64), cols["mse_hi"][i].(float64), cols["mse"][i].(float64)
		if !(lo <= m && m <= hi) {
			t.Fatalf("sample %d: interval [%v, %v] does not hold its mean %v", i, lo, hi, m)
		}
	}
}

// Projected noisy SGD calibrated to ε = 1 for the first sample: the
// per-sample ε grows with the position in the pass.
func TestGLMReconPNSGD(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "p.yaml", `name: p
seed: 2
dataset: {source: digits, classes: [0, 1]}
model: {arch: pnsgd, lambda: 0.01, epsilon: 1, normalize: l2_ball, learning_rate: 0.5, radius: 10}
reconstruction: {attack: glm, releases: 3, targets: subset, target_count: 10}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	row := summaryRow(t, res.Summary, 0)
	if e := row["glm_epsilon"].(float64); math.Abs(e-1) > 1e-9 {
		t.Errorf("ε of the first sample = %v, want 1", e)
	}
	cols := trialTable(t, filepath.Join(dir, "results", "p"))
	prev := 0.0
	for i, e := range cols["epsilon"] {
		if e.(float64) <= prev {
			t.Errorf("row %d: ε = %v not above %v", i, e, prev)
		}
		prev = e.(float64)
	}
	if len(cols["epsilon"]) != 10 {
		t.Errorf("%d targets, want 10", len(cols["epsilon"]))
	}
}

// Bad input is a positioned error (exit code 2) naming the key.
func TestGLMBadInput(t *testing.T) {
	dir := t.TempDir()
	head := "name: b\ndataset: {source: digits, classes: [0, 1]}\n"
	cases := []struct{ name, body, want string }{
		{"λ = 0", "model: {arch: output_perturbation, lambda: 0, sigma: 1}\nreconstruction: {attack: glm}\n", "model.lambda"},
		{"λ < 0", "model: {arch: pnsgd, lambda: -1, epsilon: 1, learning_rate: 0.1, radius: 1}\nreconstruction: {attack: glm}\n", "model.lambda"},
		{"ε-DP beyond the norm bound", "model: {arch: output_perturbation, lambda: 0.01, noise: laplace, epsilon: 1}\nreconstruction: {attack: glm}\n", "normalize: l2_ball"},
		{"metric DP beyond the norm bound", "model: {arch: output_perturbation, lambda: 0.01, noise: laplace_mdp, epsilon: 1}\nreconstruction: {attack: glm}\n", "model.norm_bound"},
		{"not a GLM", "model: {arch: logreg}\nreconstruction: {attack: glm}\n", "is not such a GLM"},
		{"one release with an interval", "model: {arch: output_perturbation, lambda: 0.01, sigma: 1}\nreconstruction: {attack: glm, releases: 1}\n", "reconstruction.releases"},
		{"no bias", "model: {arch: output_perturbation, lambda: 0.01, sigma: 1, bias: false}\nreconstruction: {attack: glm}\n", "model.bias"},
		{"gaussian without sigma", "model: {arch: output_perturbation, lambda: 0.01}\nreconstruction: {attack: glm}\n", "model.sigma"},
		{"pnsgd without noise", "model: {arch: pnsgd, lambda: 0.01, learning_rate: 0.1, radius: 1, normalize: l2_ball}\nreconstruction: {attack: glm}\n", "model.epsilon"},
		{"pnsgd step too large", "model: {arch: pnsgd, lambda: 0.01, epsilon: 1, learning_rate: 10, radius: 1, normalize: l2_ball}\nreconstruction: {attack: glm}\n", "model.learning_rate"},
		{"top_dfil without a dFIL", "model: {arch: pnsgd, lambda: 0.01, epsilon: 1, learning_rate: 0.1, radius: 1, normalize: l2_ball}\nreconstruction: {attack: glm, targets: top_dfil}\n", "reconstruction.targets"},
		{"GLM learner in a DP-SGD audit", "model: {arch: output_perturbation, lambda: 0.01, sigma: 1}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2}\ntrain: {}\n", "model.arch"},
	}
	for _, c := range cases {
		path := writeSpec(t, dir, "b.yaml", head+c.body)
		_, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an input error naming %q, got %v", c.name, c.want, err)
		} else if !strings.Contains(err.Error(), "b.yaml:") {
			t.Errorf("%s: error not positioned: %v", c.name, err)
		}
	}
}

// FIL accounting inside DP-SGD: κ is Guo et al.'s Theorem 4 factor at the
// step's ε (notes fact F14: q = 0.01, δ = 1e-9, σ = 2 → ε 7.2168, κ
// 0.932244), every sample's dFIL is finite and positive once sampled, and
// the bound 1/η̄² of the median sample is above that of the max.
func TestFILInDPSGD(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "f.yaml", `name: f
seed: 1
dataset: {source: digits, classes: [0, 1]}
model: {arch: mlp, hidden: [8], activation: tanh}
dpsgd: {noise_multiplier: 2, sampling_rate: 0.01, steps: 200, clip: soft, clip_norm: 1}
train: {runs: 1, fil: {coordinates: 2, delta: 1.0e-9}}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	row := summaryRow(t, res.Summary, 0)
	if k := row["fil_kappa"].(float64); math.Abs(k-0.932244) > 1e-5 {
		t.Errorf("κ = %v, want 0.932244 (F14)", k)
	}
	if e := row["fil_step_epsilon"].(float64); math.Abs(e-7.2168) > 1e-4 {
		t.Errorf("ε_step = %v, want 7.2168 (F14)", e)
	}
	mx, md := row["fil_bound_max_dfil"].(float64), row["fil_bound_median_dfil"].(float64)
	if !(mx > 0 && mx <= md) {
		t.Errorf("bounds: max-dFIL %v, median-dFIL %v", mx, md)
	}
	if o := row["fil_overhead"].(float64); !(o > 0) {
		t.Errorf("fil_overhead = %v", o)
	}
}

// FIL accounting through a non-smooth layer is refused, naming the layer
// and the fix.
func TestFILBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ body, want string }{
		{"model: {arch: mlp, hidden: [8]}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2, clip: soft}\n", "use activation: tanh"},
		{"model: {arch: logreg}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 2}\n", "use clip: soft"},
	}
	for _, c := range cases {
		path := writeSpec(t, dir, "b.yaml", "name: b\ndataset: {source: digits, classes: [0, 1]}\n"+c.body+"train: {fil: {}}\n")
		_, err := Load(path, Options{Store: filepath.Join(dir, "store")})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "b.yaml:") {
			t.Errorf("want a positioned input error with %q, got %v", c.want, err)
		}
	}
}

// Averaging n releases (Mukherjee & Lokam's ẑ = (1/n) Σ φ(h_i)): with tiny
// Gaussian noise the attack is linear in the noise, so averaging 4
// releases divides the MSE by 4 (±25%: 40 trials of ~270 targets that
// share each release).
func TestGLMReconAveraging(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "a.yaml", `name: a
seed: 4
dataset: {source: digits, classes: [0, 1]}
model: {arch: output_perturbation, lambda: 0.01, sigma: 1.0e-7}
reconstruction: {attack: glm, releases: 40, average: 1}
sweep:
  grid: {reconstruction.average: [1, 4]}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	one, four := summaryRow(t, res.Summary, 0), summaryRow(t, res.Summary, 1)
	r := one["glm_mse"].(float64) / four["glm_mse"].(float64)
	if math.Abs(r-4) > 1 {
		t.Errorf("MSE(n=1)/MSE(n=4) = %v, want ≈ 4", r)
	}
	if four["glm_releases"] != int64(160) {
		t.Errorf("glm_releases = %v, want 160", four["glm_releases"])
	}
}

// A small version of examples/guo2022/fig3-glm-attack.yaml (Guo et al.
// §7.2, notes Q2): on MNIST 0-vs-1 at σ = 1e-5, the 300 samples of highest
// dFIL — the ones whose predicted MSE is smallest — all respect their
// bound, and are reconstructed almost perfectly. Needs MNIST.
func TestMNISTGLMAttackTopDFIL(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	path := writeSpec(t, dir, "g.yaml", `name: g
seed: 1
dataset: {source: mnist, classes: [0, 1]}
model: {arch: output_perturbation, lambda: 1.0e-2, sigma: 1.0e-5}
reconstruction: {attack: glm, releases: 20, targets: top_dfil, target_count: 300}
`)
	p, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	if errors.Is(err, datasets.ErrNotFetched) && os.Getenv("DPAUDIT_REQUIRE_DATA") == "" {
		t.Skip("MNIST is not fetched")
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	row := summaryRow(t, res.Summary, 0)
	if f := row["glm_fraction_respected"]; f != 1.0 {
		t.Errorf("fraction of the top-dFIL samples respecting their bound = %v, want 1", f)
	}
	if m := row["glm_mse"].(float64); !(m < 1e-3) {
		t.Errorf("MSE of the top-dFIL samples = %v, want < 1e-3 (almost perfect reconstruction)", m)
	}
	if a := row["glm_test_accuracy"].(float64); a < 0.999 {
		t.Errorf("test accuracy %v, paper 99.95%%", a)
	}
}

// PNSGD under metric DP (Prop. 6.2): σ is calibrated with G² replaced by
// L_input²·diam(X), L_input = R̃·radius/4 + 1, diam(X) = 2·norm_bound, and
// the metric-DP minimax bounds are reported instead of Thm 4.1.
func TestGLMReconPNSGDMetricDP(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "m.yaml", `name: m
seed: 2
dataset: {source: digits, classes: [0, 1]}
model: {arch: pnsgd, lambda: 0.01, epsilon: 1, privacy: mdp, normalize: l2_ball, learning_rate: 0.5, radius: 10}
reconstruction: {attack: glm, releases: 2}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
	row := summaryRow(t, res.Summary, 0)
	if row["glm_epsilon_kind"] != "mdp_delta_first_sample" || row["glm_bound_minimax_mdp"] == nil || row["glm_bound_minimax_dp"] != nil {
		t.Fatalf("kind %v, mdp bound %v, dp bound %v", row["glm_epsilon_kind"], row["glm_bound_minimax_mdp"], row["glm_bound_minimax_dp"])
	}
	// σ² = 2G²/(a·N), G² = L²·2, L = √2·10/4 + 1 (R̃ = √2 with the bias),
	// a = (√(ln(1/δ) + ε) − √ln(1/δ))² at ε = 1, δ = 1e-5; N = all targets.
	l, lg := math.Sqrt2*10/4+1, math.Log(1e5)
	a := math.Pow(math.Sqrt(lg+1)-math.Sqrt(lg), 2)
	n := float64(row["glm_targets"].(int64))
	want := math.Sqrt(2 * l * l * 2 / (a * n))
	if s := row["glm_noise_scale"].(float64); math.Abs(s-want) > 1e-12*want {
		t.Errorf("σ = %v, Prop. 6.2 calibration gives %v", s, want)
	}
	if e := row["glm_epsilon"].(float64); math.Abs(e-1) > 1e-9 {
		t.Errorf("ε_L of the first sample = %v, want 1", e)
	}
}

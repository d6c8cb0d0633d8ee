package dpaudit

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
)

// Matrix-factorization noise audited end to end by the one-run game with
// Dirac gradient canaries (digits, MLP 64-32-10, 8 groups, 8 bands, 1000
// canaries): the claim's ε is the matrix mechanism's (sens/σ-GDP, the
// sensitivity of the 8-banded optimal strategy under cyclic
// participation), the honest claim raises no violation and is audited to
// a good fraction of its ε, and the planted bug — the accountant told one
// participation where the trainer cycles 32 times — is caught as a valid
// violation.
func TestMatrixNoiseOneRunAudit(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	const T, groups, bands, sigma = 256, 8, 8, 8.0
	sens, err := privacy.ToeplitzSensitivity(privacy.OptimalToeplitzCoefficients(bands), T, privacy.Participation{MinSep: groups})
	if err != nil {
		t.Fatal(err)
	}
	want, err := privacy.Epsilon(privacy.AccountantPLD, privacy.SampledGaussian{NoiseMultiplier: sigma / sens, SamplingRate: 1, Steps: 1}, 1e-5, privacy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		claim     string
		violation bool
	}{
		{"", false},
		{"claim: {correlated: {bands: 8, max_participations: 1}},", true},
	} {
		path := writeSpec(t, dir, fmt.Sprintf("m%d.yaml", i), fmt.Sprintf(`name: m%d
seed: 3
dataset: {source: digits}
model: {arch: mlp, hidden: [32]}
dpsgd: {noise_multiplier: %v, sampling_rate: 1, steps: %d, learning_rate: 0.5, sampling: cyclic, groups: %d,
        correlated: {strategy: banded, bands: %d}}
audit: {threat_model: gradient, estimator: one_run, trials: 1000, accountant: pld, %s}
`, i, sigma, T, groups, bands, c.claim))
		_, res := runSpec(t, path, o)
		r := summaryRow(t, res.Summary, 0)
		lb, acc := r["epsilon_lb"].(float64), r["epsilon_accountant"].(float64)
		t.Logf("%q: ε_lb %.4f (f-DP %.4f, order statistics %.4f), claimed ε %.4f, violation %v", c.claim, lb,
			r["one_run_fdp_epsilon_lb"], r["one_run_os_epsilon_lb"], acc, r["violation"])
		if r["violation"] != c.violation || r["estimate_valid"] != true {
			t.Errorf("%q: ε_lb %.4f against ε %.4f: violation %v (valid %v), want %v", c.claim, lb, acc, r["violation"], r["estimate_valid"], c.violation)
		}
		if c.violation {
			continue
		}
		if math.Abs(acc-want) > 1e-9 {
			t.Errorf("claimed ε %.6f, want the matrix mechanism's %.6f (sensitivity %.4f)", acc, want, sens)
		}
		fdp, os := r["one_run_fdp_epsilon_lb"].(float64), r["one_run_os_epsilon_lb"].(float64)
		if !(os > 0.4*acc) {
			t.Errorf("order-statistics ε_lb %.4f is below 40%% of ε %.4f: the audit is too weak to catch an under-count", os, acc)
		}
		// The other one-run bounds are valid too: none may exceed the
		// honest claim (a trainer whose canaries took part more often
		// than their group's steps would).
		if fdp > acc || os > acc {
			t.Errorf("f-DP ε_lb %.4f, order-statistics ε_lb %.4f above the honest claim's ε %.4f", fdp, os, acc)
		}
	}
}

// Matrix-factorization noise and cyclic sampling that the accountant does
// not cover, or a game that cannot play them, are positioned input errors
// before anything runs.
func TestMatrixNoiseBadInput(t *testing.T) {
	dir := t.TempDir()
	trained := `dataset: {source: digits}
model: {arch: mlp, hidden: [32]}
`
	onerun := "audit: {threat_model: gradient, estimator: one_run, trials: 100}\n"
	cases := []struct{ name, body, want string }{
		{"bands above T", trained + onerun + `dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 11}}
`, "dpsgd.correlated.bands: 11 bands is more than the 10 steps"},
		{"coefficients above T", trained + onerun + `dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 2, sampling: cyclic, groups: 2, correlated: {coefficients: [1, 0.5, 0.25]}}
`, "dpsgd.correlated.coefficients: 3 bands is more than the 2 steps"},
		{"cyclic participation, Poisson sampler", trained + onerun + `dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10, correlated: {bands: 2}}
`, "dpsgd.correlated.participation: cyclic participation needs sampling: cyclic"},
		{"min_sep the sampler does not guarantee", trained + onerun + `dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 2, participation: min_sep, min_sep: 4}}
`, "dpsgd.correlated.min_sep: min_sep 4 is not what the cyclic sampler guarantees"},
		{"participations under-counted in the dpsgd block", trained + onerun + `dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 2, max_participations: 1}}
`, "dpsgd.correlated.max_participations: 1 participations is fewer than the 5 steps"},
		{"amplified with fewer groups than bands", trained + onerun + `dpsgd: {noise_multiplier: 1, sampling_rate: 0.5, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 4, participation: amplified}}
`, "dpsgd.correlated.participation: amplified banded MF needs groups ≥ bands"},
		{"replace-one claim", trained + `dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 2}}
audit: {threat_model: gradient, estimator: one_run, trials: 100, claim: {adjacency: replace_one_sigma_half}}
`, "audit.claim.adjacency: matrix-factorization noise is accounted under add_remove adjacency only"},
		{"the ideal mechanism", `model: {arch: ideal}
dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 2}}
audit: {threat_model: malicious_dataset, trials: 100}
`, "dpsgd.correlated: invalid input: matrix-factorization noise cannot be audited by this game: the ideal mechanism"},
		{"the per-step game", trained + `dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 2}}
audit: {threat_model: gradient, estimator: per_step, trials: 10}
`, "matrix-factorization noise cannot be audited by this game: the per-step game"},
		{"cyclic DP-SGD in the ideal mechanism", `model: {arch: ideal}
dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2}
audit: {threat_model: malicious_dataset, trials: 100}
`, "dpsgd.sampling: invalid input: cyclic sampling cannot be audited by this game"},
		{"a game that does not play it", `model: {arch: ideal}
dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 2}}
reconstruction: {attack: prior_aware, prior_size: 10, trials: 100}
`, "dpsgd.correlated: the reconstruction game does not train or account matrix-factorization noise"},
		{"a trade-off figure", trained + onerun + `dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 2}}
report: {figures: [{kind: tradeoff, name: t}]}
`, "report.figures[0].kind: the trade-off figure draws DP-SGD's curves"},
		{"a bound that does not cover it", `dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10, sampling: cyclic, groups: 2, correlated: {bands: 2}}
bound: [{kind: rero, prior_size: 10}]
`, "bound[0]: invalid input: the rero bound is computed for DP-SGD's Poisson-subsampled Gaussian"},
	}
	for i, c := range cases {
		path := writeSpec(t, dir, fmt.Sprintf("b%d.yaml", i), fmt.Sprintf("name: b%d\n%s", i, c.body))
		_, err := Load(path, Options{Store: filepath.Join(dir, "store")})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), fmt.Sprintf("b%d.yaml:", i)) {
			t.Errorf("%s: got %v, want a positioned input error containing %q", c.name, err, c.want)
		}
	}
}

// The accountant bound of a matrix mechanism is its DP-SGD equivalent:
// cyclic DP-SGD (the identity strategy) through g groups at rate q is
// ⌈T/g⌉ Poisson steps, amplified banded MF the same at σ/‖c‖, and a
// cyclic-participation strategy the Gaussian mechanism at σ/sens.
func TestMatrixNoiseAccountantBound(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	coef := privacy.OptimalToeplitzCoefficients(4)
	norm := 0.0
	for _, v := range coef {
		norm += v * v
	}
	sens, err := privacy.ToeplitzSensitivity(coef, 100, privacy.Participation{MinSep: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		dpsgd string
		eq    privacy.SampledGaussian
	}{
		{"sampling_rate: 0.2, sampling: cyclic, groups: 4", privacy.SampledGaussian{NoiseMultiplier: 2, SamplingRate: 0.2, Steps: 25}},
		{"sampling_rate: 0.2, sampling: cyclic, groups: 4, correlated: {bands: 4, participation: amplified}", privacy.SampledGaussian{NoiseMultiplier: 2 / math.Sqrt(norm), SamplingRate: 0.2, Steps: 25}},
		{"sampling_rate: 1, sampling: cyclic, groups: 4, correlated: {bands: 4}", privacy.SampledGaussian{NoiseMultiplier: 2 / sens, SamplingRate: 1, Steps: 1}},
	} {
		path := writeSpec(t, dir, fmt.Sprintf("a%d.yaml", i), fmt.Sprintf(`name: a%d
dpsgd: {noise_multiplier: 2, steps: 100, %s}
bound: [{kind: accountant, accountants: [pld]}]
`, i, c.dpsgd))
		_, res := runSpec(t, path, o)
		got := summaryRow(t, res.Summary, 0)["epsilon_pld"].(float64)
		want, err := privacy.Epsilon(privacy.AccountantPLD, c.eq, 1e-5, privacy.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: ε %.6f, want %.6f", c.dpsgd, got, want)
		}
	}
}

// The white-box decorrelated score (the adversary who knows C multiplies
// the released updates by it and tests the shift C·u) reaches further
// than the final-model projection — for DP-SGD under cyclic
// participation (b = 1) about twice as far — and stays below the honest
// claim; the same digits setting as TestMatrixNoiseOneRunAudit.
func TestMatrixNoiseDecorrelatedScore(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	for _, bands := range []int{1, 8} {
		os := map[string]float64{}
		var acc float64
		for _, form := range []string{"projection", "decorrelated"} {
			name := fmt.Sprintf("w%d-%s", bands, form)
			path := writeSpec(t, dir, name+".yaml", fmt.Sprintf(`name: %s
seed: 3
dataset: {source: digits}
model: {arch: mlp, hidden: [32]}
dpsgd: {noise_multiplier: 8, sampling_rate: 1, steps: 256, learning_rate: 0.5, sampling: cyclic, groups: 8,
        correlated: {strategy: banded, bands: %d}}
distinguisher: {kind: watermark, form: %s}
audit: {threat_model: gradient, estimator: one_run, trials: 1000, accountant: pld}
`, name, bands, form))
			_, res := runSpec(t, path, o)
			r := summaryRow(t, res.Summary, 0)
			acc, os[form] = r["epsilon_accountant"].(float64), r["one_run_os_epsilon_lb"].(float64)
			t.Logf("b = %d, %s: ε_lb %.4f (f-DP %.4f, order statistics %.4f), claimed ε %.4f, violation %v", bands, form,
				r["epsilon_lb"], r["one_run_fdp_epsilon_lb"], os[form], acc, r["violation"])
			if r["violation"] != false || os[form] > acc || r["one_run_fdp_epsilon_lb"].(float64) > acc {
				t.Errorf("b = %d, %s: a bound above the honest claim's ε %.4f", bands, form, acc)
			}
		}
		if !(os["decorrelated"] > os["projection"]+0.2) {
			t.Errorf("b = %d: the decorrelated score's ε_lb %.4f is not above the projection's %.4f", bands, os["decorrelated"], os["projection"])
		}
	}
}

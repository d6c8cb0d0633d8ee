package dpaudit

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
)

// Each sampler's ideal game audited against its own accountant raises no
// violation, at settings where the same audit does notice an accountant
// that is wrong: balls-in-bins told twice its noise, fixed-size batches
// accounted as Poisson (Lebeda et al. 2024: they are not), and the
// replace-one game's ε_lb above the add/remove ε of the same σ (what
// Pradhan et al. observe with label audits). A wrong pair, a wrong world
// or a wrong accountant in any of them fails one of the two directions.
func TestIdealSamplersAgainstTheirAccountants(t *testing.T) {
	dir := t.TempDir()
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	cases := []struct {
		dpsgd, claim string
		violation    bool
	}{
		{"noise_multiplier: 1.2, sampling_rate: 0.5, steps: 2", "", false},
		{"noise_multiplier: 1.2, sampling_rate: 0.5, steps: 2, sampling: balls_in_bins", "", false},
		{"noise_multiplier: 1.2, sampling_rate: 0.5, steps: 2, adjacency: replace_one", "", false},
		{"noise_multiplier: 1.2, sampling_rate: 0.5, steps: 2, sampling: fixed_size, adjacency: replace_one", "", false},
		{"noise_multiplier: 1.2, sampling_rate: 0.5, steps: 2, sampling: balls_in_bins", "claim: {noise_multiplier: 2.4}", true},
		{"noise_multiplier: 1.2, sampling_rate: 0.25, steps: 1, sampling: fixed_size, adjacency: replace_one", "claim: {sampling: poisson}", true},
	}
	for i, c := range cases {
		path := writeSpec(t, dir, fmt.Sprintf("s%d.yaml", i), fmt.Sprintf(`name: s%d
seed: 5
model: {arch: ideal}
dpsgd: {%s}
audit: {threat_model: malicious_dataset, trials: 100000, %s}
`, i, c.dpsgd, c.claim))
		_, res := runSpec(t, path, o)
		r := summaryRow(t, res.Summary, 0)
		lb, acc := r["epsilon_lb"].(float64), r["epsilon_accountant"].(float64)
		t.Logf("%s / %q: ε_lb %.4f, claim ε %.4f, violation %v, p %v", c.dpsgd, c.claim, lb, acc, r["violation"], r["violation_p_value"])
		if r["violation"] != c.violation {
			t.Errorf("%s / %q: ε_lb %.4f against ε %.4f: violation %v, want %v", c.dpsgd, c.claim, lb, acc, r["violation"], c.violation)
		}
		if !c.violation && !(lb > 0.35*acc) {
			t.Errorf("%s: ε_lb %.4f is below 35%% of ε %.4f: the audit is too weak to notice a wrong accountant", c.dpsgd, lb, acc)
		}
	}
	// The replace-one game at q = 1: ε_lb above the add/remove ε of the
	// same σ, below the replace-one ε it is audited against.
	path := writeSpec(t, dir, "r.yaml", `name: r
seed: 11
model: {arch: ideal}
dpsgd: {noise_multiplier: 3, sampling_rate: 1, steps: 4, adjacency: replace_one}
audit: {threat_model: malicious_dataset, trials: 100000}
`)
	_, res := runSpec(t, path, o)
	r := summaryRow(t, res.Summary, 0)
	addRemove, err := privacy.Epsilon(privacy.AccountantPLD, privacy.SampledGaussian{NoiseMultiplier: 3, SamplingRate: 1, Steps: 4}, 1e-5, privacy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if lb := r["epsilon_lb"].(float64); !(lb > addRemove) || r["violation"] != false {
		t.Errorf("replace-one game: ε_lb %.4f, add/remove ε %.4f, replace-one ε %.4f, violation %v", lb, addRemove, r["epsilon_accountant"], r["violation"])
	}
}

// A claim the game cannot test, or no accountant covers, is a positioned
// input error before anything runs.
func TestSamplerAndAdjacencyBadInput(t *testing.T) {
	dir := t.TempDir()
	trained := `dataset: {source: digits, classes: [0, 1]}
model: {arch: logreg}
distinguisher: {kind: loss_threshold}
`
	cases := []struct{ name, body, want string }{
		{"replace-one claim, add/remove game", trained + `crafter: {kind: mislabeled_record}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10}
audit: {threat_model: api_access, trials: 10, claim: {adjacency: replace_one}}
`, "audit.claim.adjacency: invalid input: a replace-one claim needs a game whose worlds differ by a replaced record"},
		{"add/remove claim, replace-one game", trained + `crafter: {kind: swapped_label}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10}
audit: {threat_model: api_access, trials: 10}
`, "dpsgd.adjacency: invalid input: an add/remove claim needs a game whose worlds differ by an added record"},
		{"fixed-size under add/remove", `model: {arch: ideal}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10, sampling: fixed_size}
audit: {threat_model: malicious_dataset, trials: 10}
`, "dpsgd.sampling: fixed_size sampling under add_remove adjacency"},
		{"balls-in-bins by RDP", `model: {arch: ideal}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10, sampling: balls_in_bins}
audit: {threat_model: malicious_dataset, trials: 10, claim: {accountant: rdp}}
`, "audit.claim.accountant: the claim (rdp accountant"},
		{"balls-in-bins, 1/q not whole", `model: {arch: ideal}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.3, steps: 10, sampling: balls_in_bins}
audit: {threat_model: malicious_dataset, trials: 10}
`, "dpsgd.sampling:"},
		{"shuffle bound", `dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10, sampling: shuffle}
bound: [{kind: accountant}]
`, "bound[0]: dpsgd.sampling shuffle cannot be accounted: no tight upper bound"},
		{"fixed-size bound under add/remove", `dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10, sampling: fixed_size}
bound: [{kind: accountant, accountants: [pld]}]
`, "bound[0]: accountant pld of dpsgd (fixed_size sampling, add_remove adjacency)"},
	}
	for i, c := range cases {
		path := writeSpec(t, dir, fmt.Sprintf("b%d.yaml", i), fmt.Sprintf("name: b%d\n%s", i, c.body))
		_, err := Load(path, Options{Store: filepath.Join(dir, "store")})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), fmt.Sprintf("b%d.yaml:", i)) {
			t.Errorf("%s: got %v, want a positioned input error containing %q", c.name, err, c.want)
		}
	}
}

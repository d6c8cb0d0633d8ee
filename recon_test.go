package dpaudit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// Tests of the prior-aware reconstruction audit (Hayes, Mahloujifar &
// Balle 2023; reference note hayes2023-rero-dpsgd.md §2.7–2.9, §5.4).

const reconIdealSpec = `name: recon-ideal
seed: 5
model: {arch: ideal}
dpsgd: {noise_multiplier: %v, sampling_rate: %v, steps: 100}
reconstruction: {attack: prior_aware, prior_size: %d, geometry: %s, trials: %d, shard_size: %d%s}
`

func onlySummaryRow(t *testing.T, res *Result) map[string]any {
	t.Helper()
	tb, err := pipeline.ReadParquet(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Rows() != 1 {
		t.Fatalf("%d summary rows", tb.Rows())
	}
	row := map[string]any{}
	for _, c := range tb.Columns {
		row[c.Name] = c.Values[0]
	}
	return row
}

// The ideal game at q = 1 matches the closed form ∫φ(x − μ)Φ(x)^{n−1}dx
// (n = 10, μ = 2.0004: 0.6738, note §2.7) within its interval, stays
// below the bound (0.7639, note §5.3), and its rows and summary do not
// depend on the shard size or -j.
func TestReconIdealShardAndJobsIndependent(t *testing.T) {
	dir := t.TempDir()
	var sums [][]byte
	var rows []map[string]any
	for i, c := range []struct{ shard, jobs int }{{3000, 1}, {7000, 2}} {
		path := writeSpec(t, dir, fmt.Sprintf("r%d.yaml", i), fmt.Sprintf(reconIdealSpec, 4.9989, 1, 10, "orthogonal", 20000, c.shard, ""))
		_, res := runSpec(t, path, Options{Store: filepath.Join(dir, fmt.Sprint("s", i)), Results: filepath.Join(dir, fmt.Sprint("r", i)), Jobs: c.jobs})
		b, _ := os.ReadFile(res.Summary)
		sums = append(sums, b)
		rows = append(rows, onlySummaryRow(t, res))
		parts, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "point=*", "part-*.parquet"))
		if want := (20000 + c.shard - 1) / c.shard; len(parts) != want {
			t.Fatalf("%d parts, want %d", len(parts), want)
		}
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Fatal("the summary depends on the shard size or -j")
	}
	r := rows[0]
	lo, hi, exact := r["reconstruction_success_lo"].(float64), r["reconstruction_success_hi"].(float64), r["reconstruction_success_exact"].(float64)
	if exact < 0.6733 || exact > 0.6743 || lo > exact || hi < exact {
		t.Fatalf("success interval [%v, %v], exact %v (want 0.6738 inside)", lo, hi, exact)
	}
	if g := r["rero_gamma"].(float64); g < 0.7634 || g > 0.7644 || r["rero_violation"] != false || r["reconstruction_baseline"] != 0.1 {
		t.Fatalf("bound %v, violation %v, baseline %v", g, r["rero_violation"], r["reconstruction_baseline"])
	}
}

// Antipodal candidates attain the bound: n = 2, q = 1, σ = 10.8116 gives
// success Φ(√T/σ) = 0.8225 = γ (note §2.7, §5.3).
func TestReconIdealAntipodalAttainsBound(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "a.yaml", fmt.Sprintf(reconIdealSpec, 10.8116, 1, 2, "antipodal", 50000, 0, ""))
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")})
	r := onlySummaryRow(t, res)
	lo, hi, g := r["reconstruction_success_lo"].(float64), r["reconstruction_success_hi"].(float64), r["rero_gamma"].(float64)
	if !(lo <= g && g <= hi) || g < 0.822 || g > 0.823 {
		t.Fatalf("success [%v, %v] should contain the bound %v = 0.8225", lo, hi, g)
	}
}

// Claiming more noise than training used must be flagged: the attack then
// beats the bound of the claimed mechanism.
func TestReconViolationClaimed(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "v.yaml", fmt.Sprintf(reconIdealSpec, 3, 1, 10, "orthogonal", 2000, 0, ", claimed_noise_multiplier: 10"))
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")})
	vs, err := Violations(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].Game != "reconstruction" || vs[0].Column != "rero_violation" || !(vs[0].Value > vs[0].Limit) || !strings.Contains(vs[0].Message, "|π| = 10") {
		t.Fatalf("violations %+v, want one with success above the bound", vs)
	}
}

// Success falls with |π| and rises with ε (σ smaller) in the ideal game,
// and never exceeds the bound (the qualitative claims of Hayes et al.
// Figs. 3 and 5 on a small version).
func TestReconIdealMonotone(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "m.yaml", `name: m
seed: 2
model: {arch: ideal}
dpsgd: {noise_multiplier: 5, sampling_rate: 0.1, steps: 100}
reconstruction: {attack: prior_aware, prior_size: 2, trials: 2000, rule: log_likelihood}
sweep:
  grid: {reconstruction.prior_size: [2, 8, 32], dpsgd.noise_multiplier: [0.8, 1.6]}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")})
	tb, _ := pipeline.ReadParquet(res.Summary)
	succ := map[[2]float64]float64{}
	for i := 0; i < tb.Rows(); i++ {
		n, s := float64(tb.Col("recon_prior_size").Values[i].(int64)), tb.Col("noise_multiplier").Float(i)
		succ[[2]float64{n, s}] = tb.Col("reconstruction_success").Float(i)
		if tb.Col("rero_violation").Values[i] != false {
			t.Errorf("|π| = %v, σ = %v: violation", n, s)
		}
	}
	for _, s := range []float64{0.8, 1.6} {
		if !(succ[[2]float64{2, s}] > succ[[2]float64{8, s}] && succ[[2]float64{8, s}] > succ[[2]float64{32, s}]) {
			t.Errorf("σ = %v: success not decreasing in |π|: %v", s, succ)
		}
	}
	for _, n := range []float64{2, 8, 32} {
		if !(succ[[2]float64{n, 0.8}] > succ[[2]float64{n, 1.6}]) {
			t.Errorf("|π| = %v: success not increasing in ε: %v", n, succ)
		}
	}
}

// A point with a membership audit and a reconstruction audit reports both
// in one summary row with both bounds; the trained game
// runs end to end with the spec's own rero entry (no duplicate columns);
// the rows of both games are published.
func TestReconAndMembershipOneRow(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "both.yaml", `name: both
seed: 1
dataset: {source: digits, train_size: 200}
model: {arch: mlp, hidden: [8], activation: elu}
dpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 8, clip_norm: 1, learning_rate: 0.5}
crafter: {kind: random_record}
distinguisher: {kind: loss_threshold}
audit: {threat_model: api_access, trials: 20}
reconstruction: {attack: prior_aware, prior_size: 4, trials: 100}
bound: [{kind: accountant, accountants: [pld]}, {kind: rero, prior_size: 4}]
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")})
	r := onlySummaryRow(t, res)
	for _, c := range []string{"epsilon_lb", "violation", "epsilon_pld", "rero_gamma", "reconstruction_success", "rero_violation"} {
		if _, ok := r[c]; !ok {
			t.Errorf("column %s missing", c)
		}
	}
	// σ = 1, T = 8, n = 4: bound Φ(Φ⁻¹(¼) + √8) ≈ 0.9745; the attack on a
	// small MLP gets most trials right.
	if s := r["reconstruction_success"].(float64); s < 0.6 || r["rero_violation"] != false {
		t.Errorf("success %v (bound %v), violation %v", s, r["rero_gamma"], r["rero_violation"])
	}
	if n := r["recon_mean_clipped_grad_norm"].(float64); !(n > 0 && n <= 1) {
		t.Errorf("mean clipped gradient norm %v", n)
	}
	m, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "point=*", "part-*.parquet"))
	rc, _ := filepath.Glob(filepath.Join(res.Dir, "trials", "point=*", "reconstruction", "part-*.parquet"))
	if len(m) != 1 || len(rc) != 4 {
		t.Fatalf("%d membership and %d reconstruction parts", len(m), len(rc))
	}
	sort.Strings(rc)
	tb, err := pipeline.ReadParquet(rc[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"trial", "target", "target_record", "guess_sum", "rank_sum", "margin_sum", "guess_top_steps", "guess_log_likelihood", "target_steps", "target_clipped_grad_norm"} {
		if tb.Col(c) == nil {
			t.Errorf("trial column %s missing", c)
		}
	}
}

// The gradient-based attack (Eq. 1) runs end to end on the same trials as
// the prior-aware rules, which it does not beat (Hayes et al. Fig. 8).
func TestReconInversionEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "inv.yaml", `name: inv
seed: 1
dataset: {source: digits, train_size: 100}
model: {arch: mlp, hidden: [10], activation: elu}
dpsgd: {noise_multiplier: 0.5, sampling_rate: 1, steps: 5, clip_norm: 1, learning_rate: 0.5}
reconstruction: {attack: gradient_inversion, prior_size: 8, trials: 100, steps: 30}
`)
	_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")})
	r := onlySummaryRow(t, res)
	s, pa := r["reconstruction_success"].(float64), r["reconstruction_success_sum"].(float64)
	t.Logf("inversion %v, prior-aware %v, MSE %v, bound %v", s, pa, r["recon_mean_inversion_mse"], r["rero_gamma"])
	if r["recon_attack"] != "gradient_inversion" || r["recon_rule"] != "inversion" || !(s > 0.3) || !(pa >= s-0.05) || r["rero_violation"] != false {
		t.Fatalf("row %v", r)
	}
	if m, ok := r["recon_mean_inversion_mse"].(float64); !ok || !(m > 0 && m < 0.5) {
		t.Fatalf("inversion MSE %v", r["recon_mean_inversion_mse"])
	}
}

// Bad input is a positioned error, exit code 2, nothing written.
func TestReconBadInput(t *testing.T) {
	base := `name: bad
seed: 1
dataset: {source: digits, train_size: 100}
model: {arch: mlp, hidden: [4]}
dpsgd: {noise_multiplier: 1, sampling_rate: %s, steps: 10}
reconstruction: {attack: prior_aware, %s}
%s`
	cases := []struct{ q, rec, extra, want string }{
		{"1", "prior_size: 1", "", "reconstruction.prior_size: must be >= 2"},
		{"1", "prior_size: 2000", "", "reconstruction.prior_size: "},
		{"1", "threat_model: final_model", "", "reconstruction.threat_model: the prior-aware attack needs"},
		{"1", "trials: 50", "", "reconstruction.trials: must be ≥ 100"},
		{"1", "geometry: antipodal, prior_size: 2", "", "reconstruction.geometry: antipodal candidates exist in the ideal mechanism only"},
		{"0.005", "rule: top_steps", "", "reconstruction.rule: "},
		{"1", "prior_size: 4", "bound: [{kind: rero, prior_size: 10}]\n", "bound[0].prior_size: "},
	}
	for i, c := range cases {
		dir := t.TempDir()
		path := writeSpec(t, dir, "bad.yaml", fmt.Sprintf(base, c.q, c.rec, c.extra))
		o := Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")}
		_, err := Load(path, o)
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "bad.yaml:") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d (%s): got %v, want a positioned %q", i, c.rec, err, c.want)
		}
		if _, err := os.Stat(o.Store); !os.IsNotExist(err) {
			t.Errorf("case %d: the store was created", i)
		}
	}
	for i, c := range []struct{ spec, want string }{
		{"model: {arch: ideal}\ndpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10}\nreconstruction: {attack: gradient_inversion}\n",
			"reconstruction.attack: the gradient inversion optimises an input"},
		{"dataset: {source: digits}\nmodel: {arch: mlp, hidden: [4]}\ndpsgd: {noise_multiplier: 1, sampling_rate: 1, steps: 10}\nreconstruction: {attack: gradient_inversion, threat_model: intermediate_models}\n",
			"reconstruction.threat_model: the gradient inversion reads"},
	} {
		dir := t.TempDir()
		path := writeSpec(t, dir, "bad.yaml", "name: bad\n"+c.spec)
		_, err := Load(path, Options{Store: filepath.Join(dir, "s"), Results: filepath.Join(dir, "r")})
		if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "bad.yaml:") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("inversion case %d: got %v, want a positioned %q", i, err, c.want)
		}
	}
}

package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// account --risk at the quickstart's MNIST schedule: the PLD panel against
// dp_accounting's get_true_positive_rates (1 − TPR within 2e-6, see
// privacy's TestTradeOffPLDMNISTMatchesDPAccounting) and its δ(0).
func TestAccountRiskJSON(t *testing.T) {
	code, out, errs := cli(t, "account", "--noise-multiplier", "1.1", "--batch-size", "256", "--dataset-size", "60000",
		"--epochs", "60", "--accountant", "pld,gdp", "--risk", "--fpr", "0.001,0.01", "--baseline", "1/10,0.5", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Risk map[string]riskPanel `json:"risk"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	p := got.Risk["pld"]
	for k, want := range map[string]float64{"0.001": 6.05098483e-03, "0.01": 4.02082663e-02} {
		if d := p.TPRAtFPR[k] - want; math.Abs(d) > 2e-6 {
			t.Errorf("TPR at FPR %s = %v, dp_accounting %v", k, p.TPRAtFPR[k], want)
		}
	}
	if math.Abs(p.Advantage-0.22447845790174842) > 2e-6 || !p.Valid {
		t.Errorf("advantage %v valid %v", p.Advantage, p.Valid)
	}
	// Below ᾱ the reconstruction bound is the TPR at FPR = baseline on
	// either curve; above it the symmetric one is larger.
	if r, s := p.Reconstruction["0.1"], p.ReconstructionFDP["0.1"]; math.Abs(r-s) > 1e-12 || r < 0.2396 || r > 0.2397 {
		t.Errorf("reconstruction at 1/10: %v (symmetric %v), want 0.2396", r, s)
	}
	if !(p.ReconstructionFDP["0.5"] > p.Reconstruction["0.5"]) {
		t.Errorf("at baseline 0.5 (above ᾱ = %v) the symmetric bound %v should exceed %v", p.AgreeBelow, p.ReconstructionFDP["0.5"], p.Reconstruction["0.5"])
	}
	if g := got.Risk["gdp"]; g.Valid || !strings.Contains(g.Note, "not a bound") {
		t.Errorf("the CLT GDP panel must say it is no bound: %+v", g)
	}
}

func TestAccountRiskText(t *testing.T) {
	code, out, errs := cli(t, "account", "--noise-multiplier", "2", "--sampling-rate", "1", "--steps", "10", "--accountant", "best", "--risk")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"exact μ-GDP, μ = √T/σ = 1.58114", "TPR ≤", "at FPR 0.01", "(|π| = 10)", "μ-GDP fit 1.581 (approximation"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRiskBadInput(t *testing.T) {
	base := []string{"--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "100"}
	for _, c := range [][]string{
		{"account", "--risk", "--fpr", "0,0.1"},
		{"account", "--risk", "--fpr", "1.5"},
		{"account", "--risk", "--baseline", "1"},
		{"account", "--risk", "--baseline", "1/0"},
		{"account", "--risk", "--prior", "1"},
		{"calibrate", "--target-tpr-at-fpr", "0.01@0.01"},
		{"calibrate", "--target-tpr-at-fpr", "0.05"},
		{"calibrate", "--target-advantage", "1.2"},
		{"calibrate", "--target-reconstruction", "0.05@1/10"},
		{"calibrate", "--target-reconstruction", "0.5@1.5"},
		{"calibrate", "--target-advantage", "0.1", "--target-epsilon", "1"},
		{"calibrate"},
	} {
		args := append(c, base[2:]...)
		if c[0] == "account" {
			args = append(c, base...)
		}
		code, _, errs := cli(t, args...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", c, code, errs)
		}
	}
	// Unreachable at any σ in range: said so, exit 2.
	code, _, errs := cli(t, "calibrate", "--target-tpr-at-fpr", "0.0100000000001@0.01", "--sampling-rate", "1", "--steps", "1000", "--accountant", "pld")
	if code != 2 || !strings.Contains(errs, "unreachable") {
		t.Errorf("unreachable target: exit %d, %q", code, errs)
	}
}

// calibrate to risk targets: riskcal's find_noise_multiplier_for_advantage
// gives σ = 7.5794 for advantage 0.1 at q = 0.04, T = 2250 (privacy's
// TestCalibrateToAdvantageMatchesRiskcal); the TPR that the ε = 8
// calibration (σ = 1.345899, dp_accounting) lands on gives that σ back;
// the reconstruction σ is this machine's (privacy's TestCalibrateToRiskIsTight
// checks that such a σ is the smallest that meets its target).
func TestCalibrateRiskJSON(t *testing.T) {
	for _, c := range []struct {
		flag, value, target string
		want, tol           float64
	}{
		{"--target-advantage", "0.1", "advantage=0.1", 7.5794, 1e-3},
		{"--target-tpr-at-fpr", "0.237759@0.01", "tpr_at_fpr=0.237759@0.01", 1.345899, 1e-5},
		{"--target-reconstruction", "0.2@1/10", "reconstruction=0.2@0.1", 4.373937, 1e-5},
	} {
		code, out, errs := cli(t, "calibrate", c.flag, c.value, "--sampling-rate", "0.04", "--steps", "2250", "--accountant", "pld", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.flag, code, errs)
		}
		var got struct {
			Inputs          map[string]any     `json:"inputs"`
			NoiseMultiplier map[string]float64 `json:"noise_multiplier"`
		}
		json.Unmarshal([]byte(out), &got)
		if s := got.NoiseMultiplier["pld"]; math.Abs(s-c.want) > c.tol*c.want || got.Inputs["target"] != c.target {
			t.Errorf("%s %s: σ = %v (want %v), target %v", c.flag, c.value, s, c.want, got.Inputs["target"])
		}
	}
}

package spec

import "testing"

// A risk entry's FPRs and baseline are probabilities in (0, 1), each FPR
// names a column, and baseline and prior_size are two ways of saying one
// thing: every mistake is an error at its key's position.
func TestRiskBoundErrorsArePositioned(t *testing.T) {
	const dpsgd = "name: quick\ndpsgd:\n  noise_multiplier: 1.1\n  sampling_rate: 0.01\n  steps: 100\n"
	for _, c := range []struct{ src, want string }{
		{dpsgd + "bound:\n  - kind: risk\n    fpr: [0.01, 1]\n", "quick.yaml:8:17: bound[0].fpr[1]: must be < 1, got 1"},
		{dpsgd + "bound:\n  - kind: risk\n    fpr: [0, 0.1]\n", "quick.yaml:8:11: bound[0].fpr[0]: must be > 0, got 0"},
		{dpsgd + "bound:\n  - kind: risk\n    fpr: [0.01, 0.1, 0.01]\n", "quick.yaml:8:22: bound[0].fpr[2]: FPR 0.01 is listed twice (also fpr[0])"},
		{dpsgd + "bound:\n  - kind: risk\n    baseline: 1.5\n", "quick.yaml:8:15: bound[0].baseline: must be < 1, got 1.5"},
		{dpsgd + "bound:\n  - kind: risk\n    baseline: 0\n", "quick.yaml:8:15: bound[0].baseline: must be > 0, got 0"},
		{dpsgd + "bound:\n  - kind: risk\n    baseline: 0.1\n    prior_size: 10\n", "quick.yaml:9:17: bound[0].prior_size: give baseline or prior_size, not both"},
		{"name: quick\nbound:\n  - kind: risk\n", "quick.yaml:3:11: bound[0].kind: the risk bound needs a dpsgd block"},
	} {
		_, _, err := expand(t, c.src, Options{})
		mustErr(t, err, c.want)
	}
}

// The defaults: best, FPRs 0.001, 0.01 and 0.1, membership prior ½, no
// baseline (the stage takes 1/10).
func TestRiskBoundDefaults(t *testing.T) {
	pts, _, err := expand(t, base+"  - kind: risk\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := pts[0].Exp.Bound[1].Risk
	if r == nil || r.Accountant != "best" || len(r.FPR) != 3 || r.FPR[1] != 0.01 || r.MembershipPrior != 0.5 || r.Baseline != 0 || r.PLDInterval != 1e-4 {
		t.Fatalf("defaults: %+v", r)
	}
}

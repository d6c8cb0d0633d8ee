package membership

import (
	"slices"
	"testing"
)

// The sequential estimate's column list (for clash detection) is the
// head of every audit, the looks' columns, and the claim tail, each once.
func TestSequentialColumns(t *testing.T) {
	c := sequentialColumns(estimateParams{})
	if c[0] != "audit_trials" || c[len(c)-1] != "audit_training_runs" || !slices.Contains(c, "canary_residual") || !slices.Contains(c, "sequential_trials_used") || !slices.Contains(c, "epsilon_lb_repeats") {
		t.Fatalf("sequential columns %v", c)
	}
	seen := map[string]bool{}
	for _, n := range c {
		if seen[n] {
			t.Errorf("column %s twice", n)
		}
		seen[n] = true
	}
}

package textdist

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3},
		{"epsilon_rdp", "epsilon_rdp", 0},
		{"epsilon_rpd", "epsilon_rdp", 1}, // one transposition
		{"kitten", "sitting", 3},
		{"σ", "s", 1}, // runes, not bytes
		{"trails", "trials", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

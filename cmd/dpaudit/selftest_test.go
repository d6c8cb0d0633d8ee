package main

import (
	"strings"
	"testing"
)

// dpaudit selftest prints the coverage table and exits 0 when every valid
// estimator covers; bad flags are usage errors (exit 2).
func TestSelftestCLI(t *testing.T) {
	code, out, errs := cli(t, "selftest", "--repeats", "20", "--trials", "400", "--methods", "split,posthoc,gdp-point")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"true ε = 4", "split ", "posthoc ", "gdp-point", "eps_delta_cp", "gdp_fit"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{
		{"selftest", "--repeats", "0"},
		{"selftest", "--trials", "many"},
		{"selftest", "--methods", "guess"},
		{"selftest", "--confidence", "1"},
		{"selftest", "--sequential", "--first-look", "5"},
		{"selftest", "--sequential", "--sequential-test", "guess"},
		{"selftest", "--sequential", "--trials", "400,800"},
	} {
		if code, _, errs := cli(t, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errs)
		}
	}
}

// dpaudit selftest --sequential reports the false-violation rate of honest
// sequential audits with its interval.
func TestSelftestSequentialCLI(t *testing.T) {
	code, out, errs := cli(t, "selftest", "--sequential", "--repeats", "20", "--trials", "800")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"sequential audits (profile test)", "honest", "false violations: ", "95% CI", "[100 200 400 800]"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

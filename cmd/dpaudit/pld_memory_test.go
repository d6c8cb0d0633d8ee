package main

import (
	"strings"
	"testing"
)

// --pld-memory reaches the accountant: at the MNIST schedule the default
// interval needs ~99k grid points; 8 MiB at 160 bytes per point allows
// 52428, so the interval is coarsened (×16, to 1.6e-3) and said to be.
// Without the flag (a quarter of RAM) it runs at 1e-4.
func TestAccountPLDMemory(t *testing.T) {
	args := []string{"account", "--noise-multiplier", "1.1", "--sampling-rate", "0.004266666666666667",
		"--steps", "14063", "--accountant", "pld"}
	code, out, errs := cli(t, append(args, "--pld-memory", "8M")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "interval 0.0016") || !strings.Contains(out, "coarsened from 0.0001") {
		t.Errorf("8M: want coarsening to 0.0016 reported, got %q", out)
	}
	code, out, errs = cli(t, args...)
	if code != 0 || !strings.Contains(out, "interval 0.0001,") || strings.Contains(out, "coarsened") {
		t.Errorf("default memory: exit %d, %q %q; want interval 0.0001 uncoarsened", code, out, errs)
	}
	for _, bad := range []string{"0", "-1G", "1x", "G"} {
		code, _, errs = cli(t, append(args, "--pld-memory", bad)...)
		if code != 2 || !strings.Contains(errs, "--pld-memory") {
			t.Errorf("--pld-memory %q: exit %d, stderr %q; want exit 2", bad, code, errs)
		}
	}
	code, _, errs = cli(t, "bound", "belief", "--epsilon", "1", "--pld-memory", "1G")
	if code != 2 || !strings.Contains(errs, "--pld-memory does not apply") {
		t.Errorf("bound --pld-memory: exit %d, stderr %q", code, errs)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "8M": 8 << 20, "6GiB": 6 << 30, "1.5k": 1536, "2 GB": 2 << 30, "1T": 1 << 40} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

package spec

import (
	"runtime"
	"strings"
	"testing"
)

// heapGrowth runs f and returns how much the live heap grew, in MB.
func heapGrowth(f func()) float64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return float64(b.TotalAlloc-a.TotalAlloc) / (1 << 20)
}

const idealAudit = `name: big
model: {arch: ideal}
dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 20}
audit: {threat_model: malicious_dataset, trials: TRIALS}
`

// audit.trials: 9223372036854775807 made plan allocate until killed. The
// trial count is refused at its key, naming the limit and the flag that
// raises it, without allocating for the trials.
func TestTrialLimit(t *testing.T) {
	src := strings.Replace(idealAudit, "TRIALS", "9223372036854775807", 1)
	var err error
	mb := heapGrowth(func() { _, _, err = expand(t, src, Options{}) })
	mustErr(t, err, "quick.yaml:4:", "audit.trials", "9223372036854775807 trials", "limit of 10000000", "--max-trials", "--allow-large")
	if mb > 50 {
		t.Fatalf("refusing it allocated %.0f MB", mb)
	}
	_, _, err = expand(t, strings.Replace(idealAudit, "TRIALS", "20000000", 1), Options{AllowLarge: true})
	if err != nil {
		t.Fatalf("--allow-large raises the trial limit: %v", err)
	}
	_, _, err = expand(t, strings.Replace(idealAudit, "TRIALS", "2000", 1), Options{MaxTrials: 1000})
	mustErr(t, err, "limit of 1000 per point")
}

// A 10¹² grid with --allow-large reached 2.6 GB: the grid's size is
// computed from its axes' lengths before any value is made, and
// --allow-large raises the limit ten times, it does not remove it.
func TestGridLimitHoldsWithAllowLarge(t *testing.T) {
	src := base + "sweep:\n  grid:\n    dpsgd.steps: {linspace: [1, 1000000, 1000000]}\n    dpsgd.noise_multiplier: {linspace: [1, 2, 1000000]}\n"
	var err error
	mb := heapGrowth(func() { _, err = parse(t, src, Options{AllowLarge: true}) })
	mustErr(t, err, "quick.yaml:9:3: sweep: expands to 1000000000000 points, more than the limit of 1000000", "--max-points")
	if mb > 50 {
		t.Fatalf("refusing it allocated %.0f MB", mb)
	}
}

// The node count is estimated from the counts the spec declares: too
// many shards are refused at the key that makes them, too many points at
// the sweep.
func TestNodeLimit(t *testing.T) {
	src := strings.Replace(idealAudit, "TRIALS", "1000000", 1)
	src = strings.Replace(src, "trials: 1000000}", "trials: 1000000, shard_size: 5}", 1)
	_, _, err := expand(t, src, Options{})
	mustErr(t, err, "quick.yaml:4:", "audit.shard_size", "up to 200004 pipeline nodes", "limit of 100000", "raise audit.shard_size", "--max-nodes")
	many := base + "sweep:\n  grid:\n    dpsgd.steps: {linspace: [1, 60, 60]}\n"
	_, _, err = expand(t, many, Options{MaxNodes: 50})
	mustErr(t, err, "sweep: the spec would make up to 181 pipeline nodes (60 point(s), up to 3 nodes each", "more than the limit of 50: lower the sweep")
	if _, _, err := expand(t, many, Options{MaxNodes: 50, AllowLarge: true}); err != nil {
		t.Fatal(err)
	}
}

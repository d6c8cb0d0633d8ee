package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/rng"
)

// The targets: dpaudit estimate on 10⁶ classic rows with every
// estimator ≤ 2 s, and on a one-run table of 10⁵ canaries ≤ 1 s. Run
//
//	go test ./cmd/dpaudit -run '^$' -bench 'Estimate' -benchtime 5x
//
// Each iteration is the whole command: read the file, estimate, print.

// benchTable writes n rows of member and score (members N(shift, 1),
// others N(0, 1)); canaries adds a canary column (one-run layout).
func benchTable(b *testing.B, n int, canaries bool, format string) string {
	b.Helper()
	r := rng.New(1, "bench", n, canaries)
	member, score, canary := make([]any, n), make([]any, n), make([]any, n)
	for i := range n {
		m := r.IntN(2)
		member[i] = int64(m)
		score[i] = r.NormFloat64() + 2*float64(m)
		canary[i] = int64(i)
	}
	path := filepath.Join(b.TempDir(), "scores."+format)
	if format == "csv" {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fmt.Fprintln(w, "member,score,canary")
		for i := range n {
			fmt.Fprintf(w, "%d,%v,%d\n", member[i], score[i], canary[i])
		}
		w.Flush()
		f.Close()
		if !canaries { // drop the canary column: rewrite without it
			return benchCSVNoCanary(b, path, member, score)
		}
		return path
	}
	t := &pipeline.Table{}
	t.Add("member", pipeline.Int64, member)
	t.Add("score", pipeline.Float64, score)
	if canaries {
		t.Add("canary", pipeline.Int64, canary)
	}
	if err := pipeline.WriteParquet(path, t); err != nil {
		b.Fatal(err)
	}
	return path
}

func benchCSVNoCanary(b *testing.B, path string, member, score []any) string {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "member,score")
	for i := range member {
		fmt.Fprintf(w, "%d,%v\n", member[i], score[i])
	}
	w.Flush()
	f.Close()
	return path
}

// benchEstimate runs the command b.N times and reports, beside the
// wall time, the process CPU seconds per run (user + system): on a
// loaded machine the wall time measures the load, the CPU time what the
// single-threaded command needs.
func benchEstimate(b *testing.B, path string, extra ...string) {
	args := append([]string{"estimate", path, "--claim-epsilon", "1"}, extra...)
	runtime.GC()
	b.ResetTimer()
	cpu := processCPU()
	for range b.N {
		if code := runMain(args, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric((processCPU()-cpu)/float64(b.N), "cpu-s/op")
}

func BenchmarkEstimateClassic1e6Parquet(b *testing.B) {
	benchEstimate(b, benchTable(b, 1_000_000, false, "parquet"))
}

func BenchmarkEstimateClassic1e6CSV(b *testing.B) {
	benchEstimate(b, benchTable(b, 1_000_000, false, "csv"))
}

// Three seeded splits and a Bonferroni scan: the classic estimators at
// their most expensive settings.
func BenchmarkEstimateClassic1e6Splits3(b *testing.B) {
	benchEstimate(b, benchTable(b, 1_000_000, false, "parquet"), "--splits", "3")
}

func BenchmarkEstimateClassic1e6Bonferroni(b *testing.B) {
	benchEstimate(b, benchTable(b, 1_000_000, false, "parquet"), "--threshold", "bonferroni")
}

func BenchmarkEstimateOneRun1e5Parquet(b *testing.B) {
	benchEstimate(b, benchTable(b, 100_000, true, "parquet"))
}

func BenchmarkEstimateOneRun1e5CSV(b *testing.B) {
	benchEstimate(b, benchTable(b, 100_000, true, "csv"))
}

// The same with --results: the results folder (summary, estimates, the
// 10⁶-row trials table, manifest, report.html) replaced on every run.
func BenchmarkEstimateClassic1e6Results(b *testing.B) {
	benchEstimate(b, benchTable(b, 1_000_000, false, "parquet"), "--results", filepath.Join(b.TempDir(), "results"))
}

// A sequential audit that never stops early (the claim ε = 20 holds):
// every look up to the budget of 10⁶ trials, 15 looks.
func BenchmarkEstimateSequential1e6(b *testing.B) {
	benchEstimate(b, benchTable(b, 1_000_000, false, "parquet"), "--sequential", "epsilon", "--claim-epsilon", "20")
}

package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/pipeline"
)

// readFolder reads an estimate folder's summary and manifest.
func readFolder(t *testing.T, dir string) (*pipeline.Table, dpaudit.Manifest) {
	t.Helper()
	sum, err := pipeline.ReadParquet(filepath.Join(dir, "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m dpaudit.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Estimate == nil {
		t.Fatal("manifest.json has no estimate record")
	}
	return sum, m
}

// dpaudit estimate --results writes a results folder as a run's: its
// summary row is what --table summary prints (every column to the last
// digit), its trials reproduce that row when estimated again, show and
// report read it, the manifest names the table's digest and every flag,
// and the report's banner says the claim was refuted.
func TestEstimateResultsFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "est")
	table := "../../examples/scores/sigma-1.csv"
	claim := []string{"--claim-epsilon", "0.5", "--split-seed", "7688642967166289652"}
	code, out, errs := cli(t, append([]string{"estimate", table, "--results", dir}, claim...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "VIOLATION") {
		t.Fatalf("the claim ε = 0.5 should be refuted:\n%s", out)
	}
	sum, m := readFolder(t, dir)
	compareRow(t, sum, 0, []string{"epsilon_lb", "split_seed", "violation_p_value", "epsilon_accountant"}, append([]string{table}, claim...)...)
	if c := sum.Col("violation"); c == nil || c.Values[0] != true {
		t.Fatalf("summary violation column %v, want true", c)
	}
	raw, _ := os.ReadFile(table)
	if want := fmt.Sprintf("%x", sha256.Sum256(raw)); m.Estimate.Input.SHA256 != want || sum.Col("scores_sha256").Values[0] != want {
		t.Errorf("input digest %s (summary %v), want %s", m.Estimate.Input.SHA256, sum.Col("scores_sha256").Values[0], want)
	}
	for k, want := range map[string]string{"split-seed": "7688642967166289652", "claim-epsilon": "0.5", "threshold": "split", "confidence": "0.95"} {
		if got := m.Estimate.Options[k]; got != want {
			t.Errorf("manifest option %s = %q, want %q", k, got, want)
		}
	}
	// The published trials alone reproduce the row.
	points, _ := filepath.Glob(filepath.Join(dir, "trials", "point=*"))
	if len(points) != 1 {
		t.Fatalf("%d point folders", len(points))
	}
	compareRow(t, sum, 0, []string{"epsilon_lb", "auc", "gdp_mu_lo"}, append([]string{points[0]}, claim...)...)

	if code, out, errs := cli(t, "show", dir, "--columns", "epsilon_lb,violation"); code != 0 || !strings.Contains(out, "1.0128") {
		t.Errorf("show: exit %d: %s%s", code, out, errs)
	}
	if code, _, errs := cli(t, "report", dir); code != 0 {
		t.Errorf("report: exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PRIVACY VIOLATION", m.Estimate.Input.SHA256, "sigma-1.csv: empirical ε lower bound 1.013"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// An earlier estimate's folder is replaced.
	if code, _, errs := cli(t, "estimate", table, "--results", dir); code != 0 {
		t.Fatalf("again: exit %d: %s", code, errs)
	}
	if sum, _ := readFolder(t, dir); sum.Col("violation").Values[0] != false {
		t.Errorf("the folder was not replaced: violation %v without a claim", sum.Col("violation").Values[0])
	}
}

// A folder that is not an earlier estimate's is never overwritten: exit
// 2, nothing written, before the table is read.
func TestEstimateResultsRefusesOtherFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	code, out, errs := cli(t, "estimate", "../../examples/scores/sigma-1.csv", "--results", dir)
	if code != 2 || out != "" || !strings.Contains(errs, "not the results of an earlier dpaudit estimate") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder has %d entries, want only notes.txt", len(entries))
	}
	// A bad table publishes nothing either.
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("member,score\n1,0.5\n0,x\n"), 0o644)
	res := filepath.Join(t.TempDir(), "res")
	if code, _, _ := cli(t, "estimate", bad, "--results", res); code != 2 {
		t.Errorf("bad table: exit %d, want 2", code)
	}
	if _, err := os.Stat(res); err == nil {
		t.Errorf("a bad table published %s", res)
	}
}

// Standard input is hashed as read: the folder of "-" records the same
// digest as the file's.
func TestEstimateResultsStdin(t *testing.T) {
	raw, err := os.ReadFile("../../examples/scores/sigma-2.csv")
	if err != nil {
		t.Fatal(err)
	}
	old := stdinReader
	stdinReader = strings.NewReader(string(raw))
	defer func() { stdinReader = old }()
	dir := filepath.Join(t.TempDir(), "est")
	if code, _, errs := cli(t, "estimate", "-", "--results", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, m := readFolder(t, dir)
	if want := fmt.Sprintf("%x", sha256.Sum256(raw)); m.Estimate.Input.SHA256 != want || m.Estimate.Input.Bytes != int64(len(raw)) {
		t.Errorf("stdin digest %s (%d bytes), want %s (%d)", m.Estimate.Input.SHA256, m.Estimate.Input.Bytes, want, len(raw))
	}
}

// The estimate folder's report.html renders in headless Chromium with
// its violation banner and the table's digest. Skipped without Chromium.
func TestEstimateReportRendersInChromium(t *testing.T) {
	var browser string
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("SKIPPED: no headless Chromium on PATH; report.html was not rendered")
	}
	dir := filepath.Join(t.TempDir(), "est")
	if code, _, errs := cli(t, "estimate", "../../examples/scores/sigma-0.5.csv", "--results", dir, "--claim-epsilon", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dom, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://"+filepath.Join(dir, "report.html")).Output()
	if err != nil {
		t.Fatal(err)
	}
	_, m := readFolder(t, dir)
	for _, want := range []string{"PRIVACY VIOLATION", m.Estimate.Input.SHA256, "epsilon_lb"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
}

package main

import (
	"fmt"
	"io"
	"time"

	"github.com/dpaudit/dpaudit"
)

func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", "RESULTS_DIR|SPEC.yaml [flags]",
		"Redraws the figures of a results folder from its tables (nothing is\nrecomputed) into RESULTS_DIR/figures/, and writes RESULTS_DIR/report.html:\none self-contained page with the figures, the summary table, a banner for\nevery violation, and the provenance. Given a spec, its report block is\nchecked against the columns and drawn over --results/<name>/; given a\nresults folder, the figures recorded in its manifest are redrawn.", stderr)
	results := fs.String("results", "results", "results root, with a spec: tables are read from DIR/<name>/")
	store := fs.String("store", "", "content-addressed cache, with a spec (only read to plan; default $DPAUDIT_STORE or .dpaudit/store)")
	dataDir := fs.String("data-dir", "", "data directory, with a spec (default $DPAUDIT_DATA or the user cache dir)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("dpaudit report takes one results folder or spec, got %d arguments (see dpaudit report --help)", len(pos))
	}
	start := time.Now()
	res, err := dpaudit.Report(pos[0], dpaudit.Options{Results: *results, Store: *store, DataDir: *dataDir})
	if err != nil {
		return err
	}
	for _, f := range res.Figures {
		for _, n := range f.Notes {
			fmt.Fprintf(stderr, "figure %s: %s\n", f.Name, n)
		}
	}
	fmt.Fprintf(stdout, "%d figure(s) drawn into %s/figures in %.2f s\nreport: %s\n", len(res.Figures), res.Dir, time.Since(start).Seconds(), res.HTML)
	return nil
}

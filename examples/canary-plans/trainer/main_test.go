package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/attack/planfile"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/audit/scorefile"
	"github.com/dpaudit/dpaudit/datasets"
)

// The worked example's chain on the embedded digits: a plan of
// mislabelled records, this trainer without clipping or noise (so the
// canaries it trains on are memorised), the scores joined back to the
// plan; the one-run bound is then clearly positive, and with σ = 8 it
// is not.
func TestTrainerWithPlan(t *testing.T) {
	dir := t.TempDir()
	split, err := datasets.Load(datasets.Source{Name: "digits"}, datasets.Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	tr, te := split.Train, split.Test
	p, err := attack.MakePlan(attack.PlanConfig{Crafter: attack.MislabeledRecord{}, Count: 400, Seed: 1,
		Input: attack.CraftInput{InShape: tr.Shape, Classes: tr.Classes, X: tr.X, Y: tr.Y, PoolX: te.X, PoolY: te.Y}})
	if err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.parquet")
	if _, err := planfile.Write(plan, p, planfile.Manifest{}); err != nil {
		t.Fatal(err)
	}
	bound := func(nonPrivate bool, sigma float64) float64 {
		out := filepath.Join(dir, "scores.csv")
		c := Config{Plan: plan, Out: out, Train: 100, Sigma: sigma, Q: 0.2, Clip: 1, Steps: 1500, LearningRate: 2, Seed: 2,
			Dataset: "digits", NonPrivate: nonPrivate}
		if err := Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		tb, _, err := scorefile.Read(out, nil, scorefile.Columns{OptionalMember: true})
		if err != nil {
			t.Fatal(err)
		}
		pl, err := planfile.Read(plan)
		if err != nil {
			t.Fatal(err)
		}
		if tb, err = audit.JoinPlan(tb, pl.IDs, pl.Member); err != nil {
			t.Fatal(err)
		}
		e, err := audit.EstimateScores(tb, audit.ScoreOptions{Options: audit.Options{Delta: 1e-5, Confidence: 0.95, LowerMeansWorld1: true}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("non-private %v, σ = %v: one-run ε_lb %.4f", nonPrivate, sigma, e.OneRun.EpsilonLB)
		return e.OneRun.EpsilonLB
	}
	if lb := bound(true, 0); !(lb > 1) {
		t.Errorf("non-private training: one-run ε_lb %v, want > 1", lb)
	}
	if lb := bound(false, 8); !(lb < 0.5) {
		t.Errorf("σ = 8: one-run ε_lb %v, want < 0.5", lb)
	}
}

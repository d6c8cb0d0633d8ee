package attack

import (
	"slices"
	"testing"
)

// querySpy records the query record of every trial it scores.
type querySpy struct{ seen *[][]float32 }

func (s querySpy) Kind() string           { return "query_spy" }
func (s querySpy) Access() Access         { return Access{Observe: ObserveBlackBox} }
func (s querySpy) Accepts(Products) error { return nil }
func (s querySpy) Validate() error        { return nil }
func (s querySpy) ScoreNames() []string   { return []string{"q"} }
func (s querySpy) LowerMeansWorld1() bool { return false }
func (s querySpy) NewScorer(info TrialInfo) (Scorer, error) {
	*s.seen = append(*s.seen, info.Crafted.Query.X)
	return s, nil
}
func (s querySpy) ObserveStep(StepView) error           { return nil }
func (s querySpy) Finish(LossOracle) ([]float64, error) { return []float64{0}, nil }

// Crafter 1 with PerTrial draws a fresh pool record in every trial, from
// the trial's stream (the same trial index gives the same record); the
// default keeps one record for all trials.
func TestRandomRecordPerTrial(t *testing.T) {
	in := canaryInput(1)
	in.PoolX, in.PoolY = blob(5, 50, 10, 2)
	for _, perTrial := range []bool{false, true} {
		cr, err := RandomRecord{PerTrial: perTrial}.Craft(in)
		if err != nil {
			t.Fatal(err)
		}
		var seen [][]float32
		g, err := NewGame(GameConfig{Arch: in.Arch, InShape: in.InShape, Classes: in.Classes, DPSGD: in.DPSGD,
			X: in.X, Y: in.Y, PoolX: in.PoolX, PoolY: in.PoolY, Crafted: cr, Distinguisher: querySpy{&seen},
			Threat: ThreatModels["api_access"]})
		if err != nil {
			t.Fatal(err)
		}
		seen = nil
		for i := range 6 {
			if _, err := g.RunTrialIndex(1, "p", i); err != nil {
				t.Fatal(err)
			}
		}
		distinct := 0
		for i := range seen {
			if i == 0 || !slices.Equal(seen[i], seen[i-1]) {
				distinct++
			}
		}
		if perTrial != (distinct > 1) {
			t.Errorf("per_trial %v: %d distinct queries in 6 trials", perTrial, distinct)
		}
		if perTrial {
			again := seen[2]
			seen = nil
			g.RunTrialIndex(1, "p", 2)
			if !slices.Equal(seen[0], again) {
				t.Error("trial 2's record depends on more than the trial")
			}
		}
	}
	if err := (RandomRecord{PerTrial: true, Source: SourceTrain}).Validate(); !isInvalid(err) {
		t.Errorf("per trial from the training set: %v", err)
	}
}

package dpaudit

import (
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// Violation is one point of a finished run whose audit refuted what the
// implementation claims, as its game reads it from the summary: a
// membership audit's ε lower bound above the claimed ε, a reconstruction
// success above the ReRo bound, beliefs above ρ_β more often than δ.
type Violation = stages.Violation

// Violations reads every registered game's violations from the summary of
// a finished run, game by game in registration order.
func Violations(summary string) ([]Violation, error) {
	t, err := pipeline.ReadParquet(summary)
	if err != nil {
		return nil, err
	}
	return stages.Violations(games, t)
}

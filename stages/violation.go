package stages

import "github.com/dpaudit/dpaudit/pipeline"

// Violation is one point of a run whose audit refuted what the
// implementation claims, at the audit's confidence: a membership audit's
// ε lower bound above the claimed ε, a reconstruction success above the
// ReRo bound, posterior beliefs above ρ_β more often than δ allows. Each
// game reads its own from the summary (Game.Violations); the terminal and
// report.html print them alike.
type Violation struct {
	Game   string // the game's Name
	Column string // the summary column that flags the row
	// PointIndex and PointID identify the summary row.
	PointIndex int64
	PointID    string
	// Value is the audit's bound at its confidence (an ε lower bound, the
	// lower end of a success rate or of δ′) and Limit what the claim
	// allows; Value exceeds Limit by more than the comparison's tolerance.
	Value, Limit float64
	Confidence   float64
	// Message says it in one line: what was measured, against what claim.
	Message string
	// Claimed and Trained describe the configuration the implementation
	// claimed and the one that ran (empty when the game does not tell
	// them apart).
	Claimed, Trained string
	// Notes are further lines (the family-wise correction, shuffled
	// batches accounted as Poisson sampling, …).
	Notes []string
	// Alarm is how the game words its violations.
	Alarm Alarm
}

// Alarm is a game's wording of a violation, for the terminal and the
// report: "!!! <Title>: 2 of 3 point(s) of <spec> <Breaks> !!!", then the
// points, then Meaning and where the evidence is (Evidence: the rows of
// trials/point=<id>/, e.g. "Trials").
type Alarm struct {
	Title, Breaks, Meaning, Evidence string
}

// Violations reads every game's violations from a run's summary, game by
// game in registration order.
func Violations(games []*Game, sum *pipeline.Table) ([]Violation, error) {
	var out []Violation
	for _, g := range games {
		if g.Violations == nil {
			continue
		}
		vs, err := g.Violations(sum)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

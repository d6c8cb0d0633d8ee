package stages

import (
	"math"

	"github.com/dpaudit/dpaudit/pipeline"
)

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

// Flagged reads the rows of sum whose bool column flag is true (none when
// the summary has no such column): for each, a Violation of game with the
// row's point and alarm, completed by fill.
func Flagged(sum *pipeline.Table, flag, game string, alarm Alarm, fill func(r Row, v *Violation)) []Violation {
	c := sum.Col(flag)
	if c == nil {
		return nil
	}
	var out []Violation
	for i, v := range c.Values {
		if v != true {
			continue
		}
		r := Row{sum, i}
		vi := Violation{Game: game, Column: flag, PointIndex: r.Int("point_index"), PointID: r.Str("point_id"), Alarm: alarm}
		fill(r, &vi)
		out = append(out, vi)
	}
	return out
}

// Row is one row of a summary table, read by column name; a missing column
// or a null cell reads as NaN, 0, "" or false.
type Row struct {
	t *pipeline.Table
	i int
}

func (r Row) cell(col string) any {
	if c := r.t.Col(col); c != nil {
		return c.Values[r.i]
	}
	return nil
}

// Float reads a float64 cell (NaN when null or missing).
func (r Row) Float(col string) float64 {
	if v, ok := r.cell(col).(float64); ok {
		return v
	}
	return math.NaN()
}

// Int reads an int64 cell.
func (r Row) Int(col string) int64 { v, _ := r.cell(col).(int64); return v }

// Str reads a string cell.
func (r Row) Str(col string) string { v, _ := r.cell(col).(string); return v }

// Bool reads a bool cell.
func (r Row) Bool(col string) bool { v, _ := r.cell(col).(bool); return v }

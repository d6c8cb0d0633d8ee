package stages

import (
	"github.com/dpaudit/dpaudit/spec"
)

// reportColumns are the columns the compiled spec writes: the summary's
// (in order) and the trials tables' (union over the points of what the
// games that apply to them declare).
func reportColumns(games []*Game, points []spec.Point, cols []spec.Column, stageCols []string) Columns {
	var a Columns
	seen := map[string]bool{}
	add := func(list *[]string, names ...string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				*list = append(*list, n)
			}
		}
	}
	add(&a.Summary, reservedColumns...)
	for _, c := range cols {
		add(&a.Summary, c.Name)
	}
	add(&a.Summary, stageCols...)
	seen = map[string]bool{}
	for _, pt := range points {
		for _, g := range games {
			if g.TrialColumns != nil && g.AppliesTo(pt.Exp) {
				add(&a.Trials, g.TrialColumns(pt)...)
			}
		}
	}
	return a
}

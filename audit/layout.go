package audit

import "fmt"

// Layout is how the rows of a score table relate to training runs. It
// decides which estimators are valid on the table, because each
// estimator's proof assumes something about where its rows came from:
//
//   - LayoutClassic: every row is its own training run with one target
//     (Nasr et al. 2021's game). The rows are independent trials, which
//     is what Clopper–Pearson intervals on the two error rates need, so
//     the classic estimators apply: the (ε, δ) bound of Eq. 5 with a
//     split, Bonferroni or post-hoc threshold, and the Gaussian-DP fit.
//   - LayoutOneRun: one training run scored many canaries. Their scores
//     come from one model and are not independent, so Clopper–Pearson
//     does not apply; the one-run estimators do, provided each canary
//     was included independently with probability ½: Steinke, Nasr &
//     Jagielski (2023) for (ε, δ)-DP, the f-DP audit of Mahloujifar et
//     al. (2024) and the order statistics of Xiang et al. (2025) for
//     their Gaussian-family claims.
//   - LayoutMultiRun: several independent runs, each with many canaries.
//     Both kinds apply, each on what its proof covers (see
//     EstimateScores): the one-run estimators on every canary of every
//     run at once, the classic ones on one canary per run.
type Layout string

const (
	LayoutClassic  Layout = "classic"
	LayoutOneRun   Layout = "one_run"
	LayoutMultiRun Layout = "multi_run"
)

// LayoutInfo is what DetectLayout read from a table's columns.
type LayoutInfo struct {
	Layout Layout
	// Rows, Runs: the table's rows and the training runs they came from.
	Rows, Runs int
	// MinPerRun, MaxPerRun: the fewest and most rows of one run.
	MinPerRun, MaxPerRun int
	// Why says in one sentence which columns decided the layout.
	Why string
}

// DetectLayout reads the layout from the columns present: a step column
// makes the rows per-step samples (LayoutPerStep); otherwise, with a run
// column, the rows of each run value are one training run; without one,
// a canary column means one run scored every row, and a table with
// neither is read as the classic game, every row its own run. Rows of
// one run must name distinct canaries (a duplicate is an error naming
// both rows): a canary scored twice in one run is a mixed-up table, and
// counting it twice would overstate the evidence.
func DetectLayout(t *ScoreTable) (LayoutInfo, error) {
	n := t.Len()
	info := LayoutInfo{Rows: n}
	var runRows [][]int
	switch {
	case t.Step != nil:
		runs := 1
		if t.Run != nil {
			k, _ := groups(t.Run)
			runs = len(k)
		}
		info.Layout, info.Runs, info.MinPerRun, info.MaxPerRun = LayoutPerStep, runs, 0, 0
		info.Why = fmt.Sprintf("a step column: %d per-step samples of white-box canaries, pooled over %d run(s)", n, runs)
		return info, nil
	case t.Run != nil:
		_, runRows = groups(t.Run)
	case t.Canary != nil:
		runRows = [][]int{allRows(n)}
	default:
		info.Layout, info.Runs, info.MinPerRun, info.MaxPerRun = LayoutClassic, n, 1, 1
		info.Why = "no run and no canary column: every row is read as its own training run with one target"
		return info, nil
	}
	if err := distinctCanaries(t, runRows); err != nil {
		return LayoutInfo{}, err
	}
	info.Runs = len(runRows)
	info.MinPerRun, info.MaxPerRun = n, 0
	for _, rows := range runRows {
		info.MinPerRun = min(info.MinPerRun, len(rows))
		info.MaxPerRun = max(info.MaxPerRun, len(rows))
	}
	switch {
	case info.MaxPerRun == 1:
		info.Layout = LayoutClassic
		info.Why = fmt.Sprintf("every run value has one row: %d independent training runs with one target each", n)
	case info.Runs == 1 && t.Run == nil:
		info.Layout = LayoutOneRun
		info.Why = fmt.Sprintf("a canary column and no run column: one training run that scored %d canaries", n)
	case info.Runs == 1:
		info.Layout = LayoutOneRun
		info.Why = fmt.Sprintf("one run value: one training run that scored %d canaries", n)
	default:
		info.Layout = LayoutMultiRun
		info.Why = fmt.Sprintf("%d run values with %d to %d rows each: several training runs, each scoring many canaries", info.Runs, info.MinPerRun, info.MaxPerRun)
	}
	return info, nil
}

// distinctCanaries checks that no run names a canary twice.
func distinctCanaries(t *ScoreTable, runRows [][]int) error {
	if t.Canary == nil {
		return nil
	}
	for _, rows := range runRows {
		seen := make(map[string]int, len(rows))
		for _, i := range rows {
			c := t.Canary[i]
			if j, dup := seen[c]; dup {
				where := ""
				if t.Run != nil {
					where = fmt.Sprintf(" in run %s", quoteID(t.Run[i]))
				}
				return invalidf("score table: duplicate canary id %s%s (%s and %s); each canary is scored once per run", quoteID(c), where, t.at(j), t.at(i))
			}
			seen[c] = i
		}
	}
	return nil
}

func allRows(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

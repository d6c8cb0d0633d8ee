package audit

import (
	"fmt"
	"math"
	"strconv"
)

// ScoreTable is a table of attack scores from anywhere — dpaudit's own
// trials or a user's pipeline: one row per scored record, whether it was
// a member of the training set, and the attack's score for it (higher =
// more likely a member, unless the estimators are told otherwise). The
// optional columns say how the rows relate, which decides what can be
// estimated validly from them (see Layout): Canary names the record,
// Run the training run that scored it, User the privacy unit the record
// belongs to (see Aggregate), Step the step of a per-step sample. A nil
// optional column is absent.
type ScoreTable struct {
	Member []bool
	Score  []float64
	Canary []string
	Run    []string
	User   []string
	// Step marks per-step samples (LayoutPerStep): the step each sample
	// was taken at.
	Step []string
	// Line[i] is row i's number in messages (its line in a CSV file, its
	// row in a Parquet file); nil means i + 1. RowWord is what the number
	// counts ("" means "row"; "line" for CSV).
	Line    []int
	RowWord string
}

// Len is the number of rows.
func (t *ScoreTable) Len() int { return len(t.Score) }

// line is row i's number for messages.
func (t *ScoreTable) line(i int) int {
	if t.Line != nil {
		return t.Line[i]
	}
	return i + 1
}

// at names row i in messages: "row 7", or "line 7" in a CSV file.
func (t *ScoreTable) at(i int) string {
	w := t.RowWord
	if w == "" {
		w = "row"
	}
	return fmt.Sprintf("%s %d", w, t.line(i))
}

// Check reports the first problem that makes the table unusable for any
// estimator: columns of different lengths, a score that is NaN or
// infinite (naming its row), or a single class (no members or no
// non-members). Errors wrap ErrInvalid.
func (t *ScoreTable) Check() error {
	n := len(t.Score)
	if len(t.Member) != n {
		return invalidf("score table: %d scores but %d membership bits", n, len(t.Member))
	}
	for name, col := range map[string][]string{"canary": t.Canary, "run": t.Run, "user": t.User, "step": t.Step} {
		if col != nil && len(col) != n {
			return invalidf("score table: %d scores but %d values in column %s", n, len(col), name)
		}
	}
	if t.Line != nil && len(t.Line) != n {
		return invalidf("score table: %d scores but %d row numbers", n, len(t.Line))
	}
	if n == 0 {
		return invalidf("score table: no rows")
	}
	members := 0
	for i, s := range t.Score {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return invalidf("score table: %s: score is %v; scores must be finite numbers", t.at(i), s)
		}
		if t.Member[i] {
			members++
		}
	}
	if members == 0 || members == n {
		what := "no members (every member bit is 0)"
		if members == n {
			what = "no non-members (every member bit is 1)"
		}
		return invalidf("score table: %s; an audit compares both classes", what)
	}
	return nil
}

// rows returns the rows of t listed in idx, as a new table.
func (t *ScoreTable) rows(idx []int) *ScoreTable {
	out := &ScoreTable{Member: make([]bool, len(idx)), Score: make([]float64, len(idx)), Line: make([]int, len(idx)), RowWord: t.RowWord}
	pick := func(col []string) []string {
		if col == nil {
			return nil
		}
		o := make([]string, len(idx))
		for k, i := range idx {
			o[k] = col[i]
		}
		return o
	}
	out.Canary, out.Run, out.User, out.Step = pick(t.Canary), pick(t.Run), pick(t.User), pick(t.Step)
	for k, i := range idx {
		out.Score[k], out.Line[k] = t.Score[i], t.line(i)
		if t.Member != nil {
			out.Member[k] = t.Member[i]
		}
	}
	return out
}

// groups returns the distinct values of col in order of first
// appearance, with the rows of each.
func groups(col []string) (keys []string, rows [][]int) {
	at := map[string]int{}
	for i, v := range col {
		k, ok := at[v]
		if !ok {
			k = len(keys)
			at[v] = k
			keys = append(keys, v)
			rows = append(rows, nil)
		}
		rows[k] = append(rows[k], i)
	}
	return keys, rows
}

// quoteID prints an id for messages.
func quoteID(s string) string { return strconv.Quote(s) }

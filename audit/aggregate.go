package audit

import (
	"math"
	"strings"
)

// Aggregation turns the scores of one privacy unit's records into one
// score, as Meta's PrivacyGuard does for user-level membership inference
// (privacy_guard/analysis/mia/aggregate_analysis_input.py: groupby the
// user id in order of first appearance, then max, min, mean or
// logsumexp of the scores).
type Aggregation string

const (
	AggregateMax       Aggregation = "max"
	AggregateMin       Aggregation = "min"
	AggregateMean      Aggregation = "mean"
	AggregateLogSumExp Aggregation = "logsumexp"
)

// Aggregations lists every Aggregation, in the order the CLI prints them.
var Aggregations = []Aggregation{AggregateMax, AggregateMin, AggregateMean, AggregateLogSumExp}

func (a Aggregation) check() error {
	for _, b := range Aggregations {
		if a == b {
			return nil
		}
	}
	names := make([]string, len(Aggregations))
	for i, b := range Aggregations {
		names[i] = string(b)
	}
	return invalidf("unknown aggregation %q (want %s)", string(a), strings.Join(names, ", "))
}

// of reduces xs (at least one, all finite).
func (a Aggregation) of(xs []float64) float64 {
	switch a {
	case AggregateMax, AggregateMin:
		v := xs[0]
		for _, x := range xs[1:] {
			if (a == AggregateMax) == (x > v) {
				v = x
			}
		}
		return v
	case AggregateMean:
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	// log Σ e^x, shifted by the largest x so no term overflows.
	top := xs[0]
	for _, x := range xs[1:] {
		top = math.Max(top, x)
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - top)
	}
	return top + math.Log(s)
}

// AggregateUsers returns one row per privacy unit: the records of each
// user (within each run, when the table has runs) become one row whose
// score is a's reduction of theirs and whose canary id is the user id.
// The audit that follows is then about users, not records: a user is
// in or out of training with all their records, and the ε it bounds is
// for user-level adjacency (adding or removing every record of one
// user). A user whose records disagree on membership cannot be in both
// worlds at once, which is an error naming the user and two of its rows.
// Rows keep the order in which their (run, user) first appears.
func AggregateUsers(t *ScoreTable, a Aggregation) (*ScoreTable, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	if t.User == nil {
		return nil, invalidf("score table: per-user aggregation needs a user column")
	}
	rows := unitRows(t)
	out := &ScoreTable{Member: make([]bool, len(rows)), Score: make([]float64, len(rows)),
		Canary: make([]string, len(rows)), Line: make([]int, len(rows)), RowWord: t.RowWord}
	if t.Run != nil {
		out.Run = make([]string, len(rows))
	}
	var buf []float64
	for k, rs := range rows {
		first := rs[0]
		buf = buf[:0]
		for _, i := range rs {
			if t.Member[i] != t.Member[first] {
				return nil, invalidf("score table: user %s has records on both sides of membership (%s is %s, %s is %s); a privacy unit is in or out of training as a whole",
					quoteID(t.User[first]), t.at(first), memberWord(t.Member[first]), t.at(i), memberWord(t.Member[i]))
			}
			buf = append(buf, t.Score[i])
		}
		out.Member[k], out.Score[k], out.Canary[k], out.Line[k] = t.Member[first], a.of(buf), t.User[first], t.line(first)
		if t.Run != nil {
			out.Run[k] = t.Run[first]
		}
	}
	return out, nil
}

func memberWord(m bool) string {
	if m {
		return "a member"
	}
	return "not a member"
}

// unitRows groups the rows by (run, user) in order of first appearance.
func unitRows(t *ScoreTable) [][]int {
	type unit struct{ run, user string }
	at := map[unit]int{}
	var rows [][]int
	for i, u := range t.User {
		k := unit{user: u}
		if t.Run != nil {
			k.run = t.Run[i]
		}
		j, ok := at[k]
		if !ok {
			j = len(rows)
			at[k] = j
			rows = append(rows, nil)
		}
		rows[j] = append(rows[j], i)
	}
	return rows
}

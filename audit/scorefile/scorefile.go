// Package scorefile reads a table of attack scores — a Parquet file, a
// CSV file or CSV on standard input — into an audit.ScoreTable, naming
// the row and the column of every problem it finds. It knows the file
// formats; what the columns mean, and what can be estimated from them,
// is package audit's.
package scorefile

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dpaudit/dpaudit/audit"
)

// Columns name the columns of a score file. Member and Score are
// required (empty means "member" and "score"; Member is optional with
// OptionalMember unless it is named). Each optional column is
// read from the name given; left empty, from its default name
// ("canary", "run", "user", "step") when the file has one, and absent otherwise.
// A name that was given but is not in the file is an error.
type Columns struct {
	Member, Score     string
	Canary, Run, User string
	Step              string
	// OptionalMember: the membership bits may come from elsewhere (a
	// canary plan), so a file without the member column is read with
	// ScoreTable.Member nil.
	OptionalMember bool
	// Filters keep only the rows where every named column has the given
	// value (compared as text), e.g. repeat = 0 of a dpaudit trials
	// table.
	Filters []Filter
}

// Filter keeps the rows whose Column reads Value.
type Filter struct {
	Column, Value string
}

// Info describes what Read found.
type Info struct {
	// Format is "parquet" or "csv".
	Format string
	// Columns lists the file's columns, in file order.
	Columns []string
	// Used names the file column behind each table column (member,
	// score, and the optional ones present).
	Used map[string]string
}

// Stdin is the path that reads CSV from standard input.
const Stdin = "-"

// Read reads path as a score table: Parquet when its name ends in
// .parquet or .pq, every *.parquet file of it in name order when it is a
// directory (a dpaudit trials/point=<id>/ folder), CSV otherwise, and
// CSV from in when path is Stdin. Errors for bad input wrap
// audit.ErrInvalid.
func Read(path string, in io.Reader, c Columns) (*audit.ScoreTable, Info, error) {
	if path == Stdin {
		return ReadCSV(in, "<stdin>", c)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return ReadParquetDir(path, c)
	}
	low := strings.ToLower(path)
	if strings.HasSuffix(low, ".parquet") || strings.HasSuffix(low, ".pq") {
		return ReadParquet(path, c)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Info{}, invalidf("%v", err)
	}
	defer f.Close()
	return ReadCSV(f, path, c)
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", audit.ErrInvalid, fmt.Sprintf(format, args...))
}

// role is one table column to fill from the file.
type role struct {
	name     string // member, score, canary, run, user
	column   string // file column
	required bool
}

// roles resolves c against the file's columns: every required column
// must be there (else an error naming it and listing what is there);
// optional columns at their default names are used when present.
func (c Columns) roles(file string, have []string) ([]role, error) {
	has := make(map[string]bool, len(have))
	for _, h := range have {
		has[h] = true
	}
	pick := func(given, def string) (string, bool) {
		if given != "" {
			return given, true
		}
		return def, false
	}
	var out []role
	for _, r := range []struct{ name, given string }{
		{"member", c.Member}, {"score", c.Score}, {"canary", c.Canary}, {"run", c.Run}, {"user", c.User}, {"step", c.Step},
	} {
		col, named := pick(r.given, r.name)
		required := named || r.name == "score" || (r.name == "member" && !c.OptionalMember)
		if !has[col] {
			if required {
				return nil, invalidf("%s: no column %q for the %s (the file has: %s); name another with --%s-column", file, col, r.name, strings.Join(have, ", "), r.name)
			}
			continue
		}
		out = append(out, role{name: r.name, column: col, required: required})
	}
	for i, f := range c.Filters {
		if !has[f.Column] {
			return nil, invalidf("%s: no column %q to filter on (the file has: %s)", file, f.Column, strings.Join(have, ", "))
		}
		out = append(out, role{name: filterRole(i), column: f.Column, required: true})
	}
	return out, nil
}

func filterRole(i int) string { return fmt.Sprintf("filter %d", i) }

// table holds the columns as they are parsed; finish makes the table.
type table struct {
	member  []bool
	score   []float64
	ids     map[string][]string
	line    []int
	columns []string // the file columns read, in role order
}

func newTable(roles []role, n int) *table {
	t := &table{score: make([]float64, 0, n), ids: map[string][]string{}}
	for _, r := range roles {
		t.columns = append(t.columns, r.column)
		if r.name == "member" {
			t.member = make([]bool, 0, n)
		}
		if r.name != "member" && r.name != "score" {
			t.ids[r.name] = make([]string, 0, n)
		}
	}
	return t
}

// finish makes the table of the rows that pass the filters.
func (t *table) finish(rowWord string, filters []Filter) *audit.ScoreTable {
	out := &audit.ScoreTable{Member: t.member, Score: t.score, Canary: t.ids["canary"], Run: t.ids["run"], User: t.ids["user"], Step: t.ids["step"], Line: t.line, RowWord: rowWord}
	if len(filters) == 0 {
		return out
	}
	if out.Line == nil {
		out.Line = make([]int, len(t.score))
		for i := range out.Line {
			out.Line[i] = i + 1
		}
	}
	keep := func(i int) bool {
		for k, f := range filters {
			if t.ids[filterRole(k)][i] != f.Value {
				return false
			}
		}
		return true
	}
	n := 0
	for i := range out.Score {
		if !keep(i) {
			continue
		}
		if out.Member != nil {
			out.Member[n] = out.Member[i]
		}
		out.Score[n], out.Line[n] = out.Score[i], out.Line[i]
		for _, col := range [][]string{out.Canary, out.Run, out.User, out.Step} {
			if col != nil {
				col[n] = col[i]
			}
		}
		n++
	}
	cut := func(col []string) []string {
		if col == nil {
			return nil
		}
		return col[:n]
	}
	if out.Member != nil {
		out.Member = out.Member[:n]
	}
	out.Score, out.Line = out.Score[:n], out.Line[:n]
	out.Canary, out.Run, out.User, out.Step = cut(out.Canary), cut(out.Run), cut(out.User), cut(out.Step)
	return out
}

func used(roles []role) map[string]string {
	m := map[string]string{}
	for _, r := range roles {
		if !strings.HasPrefix(r.name, "filter ") {
			m[r.name] = r.column
		}
	}
	return m
}

// parseMember reads a membership bit written as a bool or as 0/1.
func parseMember(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "t", "1.0", "yes":
		return true, true
	case "0", "false", "f", "0.0", "no":
		return false, true
	}
	return false, false
}

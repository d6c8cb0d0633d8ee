package scorefile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/audit"
)

// ReadCSV reads a score table from CSV with a header row; name is the
// file's name in messages, whose row numbers are the file's line
// numbers. A row with more or fewer fields than the header is an error
// naming its line.
func ReadCSV(r io.Reader, name string, c Columns) (*audit.ScoreTable, Info, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, Info{}, invalidf("%s: empty file (want a header row naming the columns)", name)
	}
	if err != nil {
		return nil, Info{}, csvError(name, err)
	}
	have := make([]string, len(header))
	at := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		have[i] = h
		if _, dup := at[h]; dup {
			return nil, Info{}, invalidf("%s: column %q appears twice in the header", name, h)
		}
		at[h] = i
	}
	roles, err := c.roles(name, have)
	if err != nil {
		return nil, Info{}, err
	}
	t := newTable(roles, 1024)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if errors.Is(err, csv.ErrFieldCount) {
			line, _ := cr.FieldPos(0)
			return nil, Info{}, invalidf("%s:%d: the row has %d fields, the header has %d", name, line, len(rec), len(have))
		}
		if err != nil {
			return nil, Info{}, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		if err := t.addCSV(rec, roles, at, line); err != nil {
			return nil, Info{}, invalidf("%s:%d: %v", name, line, err)
		}
	}
	return t.finish("line", c.Filters), Info{Format: "csv", Columns: have, Used: used(roles)}, nil
}

func (t *table) addCSV(rec []string, roles []role, at map[string]int, line int) error {
	for _, r := range roles {
		v := rec[at[r.column]]
		switch r.name {
		case "member":
			b, ok := parseMember(v)
			if !ok {
				return fmt.Errorf("column %s (member): %q is not a membership bit (want 0/1 or true/false)", r.column, v)
			}
			t.member = append(t.member, b)
		case "score":
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return fmt.Errorf("column %s (score): %q is not a number", r.column, v)
			}
			t.score = append(t.score, x)
		default:
			t.ids[r.name] = append(t.ids[r.name], v)
		}
	}
	t.line = append(t.line, line)
	return nil
}

// csvError names the line of a CSV syntax error (a ragged row, a stray
// quote).
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return invalidf("%s:%d: %v", name, pe.Line, pe.Err)
	}
	return invalidf("%s: %v", name, err)
}

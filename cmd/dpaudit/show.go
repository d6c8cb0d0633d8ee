package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dpaudit/dpaudit/pipeline"
	figreport "github.com/dpaudit/dpaudit/report"
)

func cmdShow(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("show", "FILE.parquet|RESULTS_DIR [flags]",
		"Prints a result table in the terminal (a results directory shows its\nsummary.parquet). For analysis, load the Parquet files in pandas, polars or DuckDB.", stderr)
	var cols multiFlag
	fs.Var(&cols, "columns", "columns to show, comma-separated (default: all)")
	digits := fs.Int("digits", 5, "significant digits of floats (table and md formats)")
	format := fs.String("format", "table", "output format: table, csv, md (Markdown) or json (one object per row)")
	onlyChanged := fs.Bool("only-changed", false, "hide columns whose value is the same in every row")
	where := fs.String("where", "", "keep rows where this expression (expr-lang over the columns) is true, e.g. 'epochs == 60'")
	sortBy := fs.String("sort", "", "sort rows by this column (prefix '-' for descending)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("dpaudit show takes one file or results directory")
	}
	switch *format {
	case "table", "csv", "md", "json":
	default:
		return usagef("dpaudit show: --format must be table, csv, md or json, got %q", *format)
	}
	t, err := readResultTable(pos[0])
	if err != nil {
		return usagef("dpaudit show: %v", err)
	}
	rows, err := showRows(t, *where, *sortBy)
	if err != nil {
		return err
	}
	show, err := showColumns(t, cols, *onlyChanged, rows)
	if err != nil {
		return err
	}
	return writeTable(stdout, *format, show, rows, *digits)
}

// columnNames lists t's columns for an error message.
func columnNames(t *pipeline.Table) string {
	var n []string
	for _, x := range t.Columns {
		n = append(n, x.Name)
	}
	return strings.Join(n, ", ")
}

// showRows returns the indices of the rows of t to show: those where the
// expression where holds (all when it is empty), sorted stably by the
// column sortBy ("-name": descending) when it is given.
func showRows(t *pipeline.Table, where, sortBy string) ([]int, error) {
	rows := make([]int, t.Rows())
	for i := range rows {
		rows[i] = i
	}
	if where != "" {
		fr, err := figreport.FromTable(t, nil)
		if err != nil {
			return nil, err
		}
		keep, err := figreport.WhereMask(where, fr)
		if err != nil {
			return nil, usagef("dpaudit show: --where: %v (columns: %s)", err, columnNames(t))
		}
		rows = rows[:0]
		for i, k := range keep {
			if k {
				rows = append(rows, i)
			}
		}
	}
	if sortBy != "" {
		desc := strings.HasPrefix(sortBy, "-")
		c := t.Col(strings.TrimPrefix(sortBy, "-"))
		if c == nil {
			return nil, usagef("dpaudit show: --sort: no column %q (columns: %s)", strings.TrimPrefix(sortBy, "-"), columnNames(t))
		}
		sort.SliceStable(rows, func(a, b int) bool {
			l := lessValue(c.Values[rows[a]], c.Values[rows[b]])
			if desc {
				return lessValue(c.Values[rows[b]], c.Values[rows[a]])
			}
			return l
		})
	}
	return rows, nil
}

// showColumns returns the columns to show: those named (all when none
// is), without the ones constant over rows when onlyChanged is set.
func showColumns(t *pipeline.Table, names []string, onlyChanged bool, rows []int) ([]*pipeline.Column, error) {
	show := t.Columns
	if len(names) > 0 {
		show = nil
		for _, c := range names {
			col := t.Col(c)
			if col == nil {
				return nil, usagef("dpaudit show: no column %q (columns: %s)", c, columnNames(t))
			}
			show = append(show, col)
		}
	}
	if onlyChanged {
		var keep []*pipeline.Column
		for _, c := range show {
			if !constant(c, rows) {
				keep = append(keep, c)
			}
		}
		show = keep
	}
	return show, nil
}

// readResultTable reads a Parquet file, or a results folder's summary.
func readResultTable(path string) (*pipeline.Table, error) {
	if !strings.HasSuffix(path, ".parquet") {
		path = filepath.Join(path, "summary.parquet")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return pipeline.ReadParquet(path)
}

func constant(c *pipeline.Column, rows []int) bool {
	for _, i := range rows {
		if !equalValue(c.Values[i], c.Values[rows[0]]) {
			return false
		}
	}
	return true
}

func equalValue(a, b any) bool {
	if fa, ok := a.(float64); ok {
		if fb, ok := b.(float64); ok {
			return fa == fb || math.IsNaN(fa) && math.IsNaN(fb)
		}
	}
	return a == b
}

// lessValue orders nulls first, then numbers, then text.
func lessValue(a, b any) bool {
	fa, oka := number(a)
	fb, okb := number(b)
	switch {
	case a == nil:
		return b != nil
	case b == nil:
		return false
	case oka && okb:
		return fa < fb
	case oka != okb:
		return oka
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func writeTable(w io.Writer, format string, cols []*pipeline.Column, rows []int, digits int) error {
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		var rec []string
		for _, c := range cols {
			rec = append(rec, c.Name)
		}
		cw.Write(rec)
		for _, i := range rows {
			rec = rec[:0]
			for _, c := range cols {
				rec = append(rec, exactCell(c.Values[i]))
			}
			cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	case "json":
		enc := json.NewEncoder(w)
		for _, i := range rows {
			obj := map[string]any{}
			for _, c := range cols {
				v := c.Values[i]
				if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
					v = strconv.FormatFloat(f, 'g', -1, 64)
				}
				obj[c.Name] = v
			}
			if err := enc.Encode(obj); err != nil {
				return err
			}
		}
		return nil
	case "md":
		var b strings.Builder
		b.WriteString("|")
		for _, c := range cols {
			b.WriteString(" " + c.Name + " |")
		}
		b.WriteString("\n|")
		for range cols {
			b.WriteString("---:|")
		}
		b.WriteString("\n")
		for _, i := range rows {
			b.WriteString("|")
			for _, c := range cols {
				b.WriteString(" " + strings.ReplaceAll(formatCell(c.Values[i], digits), "|", "\\|") + " |")
			}
			b.WriteString("\n")
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.Name)
	}
	fmt.Fprintln(tw)
	for _, i := range rows {
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", formatCell(c.Values[i], digits))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// exactCell is a value at full precision (csv).
func exactCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func formatCell(v any, digits int) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', digits, 64)
	case string:
		if len(x) > 24 {
			return x[:21] + "..."
		}
		return x
	}
	return fmt.Sprint(v)
}

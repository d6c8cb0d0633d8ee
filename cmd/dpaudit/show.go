package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dpaudit/dpaudit/pipeline"
)

func cmdShow(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("show", "FILE.parquet|RESULTS_DIR [--columns a,b,c]",
		"Prints a result table in the terminal (a results directory shows its\nsummary.parquet). For analysis, load the Parquet files in pandas, polars or DuckDB.", stderr)
	var cols multiFlag
	fs.Var(&cols, "columns", "columns to show, comma-separated (default: all)")
	digits := fs.Int("digits", 5, "significant digits of floats")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("dpaudit show takes one file or results directory")
	}
	path := pos[0]
	if !strings.HasSuffix(path, ".parquet") {
		path = filepath.Join(path, "summary.parquet")
	}
	t, err := pipeline.ReadParquet(path)
	if err != nil {
		return usagef("dpaudit show: %v", err)
	}
	show := t.Columns
	if len(cols) > 0 {
		show = nil
		for _, c := range cols {
			col := t.Col(c)
			if col == nil {
				var names []string
				for _, x := range t.Columns {
					names = append(names, x.Name)
				}
				return usagef("dpaudit show: no column %q (columns: %s)", c, strings.Join(names, ", "))
			}
			show = append(show, col)
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, c := range show {
		fmt.Fprintf(tw, "%s\t", c.Name)
	}
	fmt.Fprintln(tw)
	for i := 0; i < t.Rows(); i++ {
		for _, c := range show {
			fmt.Fprintf(tw, "%s\t", formatCell(c.Values[i], *digits))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
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

// Command tablecmp compares the contents of two Parquet tables written by
// dpaudit: the same columns in the same order with the same types, and
// every cell equal (floats bit for bit, so -0 ≠ 0 and NaN = NaN). It
// exists because arrow-go writes a column chunk's page-encoding statistics
// from a map: a column whose dictionary fell back to plain pages lists
// them in either order, so two writes of one table can differ in two
// footer bytes. scripts/compare-tables.sh uses it when cmp finds bytes
// that differ.
//
//	go run ./scripts/tablecmp A.parquet B.parquet
//
// Exit code 0 when the contents are equal, 1 when they differ (the first
// difference is printed), 2 on a read error.
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/dpaudit/dpaudit/pipeline"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: tablecmp A.parquet B.parquet")
		os.Exit(2)
	}
	a, err := pipeline.ReadParquet(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	b, err := pipeline.ReadParquet(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if msg := differ(a, b); msg != "" {
		fmt.Println(msg)
		os.Exit(1)
	}
}

// differ describes the first difference between two tables ("" if none).
func differ(a, b *pipeline.Table) string {
	if len(a.Columns) != len(b.Columns) || a.Rows() != b.Rows() {
		return fmt.Sprintf("shape: %d columns × %d rows vs %d × %d", len(a.Columns), a.Rows(), len(b.Columns), b.Rows())
	}
	for j, ca := range a.Columns {
		cb := b.Columns[j]
		if ca.Name != cb.Name || ca.Type != cb.Type {
			return fmt.Sprintf("column %d: %s %s vs %s %s", j, ca.Name, ca.Type, cb.Name, cb.Type)
		}
		for i, va := range ca.Values {
			if !same(va, cb.Values[i]) {
				return fmt.Sprintf("column %s, row %d: %v vs %v", ca.Name, i, va, cb.Values[i])
			}
		}
	}
	return ""
}

func same(x, y any) bool {
	fx, okx := x.(float64)
	fy, oky := y.(float64)
	if okx && oky {
		return math.Float64bits(fx) == math.Float64bits(fy) || (math.IsNaN(fx) && math.IsNaN(fy))
	}
	return x == y
}

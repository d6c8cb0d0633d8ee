package dpaudit

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
)

var updateOwnData = flag.Bool("update-own-data", false, "rewrite examples/own-data/digits.csv from the embedded digits")

// ownDataCSV is examples/own-data/digits.csv: the embedded sklearn digits
// (1797 images, 8×8, values 0..16, BSD-3-Clause: datasets/data/
// LICENSE.digits) as a user's table would hold them — a label column and
// one column per pixel, p0 … p63, in row-major order — train rows then test
// rows of digits' own split.
func ownDataCSV(t *testing.T) []byte {
	s, err := datasets.Load(datasets.Source{Name: datasets.SourceDigits}, datasets.Options{Normalize: datasets.NormalizeNone}, "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("label")
	for j := range 64 {
		fmt.Fprintf(&b, ",p%d", j)
	}
	b.WriteString("\n")
	for _, ds := range []*datasets.Dataset{s.Train, s.Test} {
		for i := range ds.N {
			fmt.Fprintf(&b, "%d", ds.Y[i])
			for _, v := range ds.Row(i) {
				fmt.Fprintf(&b, ",%g", v)
			}
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// The example's data file is what ownDataCSV writes (regenerate it with
// go test . -run TestOwnDataExampleFile -update-own-data).
func TestOwnDataExampleFile(t *testing.T) {
	path := filepath.Join("examples", "own-data", "digits.csv")
	want := ownDataCSV(t)
	if *updateOwnData {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale; regenerate it with: go test . -run TestOwnDataExampleFile -update-own-data", path)
	}
}

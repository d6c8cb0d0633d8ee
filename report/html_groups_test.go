package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// The summary's columns come under their group headers, in the groups'
// order, the first column first and the ungrouped ones under "other".
func TestSummaryColumnGroups(t *testing.T) {
	tb := &pipeline.Table{}
	for _, name := range []string{"point_index", "epsilon_lb", "sigma", "rero_gamma", "epsilon_accountant", "train_seconds"} {
		if err := tb.Add(name, pipeline.Float64, []any{1.0}); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	err := WriteHTML(&buf, Page{Title: "t", Table: tb, Groups: []ColumnGroup{
		{"parameters", []string{"sigma"}}, {"accountant", []string{"epsilon_accountant"}},
		{"estimates", []string{"epsilon_lb"}}, {"bounds", []string{"rero_gamma", "no_such_column"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	groups := regexp.MustCompile(`<th colspan="(\d+)">([^<]*)</th>`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, g := range groups {
		got = append(got, g[2]+":"+g[1])
	}
	if want := ":1 parameters:1 accountant:1 estimates:1 bounds:1 other:1"; strings.Join(got, " ") != want {
		t.Errorf("group row %q, want %q", strings.Join(got, " "), want)
	}
	names := regexp.MustCompile(`<tr class="names">(.*?)</tr>`).FindStringSubmatch(page)
	if names == nil || !strings.Contains(names[1], "point_index</th><th>sigma</th><th>epsilon_accountant</th><th>epsilon_lb</th><th>rero_gamma</th><th>train_seconds") {
		t.Errorf("columns not in group order: %v", names)
	}
}

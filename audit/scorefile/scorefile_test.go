package scorefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
)

func TestReadCSV(t *testing.T) {
	src := "score,member,canary,extra\n0.5,1,a,x\n-1e3,0,b,y\n\"2\",true,c,z\n3,FALSE,d,w\n"
	tb, info, err := ReadCSV(strings.NewReader(src), "s.csv", Columns{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != "csv" || info.Used["canary"] != "canary" || info.Used["run"] != "" || len(info.Columns) != 4 {
		t.Errorf("info %+v", info)
	}
	wantScore := []float64{0.5, -1000, 2, 3}
	wantMember := []bool{true, false, true, false}
	for i := range wantScore {
		if tb.Score[i] != wantScore[i] || tb.Member[i] != wantMember[i] || tb.Line[i] != i+2 {
			t.Errorf("row %d: %v %v line %d", i, tb.Score[i], tb.Member[i], tb.Line[i])
		}
	}
	if strings.Join(tb.Canary, "") != "abcd" || tb.Run != nil || tb.User != nil {
		t.Errorf("ids %v %v %v", tb.Canary, tb.Run, tb.User)
	}
	// Renamed columns, read through Read from standard input.
	tb, _, err = Read(Stdin, strings.NewReader("world,llr,trial\n1,0.25,0\n0,-0.5,1\n"), Columns{Member: "world", Score: "llr", Run: "trial"})
	if err != nil || tb.Run[1] != "1" || tb.Score[0] != 0.25 {
		t.Fatalf("renamed: %+v, %v", tb, err)
	}
}

func TestReadCSVBadInput(t *testing.T) {
	cases := []struct {
		src  string
		c    Columns
		want string
	}{
		{"membr,score\n1,2\n", Columns{}, `no column "member" for the member (the file has: membr, score); name another with --member-column`},
		{"member,score\n1,2\n", Columns{Canary: "id"}, `no column "id" for the canary`},
		{"member,score\n1,2\n0,abc\n", Columns{}, `s.csv:3: column score (score): "abc" is not a number`},
		{"member,score\n1,2\n2,1\n", Columns{}, `s.csv:3: column member (member): "2" is not a membership bit`},
		{"member,score\n1,2\n0,1,7\n", Columns{}, "s.csv:3: the row has 3 fields, the header has 2"},
		{"member,score\n1,2\n0\n", Columns{}, "s.csv:3: the row has 1 fields, the header has 2"},
		{"", Columns{}, "empty file"},
		{"member,member,score\n", Columns{}, `column "member" appears twice`},
		{"member,score\n1,\"2\n", Columns{}, "s.csv:2"},
	}
	for _, c := range cases {
		_, _, err := ReadCSV(strings.NewReader(c.src), "s.csv", c.c)
		if err == nil || !errors.Is(err, audit.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	// NaN parses, and the table's check names its line.
	tb, _, err := ReadCSV(strings.NewReader("member,score\n1,2\n0,NaN\n"), "s.csv", Columns{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Check(); err == nil || !strings.Contains(err.Error(), "line 3: score is NaN") {
		t.Errorf("NaN: %v", err)
	}
}

func TestReadParquet(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.parquet")
	tab := &pipeline.Table{}
	tab.Add("trial", pipeline.Int64, []any{int64(0), int64(1), int64(2)})
	tab.Add("world", pipeline.Int64, []any{int64(1), int64(0), int64(1)})
	tab.Add("llr", pipeline.Float64, []any{1.5, -2.0, 0.0})
	tab.Add("user", pipeline.String, []any{"u1", "u2", "u1"})
	tab.Add("in", pipeline.Bool, []any{true, false, true})
	if err := pipeline.WriteParquet(path, tab); err != nil {
		t.Fatal(err)
	}
	tb, info, err := Read(path, nil, Columns{Member: "world", Score: "llr", Run: "trial"})
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != "parquet" || info.Used["user"] != "user" || tb.Line != nil || tb.RowWord != "row" {
		t.Errorf("info %+v, table %+v", info, tb)
	}
	if tb.Member[0] != true || tb.Member[1] != false || tb.Score[1] != -2 || tb.Run[2] != "2" || tb.User[2] != "u1" {
		t.Errorf("table %+v", tb)
	}
	tb, _, err = Read(path, nil, Columns{Member: "in", Score: "trial"})
	if err != nil || tb.Member[1] || tb.Score[2] != 2 {
		t.Errorf("bool member, int score: %+v, %v", tb, err)
	}
	for _, c := range []struct {
		c    Columns
		want string
	}{
		{Columns{Member: "world", Score: "user"}, "column user (score) has type utf8; want a number column"},
		{Columns{Member: "llr", Score: "trial"}, "row 1: column llr (member): 1.5 is not a membership bit"},
		{Columns{Member: "world", Score: "score"}, `no column "score" for the score (the file has: trial, world, llr, user, in)`},
	} {
		_, _, err := Read(path, nil, c.c)
		if err == nil || !errors.Is(err, audit.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.c, err, c.want)
		}
	}
	// Nulls are named by row.
	tab = &pipeline.Table{}
	tab.Add("member", pipeline.Int64, []any{int64(1), int64(0)})
	tab.Add("score", pipeline.Float64, []any{1.0, nil})
	pipeline.WriteParquet(path, tab)
	if _, _, err := Read(path, nil, Columns{}); err == nil || !strings.Contains(err.Error(), "row 2: column score (score) is null") {
		t.Errorf("null: %v", err)
	}
	os.WriteFile(path, []byte("member,score\n"), 0o644)
	if _, _, err := Read(path, nil, Columns{}); err == nil || !strings.Contains(err.Error(), "not a Parquet file") {
		t.Errorf("CSV named .parquet: %v", err)
	}
	if _, _, err := Read(filepath.Join(dir, "missing.csv"), nil, Columns{}); err == nil || !errors.Is(err, audit.ErrInvalid) {
		t.Errorf("missing file: %v", err)
	}
}

// A directory of parts reads as one table in name order, and filters
// keep the rows whose column reads the value.
func TestReadParquetDirAndFilter(t *testing.T) {
	dir := t.TempDir()
	for k, rows := range [][]any{{int64(0), int64(1)}, {int64(1), int64(0)}} {
		tab := &pipeline.Table{}
		tab.Add("repeat", pipeline.Int64, []any{int64(k), int64(k)})
		tab.Add("world", pipeline.Int64, rows)
		tab.Add("llr", pipeline.Float64, []any{float64(10 * k), float64(10*k + 1)})
		if err := pipeline.WriteParquet(filepath.Join(dir, fmt.Sprintf("part-%05d.parquet", k)), tab); err != nil {
			t.Fatal(err)
		}
	}
	c := Columns{Member: "world", Score: "llr"}
	tb, _, err := Read(dir, nil, c)
	if err != nil || fmt.Sprint(tb.Score) != "[0 1 10 11]" || fmt.Sprint(tb.Member) != "[false true true false]" {
		t.Fatalf("%+v, %v", tb, err)
	}
	c.Filters = []Filter{{"repeat", "1"}}
	tb, _, err = Read(dir, nil, c)
	if err != nil || fmt.Sprint(tb.Score) != "[10 11]" || fmt.Sprint(tb.Line) != "[3 4]" {
		t.Fatalf("filtered: %+v, %v", tb, err)
	}
	tb, _, err = ReadCSV(strings.NewReader("member,score,repeat\n1,0,0\n0,1,1\n1,2,1\n"), "s.csv", Columns{Filters: []Filter{{"repeat", "1"}}})
	if err != nil || fmt.Sprint(tb.Score) != "[1 2]" || fmt.Sprint(tb.Line) != "[3 4]" {
		t.Fatalf("csv filtered: %+v, %v", tb, err)
	}
	if _, _, err := Read(dir, nil, Columns{Member: "world", Score: "llr", Filters: []Filter{{"rep", "0"}}}); err == nil || !strings.Contains(err.Error(), `no column "rep" to filter on`) {
		t.Errorf("unknown filter column: %v", err)
	}
	if _, _, err := Read(t.TempDir(), nil, c); err == nil || !strings.Contains(err.Error(), "without *.parquet files") {
		t.Errorf("empty dir: %v", err)
	}
}

// A folder's digest is over its parts in name order: changing one part,
// adding or renaming one changes it; touching none does not.
func TestDigestOfFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	digest := func() string {
		t.Helper()
		sum, _, err := Digest(dir)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	write("part-0.parquet", "a")
	write("part-1.parquet", "b")
	write("notes.txt", "not a part")
	d0 := digest()
	if d0 != digest() {
		t.Fatal("the digest is not stable")
	}
	write("notes.txt", "still not a part")
	if digest() != d0 {
		t.Error("a file that is not a part changed the digest")
	}
	write("part-1.parquet", "c")
	d1 := digest()
	if d1 == d0 {
		t.Error("changing a part did not change the digest")
	}
	os.Rename(filepath.Join(dir, "part-1.parquet"), filepath.Join(dir, "part-2.parquet"))
	if digest() == d1 {
		t.Error("renaming a part did not change the digest")
	}
	write("part-3.parquet", "d")
	if _, size, _ := Digest(dir); size != 3 {
		t.Errorf("size %d, want 3 bytes over the parts", size)
	}
	if _, _, err := Digest(filepath.Join(dir, "nothing")); !errors.Is(err, audit.ErrInvalid) {
		t.Errorf("a missing table: %v, want ErrInvalid", err)
	}
}

package planfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/internal/parquetio"
)

// planColumns are the plan's columns: canary (int64 id, 0 … m−1) and
// member (bool, train on it?), then for input canaries label (int64), x
// (list<float32>, the features in row-major order of the manifest's
// shape) and source_index (int64, the record's index in its source split,
// -1 for a crafted input), for gradient canaries coordinate (int64, the
// parameter index). None is nullable.
func planColumns(p *attack.CanaryPlan) []parquetio.Column {
	m := len(p.Member)
	ids := make([]int64, m)
	for j := range ids {
		ids[j] = int64(j)
	}
	cols := []parquetio.Column{
		{Name: "canary", Type: parquetio.Int64, Required: true, Ints: ids},
		{Name: "member", Type: parquetio.Bool, Required: true, Bools: p.Member},
	}
	if p.Records == nil {
		coord := make([]int64, m)
		for j, c := range p.Coordinates {
			coord[j] = int64(c)
		}
		return append(cols, parquetio.Column{Name: "coordinate", Type: parquetio.Int64, Required: true, Ints: coord})
	}
	label, src := make([]int64, m), make([]int64, m)
	x := make([][]float32, m)
	for j, r := range p.Records {
		label[j], x[j], src[j] = int64(r.Y), r.X, int64(p.Index[j])
	}
	return append(cols,
		parquetio.Column{Name: "label", Type: parquetio.Int64, Required: true, Ints: label},
		parquetio.Column{Name: "x", Type: parquetio.Float32List, Required: true, Lists: x},
		parquetio.Column{Name: "source_index", Type: parquetio.Int64, Required: true, Ints: src})
}

// writeParquet writes the plan table through a temporary file and
// returns its column names.
func writeParquet(path string, p *attack.CanaryPlan) ([]string, error) {
	cols := planColumns(p)
	f, err := createTemp(path)
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if err := parquetio.Write(f, cols); err != nil { // closes f
		f.Close()
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return nil, err
	}
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	return names, nil
}

// Read reads a plan from its Parquet file or its manifest (either path
// finds the other) and checks both digests: a Parquet file that changed
// since the plan was made, or bits that do not match the plan digest,
// are refused as errors wrapping attack.ErrInvalid.
func Read(path string) (*Plan, error) {
	man, pq := path, path
	if strings.EqualFold(filepath.Ext(path), ".json") {
		pq = ""
	} else {
		man = ManifestPath(path)
	}
	b, err := os.ReadFile(man)
	if err != nil {
		return nil, invalidf("canary plan: %v (a plan is its Parquet file and the manifest beside it)", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Format != FormatName {
		return nil, invalidf("canary plan: %s is not a plan manifest (made by dpaudit canaries make)", man)
	}
	if m.Version != Version {
		return nil, invalidf("canary plan: %s has version %d; this dpaudit reads version %d", man, m.Version, Version)
	}
	if pq == "" {
		pq = filepath.Join(filepath.Dir(man), m.Parquet)
	}
	sum, err := fileSHA256(pq)
	if err != nil {
		return nil, invalidf("canary plan: %v", err)
	}
	if sum != m.ParquetSHA256 {
		return nil, invalidf("canary plan: %s changed since the plan was made (SHA-256 %.12s…, the manifest says %.12s…): a plan must not be edited", pq, sum, m.ParquetSHA256)
	}
	p := &Plan{Manifest: m, Path: pq}
	if p.IDs, p.Member, err = readBits(pq); err != nil {
		return nil, invalidf("canary plan: %s: %v", pq, err)
	}
	if d := MembershipDigest(p.IDs, p.Member); d != m.MembershipSHA256 || len(p.IDs) != m.Count {
		return nil, invalidf("canary plan: %s: its canaries and bits do not match the plan digest in %s", pq, man)
	}
	return p, nil
}

// readBits reads the canary and member columns.
func readBits(path string) ([]string, []bool, error) {
	f, err := parquetio.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	ci, mi := f.Index("canary"), f.Index("member")
	if ci < 0 || mi < 0 {
		return nil, nil, fmt.Errorf("no canary or member column")
	}
	canary, err := f.Read(ci)
	if err != nil {
		return nil, nil, err
	}
	member, err := f.Read(mi)
	if err != nil {
		return nil, nil, err
	}
	if canary.Type != parquetio.Int64 || canary.Valid != nil {
		return nil, nil, fmt.Errorf("canary column of type %s", canary.TypeName)
	}
	if member.Type != parquetio.Bool || member.Valid != nil {
		return nil, nil, fmt.Errorf("member column of type %s", member.TypeName)
	}
	ids := make([]string, len(canary.Ints))
	for j, v := range canary.Ints {
		ids[j] = strconv.FormatInt(v, 10)
	}
	return ids, member.Bools, nil
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", attack.ErrInvalid, fmt.Sprintf(format, args...))
}

package planfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/internal/npy"
)

func noisePlan(t *testing.T, m int, seed uint64) *attack.CanaryPlan {
	t.Helper()
	p, err := attack.MakePlan(attack.PlanConfig{Crafter: attack.NoiseInput{Low: 0, High: 1, Label: -1},
		Input: attack.CraftInput{InShape: []int{1, 2, 3}, Classes: 10}, Count: m, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.parquet")
	p := noisePlan(t, 50, 1)
	m, err := Write(path, p, Manifest{Dpaudit: "test", Crafter: map[string]any{"kind": "noise_input"}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Count != 50 || m.Canaries != "noise_input" || len(m.MembershipSHA256) != 64 || m.Parquet != "plan.parquet" ||
		strings.Join(m.Columns, ",") != "canary,member,label,x,source_index" || !slices.Equal(m.Shape, []int{1, 2, 3}) {
		t.Errorf("manifest %+v", m)
	}
	for _, from := range []string{path, ManifestPath(path)} {
		got, err := Read(from)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.IDs) != 50 || got.IDs[7] != "7" || !slices.Equal(got.Member, p.Member) || got.Manifest.MembershipSHA256 != m.MembershipSHA256 {
			t.Errorf("read from %s: %+v", from, got)
		}
	}
	// A plan is never overwritten.
	if _, err := Write(path, p, Manifest{}); err == nil || !errors.Is(err, attack.ErrInvalid) || !strings.Contains(err.Error(), "never overwritten") {
		t.Errorf("overwrite: %v", err)
	}
	// Gradient canaries have a coordinate column.
	g, _ := attack.MakePlan(attack.PlanConfig{Parameters: 100, Count: 10, Seed: 2})
	gm, err := Write(filepath.Join(dir, "grad.parquet"), g, Manifest{})
	if err != nil || strings.Join(gm.Columns, ",") != "canary,member,coordinate" || gm.Parameters != 100 {
		t.Errorf("gradient plan: %+v, %v", gm, err)
	}
}

// A plan whose Parquet file was replaced (another plan's bits under this
// manifest) or whose manifest is missing is refused.
func TestReadRefusesTampering(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	if _, err := Write(a, noisePlan(t, 20, 1), Manifest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(b, noisePlan(t, 20, 2), Manifest{}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(b)
	os.WriteFile(a, raw, 0o644)
	if _, err := Read(a); err == nil || !errors.Is(err, attack.ErrInvalid) || !strings.Contains(err.Error(), "changed since the plan was made") {
		t.Errorf("replaced parquet: %v", err)
	}
	os.Remove(ManifestPath(b))
	if _, err := Read(b); err == nil || !strings.Contains(err.Error(), "manifest beside it") {
		t.Errorf("no manifest: %v", err)
	}
	os.WriteFile(ManifestPath(b), []byte(`{"format": "something else"}`), 0o644)
	if _, err := Read(b); err == nil || !strings.Contains(err.Error(), "not a plan manifest") {
		t.Errorf("foreign manifest: %v", err)
	}
}

// With NPY requested, a gradient plan's coordinates and bits are .npy
// arrays row for row, listed with their digests; a leftover .npy of the
// same name stops a new plan before anything is written.
func TestWriteNPY(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "grad.parquet")
	g, _ := attack.MakePlan(attack.PlanConfig{Parameters: 100, Count: 10, Seed: 2})
	m, err := Write(path, g, Manifest{NPY: map[string]NPYFile{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.NPY) != 2 || m.NPY["coordinate"].DType != "int64" || len(m.NPY["member"].SHA256) != 64 {
		t.Fatalf("npy files %+v", m.NPY)
	}
	a, err := npy.ReadFile(NPYPath(path, "coordinate"))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := npy.Int64s(a)
	b, err := npy.ReadFile(NPYPath(path, "member"))
	if err != nil {
		t.Fatal(err)
	}
	for j := range 10 {
		if c[j] != int64(g.Coordinates[j]) || b.Data.([]bool)[j] != g.Member[j] {
			t.Fatalf("row %d: coordinate %d member %v, plan %d %v", j, c[j], b.Data.([]bool)[j], g.Coordinates[j], g.Member[j])
		}
	}
	other := filepath.Join(dir, "other.parquet")
	os.WriteFile(NPYPath(other, "member"), []byte("mine"), 0o644)
	if _, err := Write(other, g, Manifest{NPY: map[string]NPYFile{}}); err == nil || !strings.Contains(err.Error(), "never overwritten") {
		t.Errorf("a leftover .npy: %v", err)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("the plan was written beside a leftover .npy")
	}
}

package planfile

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/internal/npy"
)

// NPYFile is one NumPy array written beside a plan: its file name (in
// the plan's folder), shape, dtype and SHA-256.
type NPYFile struct {
	File   string `json:"file"`
	Shape  []int  `json:"shape"`
	DType  string `json:"dtype"`
	SHA256 string `json:"sha256"`
}

// NPYPath is the .npy file of array name beside a plan file:
// plan.parquet, "x" → plan.x.npy.
func NPYPath(parquet, name string) string {
	return strings.TrimSuffix(parquet, filepath.Ext(parquet)) + "." + name + ".npy"
}

// npyArrays are the plan's arrays as numpy would hold them: member (bool,
// [m]) and, for input canaries, x (float32, [m, shape…], e.g.
// [m, C, H, W]) and label (int64, [m]); for gradient canaries
// coordinate (int64, [m]). Row j is canary j.
func npyArrays(p *attack.CanaryPlan) map[string]func(path string) ([]int, string, error) {
	m := len(p.Member)
	out := map[string]func(string) ([]int, string, error){
		"member": func(path string) ([]int, string, error) {
			return []int{m}, "bool", npy.WriteFile(path, []int{m}, p.Member)
		},
	}
	if p.Records == nil {
		coord := make([]int64, m)
		for j, c := range p.Coordinates {
			coord[j] = int64(c)
		}
		out["coordinate"] = func(path string) ([]int, string, error) {
			return []int{m}, "int64", npy.WriteFile(path, []int{m}, coord)
		}
		return out
	}
	shape := append([]int{m}, p.Shape...)
	d := 1
	for _, s := range p.Shape {
		d *= s
	}
	x := make([]float32, 0, m*d)
	label := make([]int64, m)
	for j, r := range p.Records {
		x, label[j] = append(x, r.X...), int64(r.Y)
	}
	out["x"] = func(path string) ([]int, string, error) { return shape, "float32", npy.WriteFile(path, shape, x) }
	out["label"] = func(path string) ([]int, string, error) {
		return []int{m}, "int64", npy.WriteFile(path, []int{m}, label)
	}
	return out
}

// writeNPY writes the plan's arrays beside path (refusing to replace an
// existing file) and returns them by name; on an error it removes what
// it wrote.
func writeNPY(path string, p *attack.CanaryPlan) (map[string]NPYFile, error) {
	arrays := npyArrays(p)
	for name := range arrays {
		if _, err := os.Stat(NPYPath(path, name)); err == nil {
			return nil, invalidf("%s exists; a plan is never overwritten (remove it, or write the new plan elsewhere)", NPYPath(path, name))
		}
	}
	out := map[string]NPYFile{}
	fail := func(err error) (map[string]NPYFile, error) {
		for name := range out {
			os.Remove(NPYPath(path, name))
		}
		return nil, err
	}
	for name, write := range arrays {
		f := NPYPath(path, name)
		shape, dtype, err := write(f)
		if err != nil {
			os.Remove(f)
			return fail(err)
		}
		sum, err := fileSHA256(f)
		if err != nil {
			return fail(err)
		}
		out[name] = NPYFile{File: filepath.Base(f), Shape: shape, DType: dtype, SHA256: sum}
	}
	return out, nil
}

package dpaudit

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The fingerprint covers every package of this module that the stages
// use, except spec (it only makes the parameters, which are in the keys)
// and pipeline (of which only table.go is embedded: the Parquet encoding).
// A new domain package imported by a stage must be added to the embed
// list and fingerprintPackages.
func TestFingerprintCoversStages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./stages/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	const mod = "github.com/dpaudit/dpaudit/"
	for _, pkg := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(pkg, mod)
		if !ok || rel == "spec" || rel == "pipeline" {
			continue
		}
		if !slices.Contains(fingerprintPackages, rel) {
			t.Errorf("stages import %s, which the code fingerprint does not cover: add it to the go:embed line and fingerprintPackages in fingerprint.go", rel)
		}
	}
	for _, p := range fingerprintPackages {
		if files, _ := codeSources.ReadDir(p); len(files) == 0 {
			t.Errorf("fingerprintPackages lists %s but nothing of it is embedded", p)
		}
	}
}

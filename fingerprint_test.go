package dpaudit

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/figure"
)

// fingerprinted are the packages whose fingerprints key nodes: every
// registered game's, the kit's (the summary) and the figures'.
func fingerprinted() []string {
	pkgs := []string{"stages", stages.PackageOf(figure.Add)}
	for _, g := range games {
		if !slices.Contains(pkgs, g.Package()) {
			pkgs = append(pkgs, g.Package())
		}
	}
	return pkgs
}

// The embedded import graph is go list's: for every package whose
// fingerprint keys nodes, the packages its fingerprint covers are exactly
// the module packages `go list -deps` names (spec and pipeline excepted,
// pipeline entering as its table.go). A package a game starts to import
// must be added to the go:embed lines of fingerprint.go.
func TestFingerprintCoversStages(t *testing.T) {
	ix, err := embeddedIndex()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range fingerprinted() {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		var want []string
		for _, p := range strings.Fields(string(out)) {
			rel, ok := strings.CutPrefix(p, modulePath)
			switch {
			case !ok || rel == "spec":
			case rel == "pipeline":
				want = append(want, tableFile)
			default:
				want = append(want, rel)
			}
		}
		slices.Sort(want)
		got, err := ix.deps(pkg)
		if err != nil {
			t.Errorf("%s: %v", pkg, err)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the fingerprint covers %v, go list -deps says %v (add missing packages to the go:embed lines)", pkg, got, want)
		}
	}
}

// fingerprintSpec has nodes of three packages besides the kit: the
// membership game (trials, estimate), the bounds game (accountant), the
// ReRo bound's shared package (rero) and a figure.
const fingerprintSpec = `name: fp
seed: 1
model: {arch: ideal}
dpsgd: {noise_multiplier: 2, sampling_rate: 1, steps: 4, delta: 1.0e-5}
audit: {threat_model: gradient, trials: 400}
bound: [{kind: accountant, accountants: [rdp]}, {kind: rero, prior_size: 10}]
report: {figures: [{kind: bar, name: eps, x: point_index, y: [epsilon_rdp]}]}
`

// editedCodeOf copies the embedded sources into a temporary folder, adds a
// comment to file (one package's), and returns the code fingerprints of
// that copy.
func editedCodeOf(t *testing.T, file string) func(string) string {
	t.Helper()
	root := t.TempDir()
	err := fs.WalkDir(codeSources, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := codeSources.ReadFile(p)
		if p == file {
			b = append(b, "\n// An edit that changes no behaviour still changes the code.\n"...)
		}
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, file)); err != nil {
		t.Fatalf("%s is not embedded: %v", file, err)
	}
	ix, err := newCodeIndex(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	return func(pkg string) string {
		c, err := ix.code(pkg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// planWith loads path with codeOf replaced by code.
func planWith(t *testing.T, path string, o Options, code func(string) string) *Plan {
	t.Helper()
	defer func(old func(string) string) { codeOf = old }(codeOf)
	codeOf = code
	p, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// movedKinds are the kinds of the nodes whose code fingerprint, and of
// those whose key, differ between two plans of one spec.
func movedKinds(a, b *Plan) (code, key []string) {
	an, bn := a.Compiled.Graph.Nodes(), b.Compiled.Graph.Nodes()
	for i := range an {
		if an[i].Code != bn[i].Code && !slices.Contains(code, an[i].Kind) {
			code = append(code, an[i].Kind)
		}
		if an[i].Key() != bn[i].Key() && !slices.Contains(key, an[i].Kind) {
			key = append(key, an[i].Kind)
		}
	}
	slices.Sort(code)
	slices.Sort(key)
	return code, key
}

// A node's key follows only the code it runs. An edit (here a comment)
// in a temporary copy of one package changes the fingerprint of the nodes
// whose package imports it, and the keys of those and of what consumes
// them: editing the drawing code redraws the figure and nothing else, and
// editing another game changes nothing.
func TestEditedPackageMovesOnlyItsNodes(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "fp.yaml", fingerprintSpec)
	o := Options{Store: filepath.Join(dir, "store")}
	base := planWith(t, path, o, codeOf)
	for _, c := range []struct {
		file      string
		code, key []string
	}{
		{"report/draw.go", []string{"figure"}, []string{"figure"}},
		{"stages/identify/identify.go", nil, nil},
		{"stages/glm/glm.go", nil, nil},
		{"attack/identify/game.go", nil, nil},
		{"stages/membership/params.go", []string{"estimate", "trials"}, []string{"estimate", "figure", "summary", "trials"}},
		{"stages/bound/accountant.go", []string{"accountant"}, []string{"accountant", "figure", "summary"}},
		// The bounds game imports the ReRo package, so its accountant
		// nodes key on it too: fingerprints follow packages, not functions.
		{"stages/rero/rero.go", []string{"accountant", "rero"}, []string{"accountant", "figure", "rero", "summary"}},
		{"stages/summary.go", []string{"accountant", "estimate", "figure", "rero", "summary", "trials"}, []string{"accountant", "estimate", "figure", "rero", "summary", "trials"}},
	} {
		code, key := movedKinds(base, planWith(t, path, o, editedCodeOf(t, c.file)))
		if !slices.Equal(code, c.code) || !slices.Equal(key, c.key) {
			t.Errorf("editing %s moves the code of %v and the keys of %v; want %v and %v", c.file, code, key, c.code, c.key)
		}
	}
}

// After an edit, plan says "code changed" for the nodes whose code moved,
// with the package that changed, and keeps the others cached.
func TestPlanNamesTheChangedPackage(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "fp.yaml", fingerprintSpec)
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	if _, err := planWith(t, path, o, codeOf).Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	p := planWith(t, path, o, editedCodeOf(t, "stages/membership/shards.go"))
	for _, st := range p.Steps {
		switch st.Node.Kind {
		case "trials", "estimate":
			if st.Status != pipeline.Run || st.Reason != pipeline.ReasonCode || st.Note != "changed: stages/membership" {
				t.Errorf("%s: %s %q [%s], want run (code changed) [changed: stages/membership]", st.Node.Kind, st.Status, st.Reason, st.Note)
			}
		case "summary", "figure":
			if st.Status != pipeline.Run || st.Reason != pipeline.ReasonInput {
				t.Errorf("%s: %s %q, want run (input changed)", st.Node.Kind, st.Status, st.Reason)
			}
		default:
			if st.Status != pipeline.Cached {
				t.Errorf("%s: %s %q, want cached", st.Node.Kind, st.Status, st.Reason)
			}
		}
	}
}

func TestExplainCode(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"a=1 b=2", "a=1 b=3", "changed: b"},
		{"a=1 b=2", "a=1 b=2 c=4", "changed: c"},
		{"a=1 b=2", "a=1", "changed: b"},
		{"a=1", "a=1", ""},
		{"0123456789abcdef", "a=1", "computed by a dpaudit that fingerprinted all its code as one"},
	} {
		if got := explainCode(c.old, c.new); got != c.want {
			t.Errorf("explainCode(%q, %q) = %q, want %q", c.old, c.new, got, c.want)
		}
	}
}

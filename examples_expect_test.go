package dpaudit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/dpaudit/dpaudit/datasets"
)

// longExamples did not finish within 45 s of wall time on the project's
// 2-core machine (one at a time, fresh store, while other jobs kept the
// load average between 8 and 38): TestExampleNumbers leaves them to scripts/check-examples.sh
// --long, which sets DPAUDIT_EXAMPLES=long (only these) or all.
var longExamples = map[string]bool{
	"examples/audit/gradient-canary-mlp.yaml":        true,
	"examples/audit/last-iterate-mnist.yaml":         true,
	"examples/audit/one-run-ideal.yaml":              true,
	"examples/audit/one-run-input-mlp.yaml":          true,
	"examples/audit/sequential-mlp.yaml":             true,
	"examples/audit/shuffle-vs-poisson.yaml":         true,
	"examples/audit/tightness.yaml":                  true,
	"examples/bernau2021/fig7-audit-sweep.yaml":      true,
	"examples/bernau2021/table2e-adult.yaml":         true,
	"examples/bernau2021/table2e-purchase.yaml":      true,
	"examples/bernau2021/table2e.yaml":               true,
	"examples/guo2022/fig3-glm-attack.yaml":          true,
	"examples/guo2022/fig5-dpsgd-fil.yaml":           true,
	"examples/hayes2023/fig13-clip-norm.yaml":        true,
	"examples/hayes2023/fig15-q-sweep.yaml":          true,
	"examples/hayes2023/fig3-prior-size.yaml":        true,
	"examples/hayes2023/fig4-minibatch.yaml":         true,
	"examples/hayes2023/fig5-attack-vs-bound.yaml":   true,
	"examples/hayes2023/fig8-gradient-vs-prior.yaml": true,
	"examples/hayes2023/ideal.yaml":                  true,
	"examples/mukherjee2023/fig2-pnsgd.yaml":         true,
	"examples/nasr2021/fig1-adversaries.yaml":        true,
	"examples/nasr2021/fig8-malicious-dataset.yaml":  true,
	"examples/audit/replace-one-label.yaml":          true,
	"examples/audit/bandmf.yaml":                     true,
	"examples/audit/bandmf-white-box.yaml":           true,
}

// pinnedElsewhere are examples whose numbers their own tests pin: the
// external trainers' (external_trainer_test.go runs them with the trainers they
// name, skipping where python3 with torch is absent), so the example-number
// test neither runs them nor asks them for an expect block.
var pinnedElsewhere = map[string]bool{
	"examples/external/crosscheck-go.yaml":        true,
	"examples/external/crosscheck-torch.yaml":     true,
	"examples/external/minimal.yaml":              true,
	"examples/external/onerun-go.yaml":            true,
	"examples/external/onerun-torch.yaml":         true,
	"examples/external/torch-clip-after-sum.yaml": true,
	"examples/external/torch-honest.yaml":         true,
	"examples/external/torch-noise-unscaled.yaml": true,
	"examples/external/torch-unnoised-bias.yaml":  true,
	// Long (8000 torch trials each): TestExternalTorchShuffleBatches runs
	// them with DPAUDIT_EXAMPLES=long or all.
	"examples/external/torch-shuffle-batches.yaml": true,
	"examples/external/torch-shuffle-honest.yaml":  true,
}

// TestExampleNumbers runs every example that finishes in about 30 s and
// checks the numbers its expect block states (and its comment quotes):
// a drift names the example, the column, the point, the expected and the
// measured value. go test -short skips it.
func TestExampleNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the examples; not with -short")
	}
	mode := os.Getenv("DPAUDIT_EXAMPLES") // "", "long" or "all"
	for _, path := range exampleSpecs(t) {
		long := longExamples[filepath.ToSlash(path)]
		if pinnedElsewhere[filepath.ToSlash(path)] || (mode == "" && long) || (mode == "long" && !long) {
			continue
		}
		// Subtests are named folder:file (a '/' would split go test -run's
		// pattern): -run 'TestExampleNumbers/hayes2023:fig15'.
		name := strings.ReplaceAll(strings.TrimPrefix(filepath.ToSlash(path), "examples/"), "/", ":")
		t.Run(name, func(t *testing.T) { checkExampleNumbers(t, path) })
	}
}

func checkExampleNumbers(t *testing.T, path string) {
	dir := t.TempDir()
	// DPAUDIT_EXAMPLES_KEEP keeps each example's store and results under
	// that folder (one subfolder per example), e.g. to draw the gallery
	// from the checked runs.
	if keep := os.Getenv("DPAUDIT_EXAMPLES_KEEP"); keep != "" {
		dir = filepath.Join(keep, strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(path), ".yaml"), "/", "_"))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2})
	if errors.Is(err, datasets.ErrNotFetched) && os.Getenv("DPAUDIT_REQUIRE_DATA") == "" {
		t.Skipf("its data set is not fetched (CI sets DPAUDIT_REQUIRE_DATA=1): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Points[0].Exp.Expect) == 0 {
		t.Fatalf("%s states no numbers: give it an expect block with what this machine measured", path)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	drifts, checked, err := p.CheckExpect(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drifts {
		t.Errorf("%s: %s", path, d)
	}
	t.Logf("%s: %d numbers checked, %d drifted", path, checked, len(drifts))
}

// Every number an example's expect block states is quoted, digit for
// digit as written in the block, by the example's comments: the prose
// and the block cannot disagree. Each quick example states at least one.
func TestExampleCommentsQuoteExpect(t *testing.T) {
	for _, path := range exampleSpecs(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(src, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		values := expectValueTexts(&doc)
		if len(values) == 0 && pinnedElsewhere[filepath.ToSlash(path)] {
			continue
		}
		if len(values) == 0 {
			// Every quick example states its numbers (TestExampleNumbers
			// fails without them); a long one may still lack the block.
			if longExamples[filepath.ToSlash(path)] {
				t.Logf("%s: no expect block yet (a long example)", path)
			} else {
				t.Errorf("%s: no expect block", path)
			}
			continue
		}
		comments := commentText(string(src))
		for _, v := range values {
			if !strings.Contains(comments, v.text) {
				t.Errorf("%s:%d: expect value %s is not quoted in the example's comments", path, v.line, v.text)
			}
		}
	}
}

type valueText struct {
	text string
	line int
}

// expectValueTexts returns the expect entries' values as written.
func expectValueTexts(doc *yaml.Node) []valueText {
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	var out []valueText
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "expect" {
			continue
		}
		for _, entry := range root.Content[i+1].Content {
			for j := 0; j+1 < len(entry.Content); j += 2 {
				if entry.Content[j].Value == "value" {
					v := entry.Content[j+1]
					out = append(out, valueText{v.Value, v.Line})
				}
			}
		}
	}
	return out
}

// commentText is the text of a file's comment lines.
func commentText(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		if s := strings.TrimSpace(line); strings.HasPrefix(s, "#") {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

package dpaudit

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/spec"
)

// fuzzMaxPoints keeps every fuzz input small: larger sweeps are refused at
// parse time (which is itself part of what is fuzzed).
const fuzzMaxPoints = 4

// FuzzLoadSpec feeds arbitrary bytes through the whole front end — parse,
// validate, expand (expressions included), compile and plan — with a small
// point limit and an empty data dir. Whatever the input, Load must not
// panic or hang, and must either succeed with a plan or fail with a spec
// error (positioned, exit code 2) or an input error; an accepted spec must
// be accepted again with the same plan (loading is deterministic).
//
// The seed corpus in testdata/fuzz/FuzzLoadSpec holds every example spec
// and the bad-input cases of badSpecs (TestFuzzCorpusIsCurrent keeps it in
// step; regenerate with go test -run TestFuzzCorpusIsCurrent -update-corpus).
// CI fuzzes for a bounded time: go test -run '^$' -fuzz '^FuzzLoadSpec$' -fuzztime 60s .
func FuzzLoadSpec(f *testing.F) {
	data := f.TempDir() // empty: data-set specs fail with a not-fetched error, which is fine
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), MaxPoints: fuzzMaxPoints, DataDir: data}
		p, err := Load(path, o)
		if err != nil {
			var es spec.Errors
			switch {
			case errors.As(err, &es):
				for _, e := range es {
					if e.File == "" || e.Msg == "" {
						t.Fatalf("spec error without file or message: %#v", e)
					}
				}
			case IsInputError(err):
			default:
				t.Fatalf("Load failed with neither a spec nor an input error (%T): %v", err, err)
			}
			return
		}
		if len(p.Points) == 0 || len(p.Points) > fuzzMaxPoints || p.Compiled == nil {
			t.Fatalf("accepted with %d points (limit %d)", len(p.Points), fuzzMaxPoints)
		}
		q, err := Load(path, o)
		if err != nil {
			t.Fatalf("accepted once, refused the second time: %v", err)
		}
		if len(q.Steps) != len(p.Steps) {
			t.Fatalf("plan changed between loads: %d vs %d steps", len(p.Steps), len(q.Steps))
		}
		if _, err := os.Stat(o.Store); err == nil {
			entries, _ := os.ReadDir(o.Store)
			for _, e := range entries {
				if e.Name() != "memo" {
					t.Fatalf("planning wrote %s into the store", e.Name())
				}
			}
		}
	})
}

// badSpecs are the seed corpus's bad inputs: each exercises one way a spec
// can be wrong (malformed YAML, structure, values, expressions, sweeps).
var badSpecs = map[string]string{
	"empty":            "",
	"not-a-map":        "- a\n- b\n",
	"two-documents":    "name: a\n---\nname: b\n",
	"tab-indent":       "name: a\ndpsgd:\n\tsteps: 3\n",
	"alias-bomb":       "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
	"merge-key":        "base: &b {steps: 3}\ndpsgd:\n  <<: *b\n",
	"duplicate-key":    "name: a\nname: b\n",
	"unknown-keys":     "name: q\ncolour: red\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3, bogus: 1}\n",
	"bad-values":       "name: q\ndpsgd: {noise_multiplier: -1, sampling_rate: 1.5, steps: 0, delta: 1}\n",
	"nan-inf":          "name: q\nvars: {b: [1, .nan]}\ndpsgd: {noise_multiplier: .inf, sampling_rate: .nan, steps: .inf}\n",
	"wrong-types":      "name: [1]\nseed: abc\ndpsgd: {noise_multiplier: {a: 1}, sampling_rate: [0.1], steps: 1.5}\n",
	"expr-syntax":      "name: q\ndpsgd: {noise_multiplier: \"=1 +\", sampling_rate: 0.1, steps: 3}\n",
	"expr-unknown":     "name: q\ndpsgd: {noise_multiplier: \"=calibrat(4, 1e-5, 0.01, 100)\", sampling_rate: \"=sigma\", steps: \"=dpsgd.stps\"}\n",
	"expr-cycle":       "name: q\nvars: {a: \"=b + 1\", b: \"=a * 2\"}\ndpsgd: {noise_multiplier: \"=a\", sampling_rate: 0.1, steps: 3}\n",
	"expr-values":      "name: q\ndpsgd: {noise_multiplier: \"=1 / 0\", sampling_rate: \"=log(-1)\", steps: \"=2.5\"}\n",
	"calibrate-edge":   "name: q\ndpsgd: {noise_multiplier: \"=calibrate(1e5, 8.335e-7, 1, 115661)\", sampling_rate: 1, steps: 115661, delta: 8.335e-7}\nbound: [{kind: accountant, accountants: [best, pld]}]\n",
	"calibrate-bad":    "name: q\ndpsgd: {noise_multiplier: \"=calibrate(-4, 2, 0, 0.5, 'nope')\", sampling_rate: 0.1, steps: 3}\n",
	"sweep-too-large":  "name: q\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\nsweep:\n  grid: {dpsgd.steps: {linspace: [1, 1000, 1000]}, dpsgd.noise_multiplier: [1, 2, 3]}\n",
	"sweep-zip-length": "name: q\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\nsweep:\n  zip: {dpsgd.steps: [1, 2], dpsgd.noise_multiplier: [1]}\n",
	"sweep-where-none": "name: q\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\nsweep:\n  grid: {dpsgd.steps: [1, 2]}\n  where: dpsgd.steps > 5\n",
	"sweep-bad-key":    "name: q\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\nsweep:\n  grid: {dpsgd.stepz: [1, 2]}\n",
	"unknown-kinds":    "name: q\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\ncrafter: {kind: nope}\nbound: [{kind: acountant}]\n",
	"missing-data":     "name: q\ndataset: {source: mnist, classes: [0, 1], train_size: 100}\nmodel: {arch: logreg}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3, learning_rate: 0.1}\ncrafter: {kind: random_record}\ndistinguisher: {kind: loss_threshold}\naudit: {threat_model: api_access, trials: 8}\n",
	"one-run-input":    "name: q\ndataset: {source: digits, classes: [0, 1], train_size: 100}\nmodel: {arch: mlp, hidden: [8]}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\ncrafter: {kind: mislabeled_record}\ndistinguisher: {kind: loss_threshold}\naudit: {threat_model: api_access, estimator: one_run, canaries: input, trials: 92}\n",

	"sequential-bad":  "name: q\nmodel: {arch: ideal}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 10}\naudit: {threat_model: malicious_dataset, trials: 50, stop: sequential, threshold: posthoc, estimator: one_run, repeats: 2, sequential: {first_look: 5}}\n",
	"minimal-ok":      "name: q\ndpsgd: {noise_multiplier: 1.1, sampling_rate: 0.01, steps: 100}\nbound: [{kind: accountant, accountants: [rdp, pld, gdp, best]}]\n",
	"headline-family": "name: q\ndataset: {source: digits, classes: [0, 1], train_size: 100}\nmodel: {arch: logreg}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 3}\naudit: {threat_model: gradient, trials: 50, headline: one_run_fdp, measure_cpu: true}\nsweep:\n  zip: {audit.estimator: [clopper_pearson, one_run], crafter: [{kind: gradient_canary}, null], distinguisher: [{kind: watermark}, null]}\n",
}

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/fuzz/FuzzLoadSpec from the examples and badSpecs")

// TestFuzzCorpusIsCurrent checks that the committed seed corpus holds every
// example spec (byte for byte) and every bad input, and nothing stale.
func TestFuzzCorpusIsCurrent(t *testing.T) {
	want := map[string][]byte{}
	filepath.WalkDir("examples", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			want["example-"+strings.NewReplacer("/", "-", ".yaml", "").Replace(strings.TrimPrefix(p, "examples/"))] = b
		}
		return nil
	})
	for name, src := range badSpecs {
		want["bad-"+name] = []byte(src)
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzLoadSpec")
	encode := func(b []byte) []byte { return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b) }
	if *updateCorpus {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range want {
			if err := os.WriteFile(filepath.Join(dir, name), encode(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v (generate it with: go test -run TestFuzzCorpusIsCurrent -update-corpus .)", err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[e.Name()]
		if !ok {
			t.Errorf("stale corpus file %s (regenerate: go test -run TestFuzzCorpusIsCurrent -update-corpus .)", e.Name())
		} else if !bytes.Equal(b, encode(w)) {
			t.Errorf("corpus file %s differs from its source (regenerate: go test -run TestFuzzCorpusIsCurrent -update-corpus .)", e.Name())
		}
	}
	for name := range want {
		if !have[name] {
			t.Errorf("corpus lacks %s (regenerate: go test -run TestFuzzCorpusIsCurrent -update-corpus .)", name)
		}
	}
}

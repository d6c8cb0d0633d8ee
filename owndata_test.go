package dpaudit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/internal/npy"
	"github.com/dpaudit/dpaudit/pipeline"
)

// writeOwnData writes the digits 0 and 1 (raw values 0..16, digits' own
// split) as a user might have them: train.csv and test.csv (label, p0 …
// p63), digits.parquet (label, pixels: a fixed-size list of 64 floats, all
// rows) and digits.npz (images (N, 8, 8) uint8, labels (N,) int64).
func writeOwnData(t testing.TB, dir string) {
	t.Helper()
	s, err := datasets.Load(datasets.Source{Name: datasets.SourceDigits}, datasets.Options{Classes: []int{0, 1}, Normalize: datasets.NormalizeNone}, "")
	if err != nil {
		t.Fatal(err)
	}
	header := "label"
	for j := range 64 {
		header += fmt.Sprintf(",p%d", j)
	}
	for name, ds := range map[string]*datasets.Dataset{"train.csv": s.Train, "test.csv": s.Test} {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := range ds.N {
			fmt.Fprintf(&b, "%d", ds.Y[i])
			for _, v := range ds.Row(i) {
				fmt.Fprintf(&b, ",%g", v)
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var px []uint8
	var labels []int64
	sc := arrow.NewSchema([]arrow.Field{{Name: "label", Type: arrow.PrimitiveTypes.Int64},
		{Name: "pixels", Type: arrow.FixedSizeListOf(64, arrow.PrimitiveTypes.Float32)}}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer rb.Release()
	for _, ds := range []*datasets.Dataset{s.Train, s.Test} {
		for i := range ds.N {
			labels = append(labels, int64(ds.Y[i]))
			rb.Field(0).(*array.Int64Builder).Append(int64(ds.Y[i]))
			lb := rb.Field(1).(*array.FixedSizeListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Float32Builder).AppendValues(ds.Row(i), nil)
			for _, v := range ds.Row(i) {
				px = append(px, uint8(v))
			}
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	pf, _ := os.Create(filepath.Join(dir, "digits.parquet"))
	w, err := pqarrow.NewFileWriter(sc, pf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	zf, _ := os.Create(filepath.Join(dir, "digits.npz"))
	z := npy.NewNPZWriter(zf)
	npy.WriteNPZ(z, "images", []int{len(labels), 8, 8}, px)
	npy.WriteNPZ(z, "labels", []int{len(labels)}, labels)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
}

// ownLayers is a small CNN as a layer list, for [1, 8, 8] inputs.
const ownLayers = `model:
  arch: layers
  layers:
    - {kind: conv2d, filters: 4, kernel: 3, padding: 1}
    - {kind: relu}
    - {kind: maxpool, size: 2}
    - {kind: flatten}
    - {kind: dense, units: 8}
    - {kind: tanh}
    - {kind: dense, units: 2}
`

// Every game family runs on a user's file: training (CSV with a test file,
// a CNN layer list), the membership audit (npz images), the prior-aware
// reconstruction (Parquet list column), identifiability and the GLM
// reconstruction (CSV). Each publishes its columns with sane values.
func TestOwnDataEveryGame(t *testing.T) {
	dir := t.TempDir()
	writeOwnData(t, dir)
	csvData := "dataset: {source: file, path: train.csv, label: label, shape: [1, 8, 8], max_value: 16, split: {test_path: test.csv}}\n"
	npzData := "dataset: {source: file, path: digits.npz, label: labels, max_value: 16, train_size: 150}\n"
	pqData := "dataset: {source: file, path: digits.parquet, label: label, shape: [1, 8, 8], max_value: 16, train_size: 100}\n"
	for _, c := range []struct {
		name, body string
		check      func(t *testing.T, row map[string]any)
	}{
		{"train", csvData + ownLayers + "dpsgd: {noise_multiplier: 1, sampling_rate: 0.1, steps: 60, learning_rate: 0.5}\ntrain: {runs: 2}\n",
			func(t *testing.T, r map[string]any) {
				if a := r["test_accuracy"].(float64); a < 0.9 {
					t.Errorf("test accuracy %v of a CNN on digits 0 vs 1", a)
				}
			}},
		{"audit", npzData + ownLayers + "dpsgd: {noise_multiplier: 1, sampling_rate: 0.2, steps: 10, learning_rate: 0.5}\n" +
			"crafter: {kind: mislabeled_record}\ndistinguisher: {kind: loss_threshold}\naudit: {threat_model: api_access, trials: 40}\nbound: [{kind: accountant, accountants: [pld]}]\n",
			func(t *testing.T, r map[string]any) {
				if _, ok := r["epsilon_lb"].(float64); !ok || r["violation"] != false {
					t.Errorf("ε_lb %v, violation %v", r["epsilon_lb"], r["violation"])
				}
			}},
		{"reconstruction", pqData + "model: {arch: mlp, hidden: [8], activation: elu}\n" +
			"dpsgd: {noise_multiplier: 0.5, sampling_rate: 1, steps: 5, clip_norm: 1, learning_rate: 0.5}\nreconstruction: {attack: prior_aware, prior_size: 4, trials: 100}\n",
			func(t *testing.T, r map[string]any) {
				if s := r["reconstruction_success"].(float64); s < 0.5 || r["rero_violation"] != false {
					t.Errorf("success %v (bound %v), violation %v", s, r["rero_gamma"], r["rero_violation"])
				}
			}},
		{"identifiability", strings.Replace(csvData, "shape: [1, 8, 8], ", "train_size: 20, test_size: 30, ", 1) +
			"model: {arch: logreg}\ndpsgd: {noise_multiplier: \"=bernau_noise(0.9, dpsgd.delta, dpsgd.steps)\", sampling_rate: 1, steps: 5, delta: 0.05, learning_rate: 0.05}\n" +
			"identifiability: {adjacency: bounded, repetitions: 12}\nbound: [{kind: belief, target_rho_beta: 0.9, delta: 0.05}]\n",
			func(t *testing.T, r map[string]any) {
				if a, ok := r["identify_advantage"].(float64); !ok || a < -1 || a > 1 {
					t.Errorf("advantage %v", r["identify_advantage"])
				}
			}},
		{"glm", strings.Replace(csvData, "shape: [1, 8, 8], ", "", 1) +
			"model: {arch: output_perturbation, lambda: 0.01, sigma: 1.0e-6}\nreconstruction: {attack: glm, releases: 10}\n",
			func(t *testing.T, r map[string]any) {
				if r["glm_failed_trials"] != int64(0) {
					t.Errorf("failed trials %v", r["glm_failed_trials"])
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeSpec(t, dir, c.name+".yaml", "name: own-"+c.name+"\nseed: 1\n"+c.body)
			_, res := runSpec(t, path, Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")})
			row := onlySummaryRow(t, res)
			for _, k := range []string{"test_accuracy", "epsilon_lb", "reconstruction_success", "rero_gamma", "identify_advantage", "glm_mse_mean"} {
				if v, ok := row[k]; ok {
					t.Logf("%s = %v", k, v)
				}
			}
			c.check(t, row)
		})
	}
}

// A data file's digest is in the manifest and in the node keys: after the
// file changes, plan says so and re-runs what reads it, and the run
// records the new digest. (A file changed after the plan was made is
// refused when a node loads it in another process: datasets'
// TestFileDigest; in the planning process the split read at compile time,
// whose digest the keys hold, is the one trained on.)
func TestOwnDataDigest(t *testing.T) {
	dir := t.TempDir()
	writeOwnData(t, dir)
	body := "name: dig\nseed: 1\ndataset: {source: file, path: train.csv, label: label, max_value: 16, split: {test_path: test.csv}}\n" +
		"model: {arch: logreg}\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.2, steps: 5}\ntrain: {}\n"
	path := writeSpec(t, dir, "dig.yaml", body)
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
	_, res := runSpec(t, path, o)
	m, err := readManifest(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := datasets.Digest(filepath.Join(dir, "train.csv"))
	if len(m.DataFiles) != 2 || m.DataFiles[0].SHA256 != sum || m.DataFiles[0].Path != filepath.Join(dir, "train.csv") {
		t.Fatalf("manifest data files %+v, want train.csv with %s first", m.DataFiles, sum)
	}
	p, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if run, _ := pipeline.Counts(p.Steps); run != 0 || len(p.Notes) != 0 {
		t.Fatalf("unchanged file: %d to run, notes %v", run, p.Notes)
	}

	// Change one pixel of the first row.
	raw, _ := os.ReadFile(filepath.Join(dir, "train.csv"))
	lines := strings.SplitN(string(raw), "\n", 3)
	lines[1] = strings.Replace(lines[1], ",0,", ",3,", 1)
	os.WriteFile(filepath.Join(dir, "train.csv"), []byte(strings.Join(lines, "\n")), 0o644)
	p, err = Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "train.csv changed since the last run (sha256 "+sum[:12]) {
		t.Fatalf("notes %v", p.Notes)
	}
	noted := 0
	for _, st := range p.Steps {
		if st.Node.Kind == "train_run" {
			if st.Status != pipeline.Run || st.Note != "data file train.csv changed since the last run" {
				t.Errorf("train_run: %s %s [%s]", st.Status, st.Reason, st.Note)
			}
			noted++
		}
	}
	if noted == 0 {
		t.Fatal("no train_run node")
	}

	_, res = runSpec(t, path, o)
	if m2, err := readManifest(res.Dir); err != nil || m2.DataFiles[0].SHA256 == sum {
		t.Fatal("the manifest kept the old digest")
	}
}

// Bad input in a user's file or layer list: a positioned error, exit code
// 2, nothing cached or published.
func TestOwnDataBadInput(t *testing.T) {
	dir := t.TempDir()
	writeOwnData(t, dir)
	os.WriteFile(filepath.Join(dir, "ragged.csv"), []byte("label,a,b\n0,1,2\n1,3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "nan.csv"), []byte("label,a,b\n0,1,2\n1,3,nan\n0,1,1\n1,2,2\n"), 0o644)
	three := "label,a,b\n"
	for i := range 15 {
		three += fmt.Sprintf("%d,%d,1\n", i%3, i)
	}
	os.WriteFile(filepath.Join(dir, "three.csv"), []byte(three), 0o644)
	head := "name: bad\nseed: 1\ndpsgd: {noise_multiplier: 1, sampling_rate: 0.2, steps: 5}\ntrain: {}\n"
	for _, c := range []struct{ body, want string }{
		{"dataset: {source: file, path: train.csv, label: lable}\nmodel: {arch: logreg}\n",
			`:5:49: dataset.label: invalid dataset request: train.csv has no label column "lable" (did you mean "label"?)`},
		{"dataset: {source: file, path: train.csv, label: label, features: [p1, p99]}\nmodel: {arch: logreg}\n",
			`dataset.features: invalid dataset request: train.csv has no feature column "p99"`},
		{"dataset: {source: file, path: ragged.csv, label: label}\nmodel: {arch: logreg}\n",
			`dataset: malformed data: ragged.csv: row 1 (line 3) has 2 fields, the header has 3`},
		{"dataset: {source: file, path: nan.csv, label: label}\nmodel: {arch: logreg}\n",
			`nan.csv: row 1 (line 3), column "b": the value is nan`},
		{"dataset: {source: file, path: missing.parquet, label: label}\nmodel: {arch: logreg}\n",
			`:5:31: dataset.path: invalid dataset request: data file ` + dir + `/missing.parquet does not exist`},
		{"dataset: {source: file, path: train.csv, label: label, shape: [1, 8, 9]}\nmodel: {arch: logreg}\n",
			`dataset.shape: invalid dataset request: shape [1, 8, 9] holds 72 values per example, but train.csv has 64`},
		{"dataset: {source: file, path: train.txt, label: label}\nmodel: {arch: logreg}\n",
			`dataset.path: cannot tell the format of "train.txt" from its extension`},
		{"dataset: {source: file, path: three.csv, label: label}\nmodel: {arch: layers, layers: [{kind: dense, units: 2}]}\n",
			`model.layers[0]: the last layer has 2 units, but the data has 3 classes (labels 0…2): it needs one unit per class`},
		{"dataset: {source: file, path: train.csv, label: label, shape: [1, 8, 8]}\n" +
			"model: {arch: layers, layers: [{kind: conv2d, filters: 2, kernel: 3}, {kind: maxpool, size: 2}, {kind: conv2d, filters: 2, kernel: 5}, {kind: flatten}, {kind: dense, units: 2}]}\n",
			`:6:97: model.layers[2]: conv2d kernel 5 > input 3×3 (after layers[1] maxpool)`},
		{"dataset: {source: file, path: train.csv, label: label}\nmodel: {arch: layers, layers: [{kind: conv2d, filters: 2, kernel: 3}, {kind: flatten}, {kind: dense, units: 2}]}\n",
			`model.layers[0]: conv2d needs a [C, H, W] input, got [64] (the data's shape)`},
	} {
		path := writeSpec(t, dir, "bad.yaml", head+c.body)
		o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results")}
		_, err := Load(path, o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !IsInputError(err) {
			t.Errorf("%s\nerr  %v\nwant %q (an input error)", c.body, err, c.want)
		}
		if _, serr := os.Stat(o.Store); serr == nil {
			t.Errorf("%s: the store was created", c.body)
		}
		if _, serr := os.Stat(o.Results); serr == nil {
			t.Errorf("%s: results were published", c.body)
		}
	}
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/attack/planfile"
	"github.com/dpaudit/dpaudit/datasets"
)

func cmdCanaries(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		w := stdout
		if len(args) == 0 {
			w = stderr
		}
		fmt.Fprint(w, "Usage: dpaudit canaries make --crafter KIND --count M --out PLAN.parquet [flags]\n\n"+
			"A canary plan is a one-run audit of training that runs elsewhere: m canaries,\n"+
			"each with a seeded inclusion bit. Train with the canaries whose member is true,\n"+
			"score all m, and run dpaudit estimate --plan PLAN.parquet SCORES.\n"+
			"See docs/canary-plans.md.\n")
		if len(args) == 0 {
			return usagef("dpaudit canaries needs a subcommand: make")
		}
		return nil
	}
	if args[0] == "make" {
		return cmdCanariesMake(args[1:], stdout, stderr)
	}
	return usagef("dpaudit canaries: unknown subcommand %q (make)", args[0])
}

// canaryFlags are the flags of "dpaudit canaries make".
type canaryFlags struct {
	crafter, out, source, dataset, normalize, dataDir string
	fromDataset                                       string
	npy                                               bool
	count, parameters, numClasses                     int
	seed                                              uint64
	shape                                             string
	low, high                                         float64
	label                                             int
}

func (c *canaryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.crafter, "crafter", "", "noise_input, mislabeled_record, random_record (input canaries) or gradient_canary (white box)")
	fs.IntVar(&c.count, "count", 0, "m, the number of canaries")
	fs.Uint64Var(&c.seed, "seed", 0, "seed of the canaries and of their inclusion bits")
	fs.StringVar(&c.out, "out", "", "the plan's Parquet file; its manifest goes beside it (.json)")
	fs.StringVar(&c.dataset, "dataset", "", "data set the records come from (and the shape and classes of noise inputs): "+strings.Join(datasets.SourceNames(), ", "))
	fs.StringVar(&c.fromDataset, "from-dataset", "", "records from your own data: a spec file whose dataset block (source: file, with the same keys as in a run) names it; its digest goes into the plan")
	fs.BoolVar(&c.npy, "npy", false, "also write the plan's arrays as NumPy files beside it: PLAN.x.npy (float32, [m, C, H, W]), PLAN.label.npy (int64), PLAN.member.npy (bool); gradient canaries PLAN.coordinate.npy")
	fs.StringVar(&c.source, "source", "pool", "records: pool (the data set's test split) or train (its training split: leave those records out of your always-included data)")
	fs.StringVar(&c.normalize, "normalize", "", "the data set's normalisation: unit (default: pixels/255), none or standardize")
	fs.StringVar(&c.dataDir, "data-dir", "", "data directory (default $DPAUDIT_DATA or "+datasets.DefaultDataDir()+")")
	fs.StringVar(&c.shape, "shape", "", "noise_input without --dataset: the input shape, e.g. 1,28,28")
	fs.IntVar(&c.numClasses, "num-classes", 0, "noise_input without --dataset: the number of classes")
	fs.Float64Var(&c.low, "low", 0, "noise_input: the inputs' lower end")
	fs.Float64Var(&c.high, "high", 1, "noise_input: the inputs' upper end")
	fs.IntVar(&c.label, "label", -1, "noise_input: the canaries' label (-1: a uniform random label each)")
	fs.IntVar(&c.parameters, "parameters", 0, "gradient_canary: the model's parameter count")
}

func cmdCanariesMake(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("canaries make", "--crafter KIND --count M --out PLAN.parquet [flags]",
		"Writes a canary plan: M canaries, each with a seeded inclusion bit (a fair coin),\nas PLAN.parquet with a manifest PLAN.json beside it. See docs/canary-plans.md.", stderr)
	var c canaryFlags
	c.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("dpaudit canaries make takes no arguments (got %q); name the plan with --out", pos[0])
	}
	if c.out == "" || c.count < 1 || c.crafter == "" {
		return usagef("dpaudit canaries make needs --crafter, --count ≥ 1 and --out")
	}
	cfg, meta, err := c.config()
	if err != nil {
		return err
	}
	p, err := attack.MakePlan(cfg)
	if err != nil {
		return canaryInput(err)
	}
	meta.Dpaudit = dpaudit.Version
	if c.npy {
		meta.NPY = map[string]planfile.NPYFile{}
	}
	m, err := planfile.Write(c.out, p, meta)
	if err != nil {
		return canaryInput(err)
	}
	fmt.Fprintf(stdout, "wrote %s and %s: %d %s canaries, %d to train on (member = true), seed %d\n",
		c.out, planfile.ManifestPath(c.out), m.Count, m.Canaries, m.Members, m.Seed)
	for _, name := range []string{"x", "label", "member", "coordinate"} {
		if f, ok := m.NPY[name]; ok {
			fmt.Fprintf(stdout, "wrote %s: %s %v\n", planfile.NPYPath(c.out, name), f.DType, f.Shape)
		}
	}
	fmt.Fprintf(stdout, "plan digest (membership_sha256): %s\n", m.MembershipSHA256)
	fmt.Fprintf(stdout, "next: train with the member canaries, score all %d, then\n  dpaudit estimate --plan %s SCORES (columns canary, score)\n", m.Count, c.out)
	return nil
}

// canaryInput maps bad input to exit code 2.
func canaryInput(err error) error {
	if errors.Is(err, attack.ErrInvalid) || datasets.IsBadInput(err) {
		return usagef("dpaudit canaries make: %v", err)
	}
	return err
}

// config turns the flags into a plan configuration and the manifest's
// record of how it was made.
func (c *canaryFlags) config() (attack.PlanConfig, planfile.Manifest, error) {
	cfg := attack.PlanConfig{Count: c.count, Seed: c.seed}
	meta := planfile.Manifest{Crafter: map[string]any{"kind": c.crafter}}
	switch c.crafter {
	case attack.KindGradientCanary:
		if c.parameters < 1 {
			return cfg, meta, usagef("dpaudit canaries make: gradient_canary needs --parameters (the model's parameter count)")
		}
		cfg.Parameters = c.parameters
		return cfg, meta, nil
	case attack.KindRandomRecord:
		cfg.Crafter = attack.RandomRecord{Source: c.source}
	case attack.KindMislabeledRecord:
		cfg.Crafter = attack.MislabeledRecord{Source: c.source}
	case attack.KindNoiseInput:
		cfg.Crafter = attack.NoiseInput{Low: c.low, High: c.high, Label: int32(c.label)}
		meta.Crafter["low"], meta.Crafter["high"], meta.Crafter["label"] = c.low, c.high, c.label
	default:
		return cfg, meta, usagef("dpaudit canaries make: --crafter must be noise_input, mislabeled_record, random_record or gradient_canary, got %q", c.crafter)
	}
	if c.crafter != attack.KindNoiseInput {
		meta.Crafter["source"] = c.source
	}
	in, data, err := c.input()
	if err != nil {
		return cfg, meta, err
	}
	cfg.Input, meta.Data = in, data
	return cfg, meta, nil
}

// input is what the crafter may use: a data set's splits, or only a
// shape and a class count for noise inputs without one.
func (c *canaryFlags) input() (attack.CraftInput, map[string]any, error) {
	if c.fromDataset != "" {
		return c.inputFromSpec()
	}
	if c.dataset == "" {
		if c.crafter != attack.KindNoiseInput {
			return attack.CraftInput{}, nil, usagef("dpaudit canaries make: %s draws records: give --dataset", c.crafter)
		}
		shape, err := parseShape(c.shape)
		if err != nil || c.numClasses < 2 {
			return attack.CraftInput{}, nil, usagef("dpaudit canaries make: noise_input without --dataset needs --shape (e.g. 1,28,28) and --num-classes ≥ 2")
		}
		return attack.CraftInput{InShape: shape, Classes: c.numClasses}, map[string]any{"shape": shape, "classes": c.numClasses}, nil
	}
	dir := c.dataDir
	if dir == "" {
		dir = datasets.DefaultDataDir()
	}
	split, err := datasets.Load(datasets.Source{Name: c.dataset}, datasets.Options{Normalize: c.normalize}, dir)
	if err != nil {
		return attack.CraftInput{}, nil, canaryInput(err)
	}
	tr, te := split.Train, split.Test
	norm := c.normalize
	if norm == "" {
		norm = datasets.NormalizeAuto
	}
	data := map[string]any{"source": tr.Name, "normalize": norm, "train_records": tr.N, "test_records": te.N}
	return attack.CraftInput{InShape: tr.Shape, Classes: tr.Classes, X: tr.X, Y: tr.Y, PoolX: te.X, PoolY: te.Y}, data, nil
}

// inputFromSpec reads the records of a spec's dataset block (the user's
// own file, as a run reads it); the plan's manifest records the spec and
// every data file with its SHA-256.
func (c *canaryFlags) inputFromSpec() (attack.CraftInput, map[string]any, error) {
	if c.dataset != "" || c.normalize != "" {
		return attack.CraftInput{}, nil, usagef("dpaudit canaries make: --from-dataset takes the data and its normalisation from the spec's dataset block; drop --dataset and --normalize")
	}
	d, err := dpaudit.LoadSpecDataset(c.fromDataset, c.dataDir)
	if err != nil {
		if dpaudit.IsInputError(err) {
			return attack.CraftInput{}, nil, usagef("dpaudit canaries make: --from-dataset %v", err)
		}
		return attack.CraftInput{}, nil, err
	}
	tr, te := d.Split.Train, d.Split.Test
	norm := d.Normalize
	if norm == "" {
		norm = datasets.NormalizeAuto
	}
	data := map[string]any{"source": tr.Name, "spec": c.fromDataset, "normalize": norm, "train_records": tr.N, "test_records": te.N}
	if f := d.File; f != nil {
		files := []map[string]string{{"role": "train", "path": f.Train.Path, "sha256": f.Train.SHA256}}
		for _, r := range []struct {
			role string
			ref  *datasets.FileRef
		}{{"labels", f.Labels}, {"test", f.Test}} {
			if r.ref != nil {
				files = append(files, map[string]string{"role": r.role, "path": r.ref.Path, "sha256": r.ref.SHA256})
			}
		}
		data["files"] = files
	}
	return attack.CraftInput{InShape: tr.Shape, Classes: tr.Classes, X: tr.X, Y: tr.Y, PoolX: te.X, PoolY: te.Y}, data, nil
}

func parseShape(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad shape %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

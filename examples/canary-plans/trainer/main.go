// Command trainer plays "the user's trainer" of docs/canary-plans.md: a
// training pipeline that is not dpaudit's. It reads a canary plan
// written by `dpaudit canaries make`, trains a softmax regression with
// its own DP-SGD (Poisson sampling, per-example clipping, Gaussian
// noise) on MNIST plus the canaries whose member bit is true, scores
// every canary of the plan by its loss on the final model, and writes
// scores.csv (canary, score) for `dpaudit estimate --plan`.
//
// It uses dpaudit only to load MNIST (any loader giving the same pixels
// / 255 would do); the plan is read with arrow-go as any Parquet reader
// would read it, and the training code is written here, independently
// of dpaudit's trainer.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dpaudit/dpaudit/datasets"
)

// Config is one training run.
type Config struct {
	Plan, Out       string
	Train           int     // MNIST training records always included
	Sigma, Q, Clip  float64 // noise multiplier, sampling rate, clip norm C
	Steps           int
	LearningRate    float64
	Seed            uint64
	DataDir         string
	Dataset         string
	NonPrivate      bool // plain SGD on the same batches: no clipping, no noise
	Classes, Inputs int  // filled from the data
}

func main() {
	var c Config
	flag.StringVar(&c.Plan, "plan", "plan.parquet", "the canary plan")
	flag.StringVar(&c.Out, "out", "scores.csv", "where the scores go")
	flag.IntVar(&c.Train, "train", 10000, "MNIST training records")
	flag.Float64Var(&c.Sigma, "sigma", 1.0, "noise multiplier")
	flag.Float64Var(&c.Q, "q", 0.01, "Poisson sampling rate")
	flag.Float64Var(&c.Clip, "clip", 1.0, "clip norm C")
	flag.IntVar(&c.Steps, "steps", 1000, "DP-SGD steps")
	flag.Float64Var(&c.LearningRate, "lr", 0.5, "learning rate")
	flag.Uint64Var(&c.Seed, "seed", 1, "the trainer's own seed (batches, noise)")
	flag.StringVar(&c.DataDir, "data-dir", datasets.DefaultDataDir(), "where MNIST is")
	flag.StringVar(&c.Dataset, "dataset", "mnist", "the data set the plan's records came from")
	flag.BoolVar(&c.NonPrivate, "non-private", false, "train without clipping or noise (a broken DP-SGD)")
	flag.Parse()
	if err := Run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "trainer:", err)
		os.Exit(1)
	}
}

// planCanaries is what the trainer needs of a plan.
type planCanaries struct {
	id     []int64
	member []bool
	label  []int
	x      [][]float32
}

// readPlan reads the plan's canary, member, label and x columns.
func readPlan(path string) (*planCanaries, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		return nil, err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	p := &planCanaries{}
	sc := tbl.Schema()
	col := func(name string) []int {
		return sc.FieldIndices(name)
	}
	for _, name := range []string{"canary", "member", "label", "x"} {
		if len(col(name)) != 1 {
			return nil, fmt.Errorf("%s: no column %s (an input-canary plan has canary, member, label, x)", path, name)
		}
	}
	for _, ch := range tbl.Column(col("canary")[0]).Data().Chunks() {
		p.id = append(p.id, ch.(*array.Int64).Int64Values()...)
	}
	for _, ch := range tbl.Column(col("member")[0]).Data().Chunks() {
		b := ch.(*array.Boolean)
		for i := 0; i < b.Len(); i++ {
			p.member = append(p.member, b.Value(i))
		}
	}
	for _, ch := range tbl.Column(col("label")[0]).Data().Chunks() {
		for _, v := range ch.(*array.Int64).Int64Values() {
			p.label = append(p.label, int(v))
		}
	}
	for _, ch := range tbl.Column(col("x")[0]).Data().Chunks() {
		l := ch.(*array.List)
		vals := l.ListValues().(*array.Float32).Float32Values()
		for i := 0; i < l.Len(); i++ {
			lo, hi := l.ValueOffsets(i)
			p.x = append(p.x, vals[lo:hi])
		}
	}
	return p, nil
}

// Run trains once and writes the scores.
func Run(ctx context.Context, c Config) error {
	plan, err := readPlan(c.Plan)
	if err != nil {
		return err
	}
	split, err := datasets.Load(datasets.Source{Name: c.Dataset}, datasets.Options{TrainSize: c.Train, Seed: c.Seed}, c.DataDir)
	if err != nil {
		return err
	}
	tr := split.Train
	c.Classes, c.Inputs = tr.Classes, tr.D
	// The training set: the always-included records, then the member
	// canaries.
	var xs [][]float32
	var ys []int
	for i := 0; i < tr.N; i++ {
		xs, ys = append(xs, tr.Row(i)), append(ys, int(tr.Y[i]))
	}
	for j, in := range plan.member {
		if in {
			if len(plan.x[j]) != c.Inputs {
				return fmt.Errorf("canary %d has %d features, the data %d", plan.id[j], len(plan.x[j]), c.Inputs)
			}
			xs, ys = append(xs, plan.x[j]), append(ys, plan.label[j])
		}
	}
	w := train(ctx, c, xs, ys)
	return writeScores(c.Out, plan, w, c)
}

// train runs DP-SGD on softmax regression: weights (classes × (inputs+1)).
func train(ctx context.Context, c Config, xs [][]float32, ys []int) []float64 {
	k, d := c.Classes, c.Inputs+1
	w := make([]float64, k*d)
	r := rand.New(rand.NewPCG(c.Seed, 0xC0FFEE))
	grad, sum := make([]float64, k*d), make([]float64, k*d)
	expected := c.Q * float64(len(xs)) // the normaliser: a constant, as DP-SGD needs
	for step := 0; step < c.Steps && ctx.Err() == nil; step++ {
		clear(sum)
		for i := range xs {
			if r.Float64() >= c.Q {
				continue
			}
			gradient(w, xs[i], ys[i], k, d, grad)
			scale := 1.0
			if !c.NonPrivate {
				if n := norm(grad); n > c.Clip {
					scale = c.Clip / n
				}
			}
			for p, g := range grad {
				sum[p] += scale * g
			}
		}
		for p := range sum {
			if !c.NonPrivate {
				sum[p] += c.Sigma * c.Clip * r.NormFloat64()
			}
			w[p] -= c.LearningRate * sum[p] / expected
		}
	}
	return w
}

// gradient is the cross-entropy gradient of one record.
func gradient(w []float64, x []float32, y, k, d int, g []float64) {
	p := probabilities(w, x, k, d)
	for c := 0; c < k; c++ {
		e := p[c]
		if c == y {
			e--
		}
		row := g[c*d : (c+1)*d]
		for j, v := range x {
			row[j] = e * float64(v)
		}
		row[d-1] = e
	}
}

func probabilities(w []float64, x []float32, k, d int) []float64 {
	z := make([]float64, k)
	top := math.Inf(-1)
	for c := range z {
		row := w[c*d : (c+1)*d]
		s := row[d-1]
		for j, v := range x {
			s += row[j] * float64(v)
		}
		z[c] = s
		top = math.Max(top, s)
	}
	total := 0.0
	for c := range z {
		z[c] = math.Exp(z[c] - top)
		total += z[c]
	}
	for c := range z {
		z[c] /= total
	}
	return z
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// writeScores writes canary,score: every canary's cross-entropy loss on
// the final model (lower: more likely trained on).
func writeScores(path string, p *planCanaries, w []float64, c Config) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	b := bufio.NewWriter(f)
	fmt.Fprintln(b, "canary,score")
	for j := range p.id {
		pr := probabilities(w, p.x[j], c.Classes, c.Inputs+1)
		fmt.Fprintf(b, "%d,%.17g\n", p.id[j], -math.Log(math.Max(pr[p.label[j]], 1e-300)))
	}
	if err := b.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package report

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
)

// millionTrials writes one point's 10⁶ trials (world, llr, projection)
// and its summary row.
func millionTrials(b *testing.B) (*pipeline.Table, []TrialPart) {
	dir := b.TempDir()
	const n = 1_000_000
	r := rand.New(rand.NewPCG(1, 2))
	trial, world, llr, proj := make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	for i := range n {
		w := int64(i % 2)
		trial[i], world[i] = int64(i), w
		llr[i] = r.NormFloat64() + float64(w)
		proj[i] = r.NormFloat64()
	}
	t := &pipeline.Table{}
	t.Add("trial", pipeline.Int64, trial)
	t.Add("world", pipeline.Int64, world)
	t.Add("llr", pipeline.Float64, llr)
	t.Add("projection", pipeline.Float64, proj)
	path := filepath.Join(dir, "part-00000.parquet")
	if err := pipeline.WriteParquet(path, t); err != nil {
		b.Fatal(err)
	}
	sum := &pipeline.Table{}
	sum.Add("point_index", pipeline.Int64, []any{int64(0)})
	sum.Add("point_id", pipeline.String, []any{"p0"})
	sum.Add("target_epsilon", pipeline.Float64, []any{2.0})
	return sum, []TrialPart{{PointID: "p0", Path: path}}
}

// One figure over 10⁶ trial points, read from Parquet and drawn as PNG
// and SVG: the histogram bins every point, the scatter thins to
// MaxScatterPoints.
func BenchmarkMillionPointFigure(b *testing.B) {
	sum, parts := millionTrials(b)
	for _, src := range []string{
		`    - {kind: histogram, name: hist, table: trials, x: llr, color: world, bins: 100, where: "target_epsilon == 2"}`,
		`    - {kind: scatter, name: scatter, table: trials, x: projection, y: [llr], color: world}`,
	} {
		f := parseFigure(b, src)
		b.Run(f.Kind, func(b *testing.B) {
			for b.Loop() {
				fr, err := Load(f, sum, parts)
				if err != nil {
					b.Fatal(err)
				}
				if fr.N != 1_000_000 {
					b.Fatalf("%d rows", fr.N)
				}
				if _, err := Draw(f, fr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

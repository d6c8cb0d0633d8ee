package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks mark every m·10^k (m = 1…9) inside the range, labelling the
// decades; a range within one decade gets its ends labelled. (gonum's
// LogTicks drops the decades below 1 of a range such as [0.1, 4.9].)
var logTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	var out []plot.Tick
	labelled := 0
	for e := int(math.Floor(math.Log10(lo))) - 1; e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m <= 9; m++ {
			// Parsed from its decimal form: the nearest float to m·10^e.
			v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = strconv.FormatFloat(v, 'g', 3, 64)
				labelled++
			}
			out = append(out, t)
		}
	}
	if labelled > 8 {
		// Many decades: label every k-th, and drop the minor ticks.
		k := (labelled + 5) / 6
		thin := out[:0]
		for _, t := range out {
			if t.Label == "" {
				continue
			}
			if e := int(math.Round(math.Log10(t.Value))); e%k != 0 {
				t.Label = ""
			}
			thin = append(thin, t)
		}
		out = thin
	}
	if labelled < 3 {
		// Within two decades: label 1, 2 and 5 × 10^k as well.
		n := 0
		for i, t := range out {
			m := t.Value / math.Pow(10, math.Floor(math.Log10(t.Value)+1e-9))
			if r := math.Round(m); math.Abs(m-r) < 1e-6 && (r == 1 || r == 2 || r == 5) {
				out[i].Label = strconv.FormatFloat(t.Value, 'g', 3, 64)
				n++
			}
		}
		if n < 2 {
			for _, v := range []float64{lo, hi} {
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 2, 64)})
			}
		}
	}
	return out
})

// niceTicks labels a linear axis at 1, 2, 2.5 or 5 × 10^k steps (four to
// seven labels) with unlabelled minor ticks between.
var niceTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step, minorPer := 10*mag, 5
	for _, m := range []struct {
		f float64
		n int
	}{{1, 5}, {2, 4}, {2.5, 5}, {5, 5}} {
		if m.f*mag >= raw*0.999 {
			step, minorPer = m.f*mag, m.n
			break
		}
	}
	minor := step / float64(minorPer)
	first := math.Ceil(lo/minor - 1e-9)
	var out []plot.Tick
	for i := 0; ; i++ {
		k := first + float64(i)
		v := k * minor
		if v > hi+minor*1e-9 || i > 1000 {
			break
		}
		t := plot.Tick{Value: v}
		if r := k / float64(minorPer); math.Abs(r-math.Round(r)) < 1e-9 {
			t.Label = strconv.FormatFloat(math.Round(r)*step, 'g', 10, 64)
		}
		out = append(out, t)
	}
	return out
})

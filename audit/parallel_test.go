package audit

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

// parallelInputs are trials that reach every parallel path of Estimate
// (sorts of ≥ 2¹⁴ scores, thousands of candidate thresholds) and the
// small ones that do not, with ties across worlds and with −0 beside +0,
// whose order a sort leaves to the algorithm.
func parallelInputs() (names []string, scores [][]float64, worlds [][]bool) {
	for _, n := range []int{2, 3, 50, 20000} {
		for _, kind := range []string{"normal", "ties", "signed zeros"} {
			r := rng.New(5, "audit", "parallel test", n, kind)
			s, w := make([]float64, 2*n+1), make([]bool, 2*n+1)
			for i := range s {
				w[i] = i%2 == 1 || (i == 2*n && r.IntN(2) == 1)
				x := r.NormFloat64()
				if w[i] {
					x++
				}
				switch kind {
				case "ties":
					x = math.Round(2 * x)
				case "signed zeros":
					x = math.Copysign(0, x)
					if r.IntN(4) == 0 {
						x = 1
					}
				}
				s[i] = x
			}
			names = append(names, fmt.Sprintf("n=%d %s", n, kind))
			scores, worlds = append(scores, s), append(worlds, w)
		}
	}
	return names, scores, worlds
}

// parallelOptions are the threshold methods, each way up.
func parallelOptions() (names []string, opts []Options) {
	for _, low := range []bool{false, true} {
		for _, m := range []string{"split", "splits=3", "posthoc", "bonferroni", "bonferroni from trials"} {
			o := DefaultOptions()
			o.LowerMeansWorld1 = low
			switch m {
			case "splits=3":
				o.Splits = 3
			case "posthoc":
				o.Method = PostHoc
			case "bonferroni":
				o.Method = Bonferroni
			case "bonferroni from trials":
				o.Method, o.GridFromTrials = Bonferroni, true
			}
			names = append(names, fmt.Sprintf("%s lower=%v", m, low))
			opts = append(opts, o)
		}
	}
	return names, opts
}

// Estimate's result, every bit of it, does not depend on how many cores
// run it: the parallel parts write each value to a place chosen by its
// index and combine partial maxima, which any grouping gives alike. %#v
// prints each float exactly and tells −0 from +0 (reflect.DeepEqual does
// not), and it includes the unexported tests.
func TestEstimateSameOnAnyNumberOfCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	in, scores, worlds := parallelInputs()
	on, opts := parallelOptions()
	for i := range scores {
		for j, o := range opts {
			var want string
			for _, procs := range []int{1, 2, 4} {
				runtime.GOMAXPROCS(procs)
				r, err := Estimate(scores[i], worlds[i], o)
				if err != nil {
					t.Fatalf("%s, %s: %v", in[i], on[j], err)
				}
				got := fmt.Sprintf("%#v", r)
				if procs == 1 {
					want = got
				} else if got != want {
					t.Errorf("%s, %s: on %d cores\n%s\non 1 core\n%s", in[i], on[j], procs, got, want)
				}
			}
		}
	}
}

// Shuffling each world's scores is the same permutation of the same values
// as shuffling its trial indices and gathering the scores by index: both
// draw the same swaps from the split's stream, world 0 first.
func TestSplitScoresShuffleTrialIndices(t *testing.T) {
	scores, worlds := gaussianShift(2, 0, 20000, 1)
	const fraction, seed = 0.3, 9
	for j := range 3 {
		choose, eval := splitScores(byWorld(scores, worlds, false), fraction, seed, j)
		stream := rng.New(seed, "audit", "split")
		if j > 0 {
			stream = rng.New(seed, "audit", "split", j)
		}
		var want [2][2][]float64 // [world][choose, eval]
		for b, inWorld := range []bool{false, true} {
			var idx []int
			for i, w := range worlds {
				if w == inWorld {
					idx = append(idx, i)
				}
			}
			stream.Shuffle(len(idx), func(a, c int) { idx[a], idx[c] = idx[c], idx[a] })
			k := int(math.Round(fraction * float64(len(idx))))
			for m, i := range idx {
				part := min(m/k, 1)
				want[b][part] = append(want[b][part], scores[i])
			}
			slices.Sort(want[b][0])
			slices.Sort(want[b][1])
		}
		for _, c := range []struct {
			name      string
			got, want []float64
		}{
			{"choose, world 0", choose.w0, want[0][0]}, {"eval, world 0", eval.w0, want[0][1]},
			{"choose, world 1", choose.w1, want[1][0]}, {"eval, world 1", eval.w1, want[1][1]},
		} {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("split %d, %s: the shuffled scores differ from the scores of the shuffled trials", j, c.name)
			}
		}
	}
}

// Under Split, the ROC summaries read split 0's parts merged, not every
// trial sorted; they count only scores equal to or below each score, so
// they are the same numbers, even where −0 and +0 end up in another order.
func TestEstimateROCFromMergedSplit(t *testing.T) {
	in, scores, worlds := parallelInputs()
	for i := range scores {
		r, err := Estimate(scores[i], worlds[i], DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		all := newSortedScores(scores[i], worlds[i], nil)
		tpr := all.tprAtFPR([]float64{1e-3, 1e-2})
		got := []float64{r.MaxAccuracy, r.AUC, r.TPRAtFPR1e3, r.TPRAtFPR1e2}
		want := []float64{all.maxAccuracy(), all.auc(), tpr[0], tpr[1]}
		for k := range got {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Errorf("%s: summary %d is %v, every trial sorted gives %v", in[i], k, got[k], want[k])
			}
		}
	}
}

package attack

import (
	"slices"
	"strings"
	"testing"
)

// InputCanaries makes m DISTINCT records (a one-run audit needs each
// canary to be its own record), mislabelled ones with a label that is not
// the record's own, deterministically from the seed; it refuses more
// canaries than the source holds and crafters that make no records.
func TestInputCanaries(t *testing.T) {
	in := staticInput() // 100 training records, 100 pool records, 10 features
	for _, c := range []struct {
		cr    Crafter
		src   []int32 // labels of the source (nil: crafted inputs)
		train bool
	}{
		{MislabeledRecord{}, in.PoolY, false},
		{MislabeledRecord{Source: SourceTrain}, in.Y, true},
		{RandomRecord{}, in.PoolY, false},
		{NoiseInput{Low: 0, High: 1, Label: -1}, nil, false},
	} {
		set, err := InputCanaries(c.cr, in, 60)
		if err != nil {
			t.Fatalf("%s: %v", c.cr.Kind(), err)
		}
		again, _ := InputCanaries(c.cr, in, 60)
		seen := map[int]bool{}
		labels := map[int32]bool{}
		for j, r := range set.Records {
			if !slices.Equal(r.X, again.Records[j].X) || r.Y != again.Records[j].Y {
				t.Fatalf("%s: canary %d differs between two crafts with one seed", c.cr.Kind(), j)
			}
			labels[r.Y] = true
			i := set.Index[j]
			if c.src == nil {
				if i != -1 || set.Train[j] != -1 {
					t.Errorf("%s: crafted input %d has index %d / %d", c.cr.Kind(), j, i, set.Train[j])
				}
				continue
			}
			if seen[i] {
				t.Fatalf("%s: record %d used twice", c.cr.Kind(), i)
			}
			seen[i] = true
			if (set.Train[j] == i) != c.train || (!c.train && set.Train[j] != -1) {
				t.Errorf("%s: canary %d Train %d, Index %d", c.cr.Kind(), j, set.Train[j], i)
			}
			_, mislabel := c.cr.(MislabeledRecord)
			if (r.Y != c.src[i]) != mislabel {
				t.Errorf("%s: canary %d label %d, record's own %d", c.cr.Kind(), j, r.Y, c.src[i])
			}
		}
		if c.src == nil {
			// Crafted inputs are distinct too, and random labels use
			// both classes.
			if slices.Equal(set.Records[0].X, set.Records[1].X) || len(labels) != 2 {
				t.Errorf("noise canaries: identical inputs or labels %v", labels)
			}
		}
	}
	for _, c := range []struct {
		cr   Crafter
		m    int
		want string
	}{
		{MislabeledRecord{}, 101, "101 canaries, but there are 100 records of the pool"},
		{RandomRecord{Source: SourceTrain}, 100, "100 canaries, but there are 99 records of the training set"},
		{ConstantInput{}, 10, "constant_input does not make canary records"},
		{RandomRecord{PerTrial: true}, 10, "per_trial does not apply"},
		{NoiseInput{Low: 0, High: 1, Label: 2}, 10, "label 2, model has 2 classes"},
	} {
		if _, err := InputCanaries(c.cr, in, c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, m = %d: error %v, want %q", c.cr.Kind(), c.m, err, c.want)
		}
	}
	if n, _, _ := MaxInputCanaries(NoiseInput{Low: 0, High: 1}, 10, 10); n != -1 {
		t.Errorf("noise_input limit %d, want none (-1)", n)
	}
}

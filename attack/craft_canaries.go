package attack

import (
	"fmt"

	"github.com/dpaudit/dpaudit/rng"
)

// CanarySet is the canary records of a one-run audit with input canaries
// (Steinke, Nasr & Jagielski 2023, §7): m records, each of which the
// auditor then includes in the training set with probability ½.
type CanarySet struct {
	// Records are the m canaries, in canary order.
	Records []*Record
	// Train[j] is the training-set index canary j was taken from (source
	// train: it leaves the always-included part of the training set), -1
	// for a pool record or a crafted input.
	Train []int
	// Index[j] is the canary's index in its source (training set or
	// pool), -1 for a crafted input.
	Index []int
	// Notes describe the crafting for the results.
	Notes []string
}

// MaxInputCanaries is how many distinct canary records crafter c can make
// from a training set of trainN records and a pool of poolN: source pool
// draws without replacement from the pool; source train keeps at least
// one record that is not a canary, so the training set is never empty;
// noise_input crafts fresh inputs (no limit, -1). An error if c does not
// make records.
func MaxInputCanaries(c Crafter, trainN, poolN int) (int, string, error) {
	src, err := canarySource(c)
	if err != nil {
		return 0, "", err
	}
	switch src {
	case SourceTrain:
		return trainN - 1, "records of the training set (one must stay that is not a canary)", nil
	case SourcePool:
		return poolN, "records of the pool (the test split)", nil
	}
	return -1, "", nil
}

// canarySource is where c takes its canaries from: SourcePool,
// SourceTrain, or "" for crafted inputs.
func canarySource(c Crafter) (string, error) {
	src := ""
	switch k := c.(type) {
	case RandomRecord:
		if k.PerTrial {
			return "", invalidf("%s: every input canary is its own record already: per_trial does not apply", k.Kind())
		}
		src = k.Source
	case MislabeledRecord:
		src = k.Source
	case NoiseInput:
		return "", k.Validate()
	default:
		return "", invalidf("%s does not make canary records (want %s, %s or %s)", c.Kind(), KindRandomRecord, KindMislabeledRecord, KindNoiseInput)
	}
	if src == "" {
		src = SourcePool
	}
	return src, checkSource(c.Kind(), src)
}

// InputCanaries crafts m distinct canary records with crafter c: for the
// record crafters, m distinct records drawn without replacement (a seeded
// permutation) from the pool or the training set, mislabeled_record
// replacing each one's label by a different class drawn uniformly, as its
// single-record version does; for noise_input, m fresh uniform inputs with
// the fixed label (or a uniform class per canary when Label < 0). Every
// stream is rng.New(in.Seed, "attack/canaries", kind, …).
func InputCanaries(c Crafter, in CraftInput, m int) (*CanarySet, error) {
	src, err := canarySource(c)
	if err != nil {
		return nil, err
	}
	if err := in.validate(src == SourcePool); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Kind(), err)
	}
	limit, what, _ := MaxInputCanaries(c, len(in.Y), len(in.PoolY))
	if m < 1 || (limit >= 0 && m > limit) {
		return nil, invalidf("%s: %d canaries, but there are %d %s", c.Kind(), m, max(limit, 0), what)
	}
	D := in.inputSize()
	kind := c.Kind()
	set := &CanarySet{Records: make([]*Record, m), Train: make([]int, m), Index: make([]int, m)}
	if n, ok := c.(NoiseInput); ok {
		if int(n.Label) >= in.Classes {
			return nil, invalidf("%s: label %d, model has %d classes", kind, n.Label, in.Classes)
		}
		r := rng.New(in.Seed, "attack/canaries", kind)
		for j := range m {
			x := make(Floats, D)
			for i := range x {
				x[i] = float32(n.Low + (n.High-n.Low)*r.Float64())
			}
			y := n.Label
			if y < 0 {
				y = int32(r.IntN(in.Classes))
			}
			set.Records[j], set.Train[j], set.Index[j] = &Record{X: x, Y: y}, -1, -1
		}
		label := fmt.Sprintf("label %d", n.Label)
		if n.Label < 0 {
			label = "a uniform random label each"
		}
		set.Notes = append(set.Notes, fmt.Sprintf("%d uniform inputs on [%g, %g], %s", m, n.Low, n.High, label))
		return set, nil
	}
	X, Y := in.PoolX, in.PoolY
	if src == SourceTrain {
		X, Y = in.X, in.Y
	}
	perm := rng.New(in.Seed, "attack/canaries", kind, "records").Perm(len(Y))
	lr := rng.New(in.Seed, "attack/canaries", kind, "labels")
	_, mislabel := c.(MislabeledRecord)
	for j := range m {
		i := perm[j]
		rec := row(X, Y, D, i)
		if mislabel {
			rec.Y = int32((int(rec.Y) + 1 + lr.IntN(in.Classes-1)) % in.Classes)
		}
		set.Records[j], set.Index[j], set.Train[j] = rec, i, -1
		if src == SourceTrain {
			set.Train[j] = i
		}
	}
	how := "their own labels"
	if mislabel {
		how = "each label replaced by a different uniform class"
	}
	set.Notes = append(set.Notes, fmt.Sprintf("%d distinct records of the %s, %s", m, map[string]string{SourcePool: "pool", SourceTrain: "training set"}[src], how))
	return set, nil
}

package stages

import (
	"container/list"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/spec"
)

// DataParams is everything a loaded split depends on (the data directory
// is not: files are verified against pinned digests).
type DataParams struct {
	Source  datasets.Source  `json:"source"`
	Options datasets.Options `json:"options"`
}

// DatasetParams converts a spec dataset block for a model that takes flat
// vectors (flatten) or images. The subsample and synthetic data derive from
// the spec seed.
func DatasetParams(d *spec.Dataset, seed int64, flatten bool) (DataParams, error) {
	p := DataParams{Source: datasets.Source{Name: d.Source}}
	var c spec.DatasetCommon
	switch {
	case d.Digits != nil:
		c = d.Digits.DatasetCommon
		p.Source.TestFraction = d.Digits.TestFraction
	case d.MNIST != nil:
		c = d.MNIST.DatasetCommon
	case d.Fashion != nil:
		c = d.Fashion.DatasetCommon
	case d.Gaussian != nil:
		g := d.Gaussian
		c = g.DatasetCommon
		p.Source.N, p.Source.TestFraction = g.N, g.TestFraction
		p.Source.Shape, p.Source.NumClasses, p.Source.Separation = []int{g.Dim}, g.NumClasses, g.Separation
	case d.Purchase != nil:
		c = d.Purchase.DatasetCommon
		p.Source.N, p.Source.TestFraction, p.Source.NumClasses = d.Purchase.N, d.Purchase.TestFraction, d.Purchase.NumClasses
	case d.Adult != nil:
		c = d.Adult.DatasetCommon
		p.Source.N, p.Source.TestFraction = d.Adult.N, d.Adult.TestFraction
	case d.File != nil:
		c = d.File.DatasetCommon
		f, err := fileSourceOf(d.File)
		if err != nil {
			return p, err
		}
		p.Source.File = f
	default:
		return p, fmt.Errorf("dataset source %q has no loader", d.Source)
	}
	p.Options = datasets.Options{
		Classes: c.Classes, TrainSize: c.TrainSize, TestSize: c.TestSize,
		Normalize: c.Normalize, L2Ball: c.L2Ball, L2Exact: c.L2Exact,
		Flatten: flatten, Seed: rng.Seed(uint64(seed), "dataset"),
	}
	return p, nil
}

// dataCache keeps the most recently loaded splits in memory: every training
// run of a point (and of points that share the data) reads the same split.
// Loading is cheap (MNIST ≈ 80 ms) but a split of MNIST is ≈ 200 MB, so
// only a few are kept.
type dataCache struct {
	mu      sync.Mutex
	entries map[string]*list.Element
	order   *list.List // front = most recent
	max     int
}

type dataEntry struct {
	key   string
	once  sync.Once
	split *datasets.Split
	err   error
}

var splits = &dataCache{entries: map[string]*list.Element{}, order: list.New(), max: 3}

// LoadSplit returns the split for p, loading it at most once while cached.
func LoadSplit(p DataParams, dataDir string) (*datasets.Split, error) {
	kb, _ := json.Marshal(p)
	key := string(kb) + "\x00" + dataDir
	c := splits
	c.mu.Lock()
	el, ok := c.entries[key]
	if ok {
		c.order.MoveToFront(el)
	} else {
		el = c.order.PushFront(&dataEntry{key: key})
		c.entries[key] = el
		for c.order.Len() > c.max {
			old := c.order.Back()
			c.order.Remove(old)
			delete(c.entries, old.Value.(*dataEntry).key)
		}
	}
	e := el.Value.(*dataEntry)
	c.mu.Unlock()
	e.once.Do(func() { e.split, e.err = datasets.Load(p.Source, p.Options, dataDir) })
	return e.split, e.err
}

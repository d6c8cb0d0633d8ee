package attack

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/dpaudit/dpaudit/learn"
)

// Adjacency names how the two worlds of a crafted game differ.
type Adjacency string

const (
	// AddRemove: world 1 has one more record, or one more (canary)
	// gradient, than world 0. This is the adjacency the DP-SGD
	// accountants analyse.
	AddRemove Adjacency = "add_remove"
	// Replace: the worlds hold the same number of records and differ in
	// one of them (Target0 in world 0, Target in world 1). Its sensitivity
	// is up to 2C, so an add/remove accountant's ε does not bound it; a
	// crafter must declare it explicitly.
	Replace Adjacency = "replace"
)

// Record is a labelled example in the caller's layout (C×H×W for images),
// serialisable exactly (see Floats).
type Record struct {
	X Floats `json:"x"`
	Y int32  `json:"y"`
}

// learnRecord returns a copy the trainer may own.
func (r *Record) learnRecord() *learn.Record {
	return &learn.Record{X: append([]float32(nil), r.X...), Y: r.Y}
}

// Dataset is a training set chosen by the adversary (the malicious
// dataset of §IV-F): N records of InputSize features, row-major.
type Dataset struct {
	X Floats  `json:"x"`
	Y []int32 `json:"y"`
}

// Canary is a gradient canary (Nasr et al.'s malicious gradient, Crafter
// 4): the vector g with g[Coords[i]] = Signs[i]·Value and zeros elsewhere.
// Crafter 4 uses 2n coordinates, alternating signs and Value = C/√(2n)
// (rounded down in float32), so ‖g‖ = C and clipping leaves it unchanged.
type Canary struct {
	NumParams int       `json:"num_params"`
	Coords    []int     `json:"coords"`
	Signs     []int8    `json:"signs"`
	Value     float32   `json:"value"`
	ClipNorm  float64   `json:"clip_norm"`
	Measure   []float64 `json:"measure,omitempty"` // the selection statistic of each chosen coordinate, for diagnostics
}

// Dense returns g as a full parameter-length vector.
func (c *Canary) Dense() []float32 {
	g := make([]float32, c.NumParams)
	for i, p := range c.Coords {
		g[p] = float32(c.Signs[i]) * c.Value
	}
	return g
}

// Norm returns ‖g‖₂, computed in float64 from the stored float32 values.
func (c *Canary) Norm() float64 {
	v := float64(c.Value)
	return math.Sqrt(float64(len(c.Coords)) * v * v)
}

// unitWeights returns the canary direction u = g/‖g‖ as per-coordinate
// weights s_p/√(2n) over Coords.
func (c *Canary) unitWeights() []float64 {
	w := make([]float64, len(c.Coords))
	inv := 1 / math.Sqrt(float64(len(c.Coords)))
	for i, s := range c.Signs {
		w[i] = float64(s) * inv
	}
	return w
}

func (c *Canary) validate() error {
	if c.NumParams <= 0 {
		return invalidf("canary: num_params must be positive, got %d", c.NumParams)
	}
	if len(c.Coords) == 0 || len(c.Coords) != len(c.Signs) {
		return invalidf("canary: %d coordinates with %d signs", len(c.Coords), len(c.Signs))
	}
	seen := make(map[int]bool, len(c.Coords))
	for i, p := range c.Coords {
		if p < 0 || p >= c.NumParams {
			return invalidf("canary: coordinate %d out of range [0, %d)", p, c.NumParams)
		}
		if seen[p] {
			return invalidf("canary: coordinate %d chosen twice", p)
		}
		seen[p] = true
		if s := c.Signs[i]; s != 1 && s != -1 {
			return invalidf("canary: sign %d of coordinate %d, want ±1", s, p)
		}
	}
	if !(c.Value > 0) || math.IsInf(float64(c.Value), 0) {
		return invalidf("canary: value must be positive and finite, got %v", c.Value)
	}
	if !(c.ClipNorm > 0) {
		return invalidf("canary: clip norm must be positive, got %v", c.ClipNorm)
	}
	if n := c.Norm(); n > c.ClipNorm*(1+1e-12) {
		return invalidf("canary: norm %v exceeds the clip norm %v, so clipping would change it", n, c.ClipNorm)
	}
	return nil
}

// AdaptivePlan is what a trial in world 1 needs to regenerate the
// adaptive poison before every step (Crafter 3, §IV-D). See AdaptivePoison
// for the meaning of each field.
type AdaptivePlan struct {
	InnerSteps    int     `json:"inner_steps"`
	InputStepSize float64 `json:"input_step_size"`
	VirtualLR     float64 `json:"virtual_lr"`
	Label         int32   `json:"label"`
	Normalize     bool    `json:"normalize"`
	WarmStart     bool    `json:"warm_start"`
	ClipInVirtual bool    `json:"clip_in_virtual_step"`
	Method        string  `json:"method"`
	FeatureMin    float64 `json:"feature_min"`
	FeatureMax    float64 `json:"feature_max"`
}

// Crafted is the output of a crafter: everything a trial needs to build
// the two neighbouring worlds, in a form the craft stage can store
// (MarshalBinary/UnmarshalBinary, JSON underneath). It is read-only once
// made; a Game shares it between concurrent trials.
//
// World 0 trains on the base data: the caller's training set minus
// Exclude, or Dataset when the adversary chose the data; plus Target0
// under Replace adjacency. World 1 trains on the base data plus Target,
// or with Canary added to the clipped sum with probability q at every
// step, or with Target rewritten before every step (Adaptive).
type Crafted struct {
	// Kind is the crafter's kind, e.g. "gradient_canary".
	Kind string `json:"kind"`
	// Access is what the crafter used or needs in the trials.
	Access Access `json:"access"`
	// Products says what a distinguisher can work on.
	Products Products `json:"products"`
	// Adjacency is how the worlds differ (AddRemove or Replace).
	Adjacency Adjacency `json:"adjacency"`
	// InitSeed is the seed of the initial model θ_0 the crafter assumed
	// (learn.NewModel's seed). Trials start from it unless the game asks
	// for a fresh initialisation per trial.
	InitSeed uint64 `json:"init_seed"`
	// Init, if set, is θ₀ itself (the model of InitSeed's architecture,
	// trained further by the auditor: the worst-case initial parameters of
	// a last-iterate audit, Annamalai & De Cristofaro 2024). Trials start
	// from it; a fresh initialisation per trial is refused with it.
	Init Floats `json:"init,omitempty"`
	// Exclude lists indices of the caller's training set left out of both
	// worlds (e.g. the record that becomes Target, for "remove" adjacency).
	Exclude []int `json:"exclude,omitempty"`
	// Dataset, if set, replaces the caller's training set in both worlds.
	Dataset *Dataset `json:"dataset,omitempty"`
	// Target is world 1's differing record (the initial poison for an
	// adaptive attack).
	Target *Record `json:"target,omitempty"`
	// FreshFromPool draws Target (= Query) afresh in every trial, uniformly
	// from GameConfig's pool, with the trial's stream: Crafter 1's
	// protocol as written (a new sample of the distribution per trial).
	// Target then holds only a representative record for the checks.
	FreshFromPool bool `json:"fresh_from_pool,omitempty"`
	// Target0 is world 0's differing record under Replace adjacency.
	Target0 *Record `json:"target0,omitempty"`
	// Query is the record a loss distinguisher scores.
	Query *Record `json:"query,omitempty"`
	// Adaptive, if set, regenerates Target before every step in world 1.
	Adaptive *AdaptivePlan `json:"adaptive,omitempty"`
	// Canary is world 1's gradient canary.
	Canary *Canary `json:"canary,omitempty"`
	// LearningRate, if set, overrides the trials' learning rate (the
	// malicious dataset's 0).
	LearningRate *float64 `json:"learning_rate,omitempty"`
	// Notes are human-readable facts about the crafting (shadow losses,
	// reference-run length, …).
	Notes []string `json:"notes,omitempty"`
}

// Validate checks that the crafted worlds are one of the supported
// adjacencies and that the parts fit together. It does not know the model
// or the data; NewGame checks shapes against them.
func (c *Crafted) Validate() error {
	if c == nil {
		return invalidf("crafted result is nil")
	}
	if c.Kind == "" {
		return invalidf("crafted result has no kind")
	}
	worldOne := 0
	if c.Target != nil {
		worldOne++
	}
	if c.Canary != nil {
		worldOne++
		if err := c.Canary.validate(); err != nil {
			return err
		}
	}
	switch c.Adjacency {
	case AddRemove:
		if c.Target0 != nil {
			return invalidf("%s: world 0 has its own record (target0) but the adjacency is add_remove; a substitution must declare adjacency replace", c.Kind)
		}
		if worldOne != 1 {
			if worldOne == 0 {
				return invalidf("%s: the two worlds are identical (no target record and no canary)", c.Kind)
			}
			return invalidf("%s: world 1 adds both a record and a canary; add/remove adjacency allows one difference", c.Kind)
		}
	case Replace:
		if c.Target0 == nil || c.Target == nil || c.Canary != nil {
			return invalidf("%s: replace adjacency needs exactly a target0 and a target record and no canary", c.Kind)
		}
	default:
		return invalidf("%s: adjacency %q, want %q or %q", c.Kind, c.Adjacency, AddRemove, Replace)
	}
	for _, r := range []*Record{c.Target, c.Target0, c.Query} {
		if r != nil && len(r.X) == 0 {
			return invalidf("%s: a record has no features", c.Kind)
		}
	}
	if c.Adaptive != nil {
		if c.Target == nil || c.Query == nil {
			return invalidf("%s: an adaptive poison needs an initial target and a query record", c.Kind)
		}
		if c.Adaptive.InnerSteps < 1 || !(c.Adaptive.InputStepSize > 0) || !(c.Adaptive.VirtualLR > 0) {
			return invalidf("%s: adaptive plan needs inner_steps ≥ 1 and positive step sizes", c.Kind)
		}
	}
	if c.Dataset != nil {
		if len(c.Exclude) > 0 {
			return invalidf("%s: exclude refers to the caller's data, which the crafted dataset replaces", c.Kind)
		}
		if len(c.Dataset.Y) == 0 || len(c.Dataset.X)%len(c.Dataset.Y) != 0 {
			return invalidf("%s: crafted dataset has %d features for %d labels", c.Kind, len(c.Dataset.X), len(c.Dataset.Y))
		}
	}
	if c.LearningRate != nil && !(*c.LearningRate >= 0) {
		return invalidf("%s: learning rate override must be ≥ 0, got %v", c.Kind, *c.LearningRate)
	}
	frozen := c.LearningRate != nil && *c.LearningRate == 0
	if (c.Products&FreezesModel != 0) != frozen {
		return invalidf("%s: products say frozen_model = %v but the learning-rate override says %v", c.Kind, c.Products&FreezesModel != 0, frozen)
	}
	if c.Products&HasQuery != 0 && c.Query == nil {
		return invalidf("%s: products promise a query record but none is set", c.Kind)
	}
	if c.Products&HasCanary != 0 && c.Canary == nil {
		return invalidf("%s: products promise a canary but none is set", c.Kind)
	}
	return nil
}

// MarshalBinary encodes c (JSON; vectors as exact base64 float32 bits).
func (c *Crafted) MarshalBinary() ([]byte, error) {
	return json.Marshal(c)
}

// UnmarshalBinary decodes what MarshalBinary wrote and validates it.
func (c *Crafted) UnmarshalBinary(data []byte) error {
	var tmp Crafted
	if err := json.Unmarshal(data, &tmp); err != nil {
		return fmt.Errorf("attack: decode crafted result: %w", err)
	}
	if err := tmp.Validate(); err != nil {
		return err
	}
	*c = tmp
	return nil
}

// MarshalText writes the observation's spec name.
func (o Observation) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText parses a spec name.
func (o *Observation) UnmarshalText(b []byte) error {
	v, err := ParseObservation(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// MarshalJSON writes the capability set as a list of names.
func (c Capability) MarshalJSON() ([]byte, error) {
	names := []string{}
	for i, n := range capabilityNames {
		if c&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return json.Marshal(names)
}

// UnmarshalJSON parses a list of capability names.
func (c *Capability) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	v, err := ParseCapabilities(names)
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// MarshalJSON writes the products as a list of names.
func (p Products) MarshalJSON() ([]byte, error) {
	names := []string{}
	for i, n := range productNames {
		if p&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return json.Marshal(names)
}

// UnmarshalJSON parses a list of product names.
func (p *Products) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return err
	}
	var v Products
	for _, s := range names {
		found := false
		for i, n := range productNames {
			if s == n {
				v |= 1 << i
				found = true
			}
		}
		if !found {
			return invalidf("unknown product %q", s)
		}
	}
	*p = v
	return nil
}

package attack

import (
	"math"
)

// LossThreshold is Nasr et al.'s Distinguisher 1 (§IV-A/B, the
// loss-threshold membership attack of Yeom et al. 2018): the score is the
// cross-entropy loss of the crafted query record on the final model, and
// a low loss suggests world 1 (the record was trained on). Threat model:
// black-box loss queries on the final model. Cost: one forward pass.
type LossThreshold struct{}

// Kind implements Distinguisher.
func (LossThreshold) Kind() string { return KindLossThreshold }

// Access implements Distinguisher.
func (LossThreshold) Access() Access { return Access{Observe: ObserveBlackBox} }

// Accepts implements Distinguisher: it needs a query record.
func (d LossThreshold) Accepts(p Products) error { return needQuery(d.Kind(), p) }

// Validate implements Distinguisher.
func (LossThreshold) Validate() error { return nil }

// ScoreNames implements Distinguisher.
func (LossThreshold) ScoreNames() []string { return []string{"loss"} }

// LowerMeansWorld1 implements Distinguisher.
func (LossThreshold) LowerMeansWorld1() bool { return true }

// NewScorer implements Distinguisher.
func (d LossThreshold) NewScorer(info TrialInfo) (Scorer, error) {
	q, err := queryOf(d.Kind(), info)
	if err != nil {
		return nil, err
	}
	return &finalLossScorer{query: q}, nil
}

type finalLossScorer struct{ query *Record }

func (s *finalLossScorer) ObserveStep(StepView) error { return nil }

func (s *finalLossScorer) Finish(final LossOracle) ([]float64, error) {
	l, err := final.Loss(s.query.X, s.query.Y)
	if err != nil {
		return nil, err
	}
	return []float64{l}, nil
}

// Reductions of IntermediateLoss.
const (
	ReduceMax  = "max"
	ReduceMean = "mean"
)

// IntermediateLoss is Nasr et al.'s Distinguisher 2 (§IV-C/D, white-box
// membership attack): the loss of the query record on every intermediate
// model θ_1, …, θ_T (θ_T is the final model; θ_0 is skipped, it does not
// depend on the world), reduced by max or mean. Low scores suggest world 1.
// Both reductions are returned (the paper takes the better one: max for
// ε ≤ 2, mean above); Reduce picks the primary. Threat model: every
// intermediate model. Cost: one forward pass of one record per step.
type IntermediateLoss struct {
	// Reduce is ReduceMax (default) or ReduceMean.
	Reduce string
}

// Kind implements Distinguisher.
func (IntermediateLoss) Kind() string { return KindIntermediateLoss }

// Access implements Distinguisher.
func (IntermediateLoss) Access() Access { return Access{Observe: ObserveIntermediateModels} }

// Accepts implements Distinguisher: it needs a query record.
func (d IntermediateLoss) Accepts(p Products) error { return needQuery(d.Kind(), p) }

// Validate implements Distinguisher.
func (d IntermediateLoss) Validate() error {
	switch d.Reduce {
	case "", ReduceMax, ReduceMean:
		return nil
	}
	return invalidf("%s: reduce %q, want %q or %q", d.Kind(), d.Reduce, ReduceMax, ReduceMean)
}

// ScoreNames implements Distinguisher.
func (d IntermediateLoss) ScoreNames() []string {
	if d.Reduce == ReduceMean {
		return []string{"mean_loss", "max_loss"}
	}
	return []string{"max_loss", "mean_loss"}
}

// LowerMeansWorld1 implements Distinguisher.
func (IntermediateLoss) LowerMeansWorld1() bool { return true }

// NewScorer implements Distinguisher.
func (d IntermediateLoss) NewScorer(info TrialInfo) (Scorer, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	q, err := queryOf(d.Kind(), info)
	if err != nil {
		return nil, err
	}
	return &intermediateLossScorer{query: q, meanFirst: d.Reduce == ReduceMean, max: math.Inf(-1)}, nil
}

type intermediateLossScorer struct {
	query     *Record
	meanFirst bool
	max, sum  float64
	n         int
}

func (s *intermediateLossScorer) add(l float64) {
	s.max = math.Max(s.max, l)
	s.sum += l
	s.n++
}

func (s *intermediateLossScorer) ObserveStep(v StepView) error {
	if v.Step() == 0 {
		return nil // θ_0 is the same in both worlds
	}
	l, err := v.Loss(s.query.X, s.query.Y)
	if err != nil {
		return err
	}
	s.add(l)
	return nil
}

func (s *intermediateLossScorer) Finish(final LossOracle) ([]float64, error) {
	l, err := final.Loss(s.query.X, s.query.Y)
	if err != nil {
		return nil, err
	}
	s.add(l)
	mean := s.sum / float64(s.n)
	if s.meanFirst {
		return []float64{mean, s.max}, nil
	}
	return []float64{s.max, mean}, nil
}

func needQuery(kind string, p Products) error {
	if p&HasQuery == 0 {
		return invalidf("%s scores a query record, and the crafter provides none (it provides %s)", kind, p)
	}
	return nil
}

func queryOf(kind string, info TrialInfo) (*Record, error) {
	if info.Crafted == nil || info.Crafted.Query == nil {
		return nil, invalidf("%s: the crafted result has no query record", kind)
	}
	return info.Crafted.Query, nil
}

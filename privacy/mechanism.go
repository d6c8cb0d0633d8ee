package privacy

import (
	"fmt"
	"math"
)

// Adjacency names which pairs of datasets the guarantee compares.
type Adjacency string

const (
	// AdjacencyAddRemove (the zero value): D′ is D with one record added
	// or removed. The Poisson-subsampled Gaussian's dominating pairs are
	// (1−q)N(0,σ²) + qN(−1,σ²) against N(0,σ²) (remove) and its mirror
	// (add), composed separately; δ is the larger (dp_accounting's
	// ADD_OR_REMOVE_ONE).
	AdjacencyAddRemove Adjacency = "add_remove"
	// AdjacencyReplaceOne: D′ is D with one record replaced by another
	// (substitution; the dataset size is public). Each record's clipped
	// gradient has norm ≤ C, so the sum moves by up to 2C, but under
	// Poisson sampling only when the record is sampled: the exact
	// dominating pair is the ±C mixture pair
	//
	//	P = (1−q)N(0,σ²) + qN(−1,σ²),   Q = (1−q)N(0,σ²) + qN(1,σ²)
	//
	// (dp_accounting's REPLACE_ONE, its PLD's AdjacencyType.REPLACE;
	// Koskela, Jälkö & Honkela 2020 §5.2, the "S" relation). The pair is
	// its own mirror image, so one PLD serves both orientations.
	AdjacencyReplaceOne Adjacency = "replace_one"
	// AdjacencyReplaceOneSigmaHalf is replace-one accounted as add/remove
	// with sensitivity 2C, i.e. the add/remove accountant at σ/2: a valid
	// upper bound (any replacement is a removal followed by an addition
	// inside one sampled batch, of total norm ≤ 2C), but loose — at
	// q = 0.01, σ = 1.1, T = 3000, δ = 1e-5 it gives ε ≈ 18 where the exact
	// pair gives ≈ 5 (RDP). Kept because it is what many analyses quote.
	AdjacencyReplaceOneSigmaHalf Adjacency = "replace_one_sigma_half"
)

// Sampling names how each step's batch is drawn.
type Sampling string

const (
	// SamplingPoisson (the zero value): every record is in each batch
	// independently with probability SamplingRate.
	SamplingPoisson Sampling = "poisson"
	// SamplingFixedSize: each batch is a uniformly random subset of fixed
	// size b of the n records, drawn afresh (without replacement within a
	// batch) each step; SamplingRate is b/n. Accounted under replace-one
	// adjacency only, as dp_accounting's SampledWithoutReplacementDpEvent
	// (with add/remove the dataset size, hence b/n, would change).
	SamplingFixedSize Sampling = "fixed_size"
	// SamplingBallsInBins: every epoch each record is put into one of
	// StepsPerEpoch batches uniformly at random, independently of the
	// others (random allocation; Chua et al., AISTATS 2025; Feldman &
	// Shenfeld 2025; dp_accounting's RandomAllocationDpEvent with one
	// selection). Add/remove adjacency; accounted by PLD only.
	SamplingBallsInBins Sampling = "balls_in_bins"
	// SamplingShuffle: a fresh random permutation per epoch cut into
	// batches. No tight upper bound on its privacy is known (Poisson
	// accounting of it is not valid: Chua et al., ICML 2024), so every
	// accountant refuses it; ShuffleEpsilonLB gives a lower bound.
	SamplingShuffle Sampling = "shuffle"
)

// ErrNoAccountant is wrapped (together with ErrInvalid) when a mechanism
// has no valid accountant of the kind asked for: a shuffled sampler, a
// sampler under an adjacency it is not analysed for, or an accountant
// that does not cover the sampler.
var ErrNoAccountant = fmt.Errorf("no valid accountant")

func noAccountantf(format string, args ...any) error {
	return fmt.Errorf("%w: %w: %s", ErrInvalid, ErrNoAccountant, fmt.Sprintf(format, args...))
}

func (a Adjacency) orDefault() Adjacency {
	if a == "" {
		return AdjacencyAddRemove
	}
	return a
}

func (s Sampling) orDefault() Sampling {
	if s == "" {
		return SamplingPoisson
	}
	return s
}

// checkForm validates the adjacency and sampler of m and their
// combination (not yet which accountant covers them: see supports).
func (m SampledGaussian) checkForm() error {
	adj, smp := m.Adjacency.orDefault(), m.Sampling.orDefault()
	switch adj {
	case AdjacencyAddRemove, AdjacencyReplaceOne, AdjacencyReplaceOneSigmaHalf:
	default:
		return invalidf("unknown adjacency %q (want add_remove, replace_one or replace_one_sigma_half)", string(adj))
	}
	switch smp {
	case SamplingPoisson:
	case SamplingFixedSize:
		if adj == AdjacencyAddRemove {
			return noAccountantf("fixed-size sampling without replacement is accounted under replace-one adjacency only (adding a record changes the dataset size, hence the sampling rate b/n); claim replace_one")
		}
	case SamplingBallsInBins:
		if adj != AdjacencyAddRemove {
			return noAccountantf("balls-in-bins (random allocation) is accounted under add/remove adjacency only")
		}
		if _, err := m.bins(); err != nil {
			return err
		}
	case SamplingShuffle:
		return noAccountantf("shuffled batches have no known tight upper bound on ε (accounting them as Poisson is not valid: Chua et al., ICML 2024); audit against a lower bound (ShuffleEpsilonLB) or claim poisson, fixed_size or balls_in_bins sampling")
	default:
		return invalidf("unknown sampling %q (want poisson, fixed_size, balls_in_bins or shuffle)", string(smp))
	}
	return nil
}

// bins returns the number of batches per epoch of balls-in-bins sampling:
// StepsPerEpoch, or 1/SamplingRate when that is an integer.
func (m SampledGaussian) bins() (int, error) {
	if m.StepsPerEpoch > 0 {
		return m.StepsPerEpoch, nil
	}
	if m.StepsPerEpoch < 0 {
		return 0, invalidf("steps per epoch must be ≥ 1, got %d", m.StepsPerEpoch)
	}
	t := math.Round(1 / m.SamplingRate)
	if t < 1 || math.Abs(t*m.SamplingRate-1) > 1e-9 {
		return 0, invalidf("balls-in-bins sampling needs an integer number of batches per epoch: set StepsPerEpoch (1/q = %v is not an integer)", 1/m.SamplingRate)
	}
	return int(t), nil
}

// epochs is the number of balls-in-bins epochs that cover m.Steps steps:
// a partial last epoch is accounted as a whole one (its steps are a
// post-processing of the whole epoch's).
func (m SampledGaussian) epochs() (bins, epochs int, err error) {
	t, err := m.bins()
	if err != nil {
		return 0, 0, err
	}
	return t, (m.Steps + t - 1) / t, nil
}

// isStandard reports whether m is the Poisson add/remove mechanism (or its
// σ/2 replace-one bound, which is that mechanism at σ/2).
func (m SampledGaussian) isStandard() bool {
	return m.Sampling.orDefault() == SamplingPoisson && m.Adjacency.orDefault() != AdjacencyReplaceOne
}

// accountedSigma is the noise multiplier of the add/remove mechanism a
// standard m is accounted as: σ/2 for the σ/2 replace-one bound.
func (m SampledGaussian) accountedSigma() float64 {
	if m.Adjacency.orDefault() == AdjacencyReplaceOneSigmaHalf {
		return m.NoiseMultiplier / 2
	}
	return m.NoiseMultiplier
}

// supports reports whether accountant acc (not best) is valid for m, and
// if not, why.
func (m SampledGaussian) supports(acc Accountant) error {
	switch acc {
	case AccountantGDP:
		if !m.isStandard() {
			return noAccountantf("the GDP accountant covers the Poisson-subsampled Gaussian under add/remove adjacency only (%s sampling, %s adjacency asked); use pld or rdp", m.Sampling.orDefault(), m.Adjacency.orDefault())
		}
	case AccountantRDP:
		if m.Sampling.orDefault() == SamplingBallsInBins {
			return noAccountantf("the RDP accountant does not cover balls-in-bins sampling (as dp_accounting's); use pld")
		}
	}
	return nil
}

// CheckAccountable reports whether accountant acc can account m (every
// accountant of AccountantBest when acc is best: best takes the smallest
// of those that can), and if not, why: an error wrapping ErrInvalid, and
// ErrNoAccountant when the parameters are fine but no accountant of that
// kind is valid for the sampler and adjacency. A spec's claim is checked
// with it before any trial runs.
func CheckAccountable(acc Accountant, m SampledGaussian) error {
	if err := acc.check(); err != nil {
		return err
	}
	if err := m.check(); err != nil {
		return err
	}
	if acc == AccountantBest {
		return nil
	}
	return m.supports(acc)
}

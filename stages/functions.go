package stages

import (
	"fmt"
	"math"
	"sync"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/spec"
)

// Memo caches expensive expression calls (noise calibrations) in the store
// across runs. Lookups only read; new results are kept in memory until
// Flush, which the runner calls once the spec has validated, so that
// validation and plans write nothing.
type Memo struct {
	store    *pipeline.Store // nil: no persistence
	mu       sync.Mutex
	pending  map[string]memoEntry
	inflight map[string]*memoCall // one computation per key, even when sweep points are expanded in parallel
}

type memoCall struct {
	done chan struct{}
	v    float64
	err  error
}

type memoEntry struct {
	ns   string
	args any
	v    float64
}

// NewMemo returns a memo over store (which may be nil).
func NewMemo(store *pipeline.Store) *Memo {
	return &Memo{store: store, pending: map[string]memoEntry{}, inflight: map[string]*memoCall{}}
}

func (m *Memo) get(ns string, args []any, compute func() (float64, error)) (float64, error) {
	key := fmt.Sprint(ns, args)
	m.mu.Lock()
	if e, ok := m.pending[key]; ok {
		m.mu.Unlock()
		return e.v, nil
	}
	if c, ok := m.inflight[key]; ok {
		m.mu.Unlock()
		<-c.done
		return c.v, c.err
	}
	c := &memoCall{done: make(chan struct{})}
	m.inflight[key] = c
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.inflight, key)
		if c.err == nil {
			m.pending[key] = memoEntry{ns, args, c.v}
		}
		m.mu.Unlock()
		close(c.done)
	}()
	if m.store != nil && m.store.MemoGet(ns, args, &c.v) {
		return c.v, nil
	}
	c.v, c.err = compute()
	return c.v, c.err
}

// Flush writes new memo entries to the store.
func (m *Memo) Flush() error {
	if m == nil || m.store == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, e := range m.pending {
		if err := m.store.MemoPut(e.ns, e.args, e.v); err != nil {
			return err
		}
		delete(m.pending, k)
	}
	return nil
}

// Functions returns what spec expressions may call: the math functions of
// spec.MathFunctions plus
//
//	calibrate(target_epsilon, delta, sampling_rate, steps[, accountant])  → noise multiplier
//	calibrate("tpr_at_fpr=0.05@0.01", sampling_rate, steps[, accountant]) → noise multiplier for a risk target (functions_risk.go)
//	epsilon(noise_multiplier, sampling_rate, steps, delta[, accountant])   → ε
//	delta(noise_multiplier, sampling_rate, steps, epsilon[, accountant])   → δ
//	bernau_noise(rho_beta, delta, steps)                                  → full-batch z for ρ_β (functions_identify.go)
//
// for the Poisson-subsampled Gaussian (add/remove adjacency). The
// accountant is "best" (default: the smallest valid upper bound of RDP and
// PLD, so a calibration never asks for more noise than either proves
// enough), "pld" (interval 1e-4, coarsened where the grid would be too
// large), "rdp" (improved conversion) or "gdp" (CLT approximation, exact at
// q = 1).
func Functions(m *Memo) map[string]spec.Func {
	f := spec.MathFunctions()
	f["calibrate"] = func(args ...any) (any, error) {
		if len(args) > 0 && isText(args[0]) {
			return calibrateTarget(m, args)
		}
		a, acc, err := dpArgs("calibrate", "target_epsilon, delta, sampling_rate, steps", 3, args)
		if err != nil {
			return nil, err
		}
		return m.get("calibrate", []any{acc, a[0], a[1], a[2], a[3]}, func() (float64, error) {
			return privacy.Calibrate(privacy.Accountant(acc), a[0], a[1], a[2], int(a[3]), privacy.Options{})
		})
	}
	f["epsilon"] = func(args ...any) (any, error) {
		a, acc, err := dpArgs("epsilon", "noise_multiplier, sampling_rate, steps, delta", 2, args)
		if err != nil {
			return nil, err
		}
		return m.get("epsilon", []any{acc, a[0], a[1], a[2], a[3]}, func() (float64, error) {
			return privacy.Epsilon(privacy.Accountant(acc), privacy.SampledGaussian{NoiseMultiplier: a[0], SamplingRate: a[1], Steps: int(a[2])}, a[3], privacy.Options{})
		})
	}
	f["delta"] = func(args ...any) (any, error) {
		a, acc, err := dpArgs("delta", "noise_multiplier, sampling_rate, steps, epsilon", 2, args)
		if err != nil {
			return nil, err
		}
		return m.get("delta", []any{acc, a[0], a[1], a[2], a[3]}, func() (float64, error) {
			return privacy.Delta(privacy.Accountant(acc), privacy.SampledGaussian{NoiseMultiplier: a[0], SamplingRate: a[1], Steps: int(a[2])}, a[3], privacy.Options{})
		})
	}
	f["bernau_noise"] = bernauNoise
	f["mf_sensitivity"] = mfSensitivity
	return f
}

// mfSensitivity is mf_sensitivity(bands, steps, min_sep[,
// max_participations]): the sensitivity of the b-banded optimal Toeplitz
// strategy (dpsgd.correlated with bands b and no coefficients) over T
// steps when a record's steps are at least min_sep apart (cyclic
// sampling with g groups: min_sep = g), privacy.ToeplitzSensitivity. The
// matrix mechanism is then the Gaussian mechanism at σ/sensitivity, so
// σ = mf_sensitivity(…) · calibrate(ε, δ, 1, 1) calibrates it to ε.
func mfSensitivity(args ...any) (any, error) {
	if len(args) != 3 && len(args) != 4 {
		return nil, fmt.Errorf("mf_sensitivity(bands, steps, min_sep[, max_participations]) takes 3 or 4 arguments, got %d", len(args))
	}
	var a [4]int
	for i, v := range args {
		x, err := spec.ToFloat(v)
		if err != nil {
			return nil, fmt.Errorf("mf_sensitivity: argument %d: %v", i+1, err)
		}
		least := 1.0 // bands, steps and min_sep; max_participations may be 0 (no limit)
		if i == 3 {
			least = 0
		}
		if x != math.Trunc(x) || x < least {
			return nil, fmt.Errorf("mf_sensitivity: argument %d must be a whole number ≥ %v, got %v", i+1, least, x)
		}
		a[i] = int(x)
	}
	return privacy.ToeplitzSensitivity(privacy.OptimalToeplitzCoefficients(a[0]), a[1], privacy.Participation{MinSep: a[2], MaxParticipations: a[3]})
}

// dpArgs reads four numbers and an optional accountant name; argument
// stepsAt (steps) must be a whole number.
func dpArgs(fn, names string, stepsAt int, args []any) ([4]float64, string, error) {
	var a [4]float64
	if len(args) != 4 && len(args) != 5 {
		return a, "", fmt.Errorf("%s(%s[, accountant]) takes 4 or 5 arguments, got %d", fn, names, len(args))
	}
	for i := 0; i < 4; i++ {
		v, err := spec.ToFloat(args[i])
		if err != nil {
			return a, "", fmt.Errorf("%s: argument %d: %v", fn, i+1, err)
		}
		a[i] = v
	}
	if a[stepsAt] != math.Trunc(a[stepsAt]) || a[stepsAt] < 1 {
		return a, "", fmt.Errorf("%s: steps must be a whole number ≥ 1, got %v (use ceil())", fn, a[stepsAt])
	}
	acc := "best"
	if len(args) == 5 {
		s, ok := args[4].(string)
		if !ok || (s != "best" && s != "pld" && s != "rdp" && s != "gdp") {
			return a, "", fmt.Errorf("%s: accountant must be \"best\", \"pld\", \"rdp\" or \"gdp\", got %v", fn, args[4])
		}
		acc = s
	}
	return a, acc, nil
}

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
	"github.com/dpaudit/dpaudit/stages/bound"
)

// boundKinds are the kinds "dpaudit bound" computes, with the flags each
// accepts besides the DP-SGD ones (which every kind accepts where it can
// account ε from them) and --json.
var boundKinds = map[string][]string{
	"rero":        {"prior-size", "kappa", "method", "samples", "seed", "confidence", "tolerance", "compare"},
	"mse_rdp":     {"epsilon", "soft-clip", "diameter"},
	"minimax_mse": {"epsilon", "models", "diameter", "dimension", "effective-dimension", "alpha", "mdp-constant", "accountant", "conversion"},
	"belief":      {"epsilon", "target-rho-beta", "target-rho-alpha", "accountant", "conversion"},
}

// boundPrefixes are stripped from column names for the JSON keys and the
// text output ("rero_gamma" → "gamma").
var boundPrefixes = map[string]string{"rero": "rero_", "mse_rdp": "mse_rdp_", "minimax_mse": "minimax_", "belief": "belief_"}

// boundFlags are the flags of "dpaudit bound" beyond the DP-SGD ones.
type boundFlags struct {
	priorSize                 int
	kappa                     float64
	method                    string
	samples                   int
	seed                      int64
	confidence, tolerance     float64
	compare                   multiFlag
	epsilon                   float64
	softClip                  bool
	diameter                  float64
	models, dimension         int
	effectiveDimension        string
	alpha                     float64
	mdpConstant               string
	targetRhoBeta, targetRhoA float64
}

func (b *boundFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&b.priorSize, "prior-size", 0, "rero: n, a uniform prior over n ≥ 2 candidates (κ = 1/n)")
	fs.Float64Var(&b.kappa, "kappa", 0, "rero: the prior's baseline success κ ∈ (0, 1), instead of --prior-size")
	fs.StringVar(&b.method, "method", "exact", "rero: exact, robust or montecarlo (the paper's Algorithm 1)")
	fs.IntVar(&b.samples, "samples", 1_000_000, "rero: Monte Carlo samples N (robust, montecarlo, guo_fano_mc); ⌈κN⌉ ≥ 100")
	fs.Int64Var(&b.seed, "seed", 0, "rero: the seed Monte Carlo streams derive from (as a spec's seed)")
	fs.Float64Var(&b.confidence, "confidence", 0.999, "rero: confidence of the Monte Carlo interval")
	fs.Float64Var(&b.tolerance, "tolerance", 1e-3, "rero: exact method's largest bracket width")
	fs.Var(&b.compare, "compare", "rero: comparators rdp, guo_fano, guo_fano_mc (comma-separated or repeated)")
	fs.Float64Var(&b.epsilon, "epsilon", 0, "ε (nats) when the bound takes it directly, instead of the DP-SGD flags")
	fs.BoolVar(&b.softClip, "soft-clip", false, "mse_rdp: DP-SGD used Guo et al.'s soft clip (σ/1.115)")
	fs.Float64Var(&b.diameter, "diameter", 1, "mse_rdp: range of every coordinate; minimax_mse: diameter of the data space")
	fs.IntVar(&b.models, "models", 1, "minimax_mse: n, trained models the adversary observes")
	fs.IntVar(&b.dimension, "dimension", 0, "minimax_mse: data dimension d (adds the high-dimensional and Guo et al. bounds)")
	fs.StringVar(&b.effectiveDimension, "effective-dimension", "low", "minimax_mse: d̃ = d·ln 2 (low) or d·ln 5 (high)")
	fs.Float64Var(&b.alpha, "alpha", 2, "minimax_mse: Rényi order α of Corollary E.2")
	fs.StringVar(&b.mdpConstant, "mdp-constant", "paper", "minimax_mse: Theorem E.4 constant, paper or separation_corrected")
	fs.Float64Var(&b.targetRhoBeta, "target-rho-beta", 0, "belief: choose ε from a target posterior belief ρ_β ∈ (0.5, 1)")
	fs.Float64Var(&b.targetRhoA, "target-rho-alpha", 0, "belief: choose ε from a target advantage ρ_α ∈ (0, 1) at --delta")
}

var dpsgdFlagNames = []string{"noise-multiplier", "sampling-rate", "steps", "epochs", "dataset-size", "batch-size"}

func cmdBound(args []string, stdout, stderr io.Writer) error {
	fs, m, b := boundFlagSet(stderr)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("dpaudit bound: give one KIND: rero, mse_rdp, minimax_mse or belief (see dpaudit bound --help)")
	}
	kind := pos[0]
	bad := func(format string, args ...any) error {
		return usagef("dpaudit bound %s: %s", kind, fmt.Sprintf(format, args...))
	}
	set, err := boundFlagsSet(fs, kind, bad)
	if err != nil {
		return err
	}
	d, err := boundMechanism(kind, set, m, b, bad)
	if err != nil {
		return err
	}
	entry, err := b.entry(kind, set, d, *m, bad)
	if err != nil {
		return err
	}
	outs, err := bound.Values(entry, d, b.seed)
	if err != nil {
		var pe *stages.PathError
		if errors.As(err, &pe) || errors.Is(err, bounds.ErrInvalid) {
			return bad("%v", unwrapPath(err))
		}
		return err
	}
	in := boundInputs(kind, entry, d, *b)
	if m.asJSON {
		out := map[string]any{}
		for k, v := range in {
			out[k] = v
		}
		for _, o := range outs {
			out[strings.TrimPrefix(o.Name, boundPrefixes[kind])] = jsonValue(o.Value)
		}
		return json.NewEncoder(stdout).Encode(out)
	}
	printBound(stdout, kind, in, outs)
	return nil
}

// boundFlagSet declares the flags of "dpaudit bound": the DP-SGD ones (σ
// optional, the papers' classic RDP conversion by default) and every
// kind's own.
func boundFlagSet(stderr io.Writer) (*flag.FlagSet, *mechFlags, *boundFlags) {
	fs := newFlags("bound", "KIND [DP-SGD flags] [--epsilon ε] [kind flags] [--json]",
		`Computes a theoretical bound on what an attacker can learn from DP-SGD, as the
bound entries of a spec do (same columns, same numbers). KIND is one of
  rero         reconstruction robustness (Hayes et al. 2023): --prior-size n or --kappa κ
  mse_rdp      MSE lower bound of unbiased reconstruction (Guo et al. 2022): --epsilon ε₂ or DP-SGD
  minimax_mse  minimax reconstruction-error bounds (Mukherjee & Lokam 2023): --epsilon ε or DP-SGD
  belief       posterior belief ρ_β and advantage ρ_α (Bernau et al. 2021): --epsilon ε,
               --target-rho-beta, --target-rho-alpha, or DP-SGD
DP-SGD flags: --noise-multiplier σ (--sampling-rate q --steps T | --batch-size B
--dataset-size N --epochs E) [--delta δ]; ε is then accounted (--accountant,
--conversion) where a bound needs it.`, stderr)
	m := &mechFlags{}
	m.register(fs, true, "rdp")
	// σ is optional here: a bound given --epsilon needs no mechanism.
	fs.Lookup("noise-multiplier").Usage = "σ: noise std / clipping norm (with --sampling-rate and --steps, when ε is not given)"
	// The papers convert RDP to (ε, δ) with Mironov's classic formula; the
	// spec's default is the same.
	m.conversion = "classic"
	fs.Lookup("conversion").DefValue = "classic"
	fs.Lookup("accountant").Usage = "minimax_mse, belief: the accountant of ε from the DP-SGD flags, rdp, pld or gdp"
	fs.Lookup("pld-interval").Usage = "not used by bound (accounted ε uses the PLD's default interval)"
	fs.Lookup("pld-memory").Usage = "not used by bound"
	b := &boundFlags{}
	b.register(fs)
	return fs, m, b
}

// boundFlagsSet returns the flags given on the command line, refusing the
// flags of another kind and the PLD tuning flags a bound does not use.
func boundFlagsSet(fs *flag.FlagSet, kind string, bad func(string, ...any) error) (map[string]bool, error) {
	allowed, ok := boundKinds[kind]
	if !ok {
		return nil, usagef("dpaudit bound: unknown kind %q; one of rero, mse_rdp, minimax_mse, belief", kind)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name := range set {
		if boundFlagOwned(name) && !contains(allowed, name) {
			return nil, usagef("dpaudit bound %s: --%s does not apply to this kind", kind, name)
		}
	}
	if set["pld-interval"] {
		return nil, bad("--pld-interval does not apply: accounted ε uses the PLD's default interval %g, as in a spec", 1e-4)
	}
	if set["pld-memory"] {
		return nil, bad("--pld-memory does not apply: accounted ε uses the PLD's default memory cap, as in a spec")
	}
	return set, nil
}

// boundMechanism returns the DP-SGD block of the flags, or nil when none
// of the DP-SGD flags was given (the bound then takes ε directly).
func boundMechanism(kind string, set map[string]bool, m *mechFlags, b *boundFlags, bad func(string, ...any) error) (*spec.DPSGD, error) {
	withDPSGD := false
	for _, name := range dpsgdFlagNames {
		withDPSGD = withDPSGD || set[name]
	}
	if !withDPSGD {
		return nil, nil
	}
	if _, err := m.resolve("bound "+kind, true); err != nil {
		return nil, err
	}
	if m.accountant != "rdp" && m.accountant != "pld" && m.accountant != "gdp" {
		return nil, bad("--accountant must be rdp, pld or gdp, got %q", m.accountant)
	}
	d := &spec.DPSGD{NoiseMultiplier: m.sigma, SamplingRate: m.q, Steps: m.steps, Delta: m.delta, Clip: "hard"}
	if b.softClip {
		d.Clip = "soft"
	}
	return d, nil
}

// boundFlagOwned reports whether a flag belongs to some bound kind (the
// DP-SGD flags and --json belong to all).
func boundFlagOwned(name string) bool {
	for _, names := range boundKinds {
		if contains(names, name) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// entry checks the kind's flags and builds the spec's bound entry, with
// the same rules (and defaults) a spec has.
func (b *boundFlags) entry(kind string, set map[string]bool, d *spec.DPSGD, m mechFlags, bad func(string, ...any) error) (spec.Bound, error) {
	e := spec.Bound{Kind: kind}
	var err error
	switch kind {
	case "rero":
		e.Rero, err = b.reroEntry(set, d, bad)
	case "mse_rdp":
		e.MSE, err = b.mseEntry(set, d, bad)
	case "minimax_mse":
		e.Minimax, err = b.minimaxEntry(set, d, m, bad)
	case "belief":
		e.Belief, err = b.beliefEntry(set, d, m, bad)
	}
	return e, err
}

// needEpsilonOrDPSGD: a bound that takes ε takes it given (--epsilon) or
// accounted from the DP-SGD flags, never both.
func (b *boundFlags) needEpsilonOrDPSGD(set map[string]bool, d *spec.DPSGD, bad func(string, ...any) error) error {
	switch {
	case d == nil && !set["epsilon"]:
		return bad("give --epsilon or the DP-SGD flags (--noise-multiplier, --sampling-rate, --steps)")
	case set["epsilon"] && d != nil:
		return bad("give --epsilon or the DP-SGD flags, not both")
	case set["epsilon"] && !(b.epsilon > 0 && !math.IsInf(b.epsilon, 1)):
		return bad("--epsilon must be > 0 and finite, got %v", b.epsilon)
	}
	return nil
}

func (b *boundFlags) reroEntry(set map[string]bool, d *spec.DPSGD, bad func(string, ...any) error) (*spec.ReroBound, error) {
	if d == nil {
		return nil, bad("needs the DP-SGD flags --noise-multiplier, --sampling-rate and --steps")
	}
	switch {
	case set["prior-size"] == set["kappa"]:
		return nil, bad("give --prior-size n or --kappa κ (one of them)")
	case set["prior-size"] && b.priorSize < 2:
		return nil, bad("--prior-size must be ≥ 2, got %d", b.priorSize)
	case set["kappa"] && !(b.kappa > 0 && b.kappa < 1):
		return nil, bad("--kappa must be in (0, 1), got %v", b.kappa)
	case b.method != "exact" && b.method != "robust" && b.method != "montecarlo":
		return nil, bad("--method must be exact, robust or montecarlo, got %q", b.method)
	case b.samples < 1:
		return nil, bad("--samples must be ≥ 1, got %d", b.samples)
	case b.seed < 0:
		return nil, bad("--seed must be ≥ 0, got %d", b.seed)
	case !(b.confidence > 0 && b.confidence < 1):
		return nil, bad("--confidence must be in (0, 1), got %v", b.confidence)
	case !(b.tolerance > 0 && b.tolerance < 1):
		return nil, bad("--tolerance must be in (0, 1), got %v", b.tolerance)
	}
	for _, c := range b.compare {
		if c != "rdp" && c != "guo_fano" && c != "guo_fano_mc" {
			return nil, bad("--compare takes rdp, guo_fano and guo_fano_mc, got %q", c)
		}
		if c != "rdp" && !set["prior-size"] {
			return nil, bad("--compare %s needs --prior-size (its Fano bound is for a uniform prior over n candidates)", c)
		}
	}
	r := &spec.ReroBound{PriorSize: b.priorSize, Kappa: b.kappa, Method: b.method, Samples: b.samples,
		Confidence: b.confidence, Tolerance: b.tolerance, Compare: dedupe(b.compare)}
	if set["prior-size"] {
		r.Kappa = 0
	}
	return r, nil
}

func (b *boundFlags) mseEntry(set map[string]bool, d *spec.DPSGD, bad func(string, ...any) error) (*spec.MSERDPBound, error) {
	if err := b.needEpsilonOrDPSGD(set, d, bad); err != nil {
		return nil, err
	}
	if !(b.diameter > 0 && !math.IsInf(b.diameter, 1)) {
		return nil, bad("--diameter must be > 0 and finite, got %v", b.diameter)
	}
	if b.softClip && d == nil {
		return nil, bad("--soft-clip goes with the DP-SGD flags (it changes how ε₂ is accounted)")
	}
	return &spec.MSERDPBound{Epsilon: b.epsilon, Diameter: b.diameter}, nil
}

func (b *boundFlags) minimaxEntry(set map[string]bool, d *spec.DPSGD, m mechFlags, bad func(string, ...any) error) (*spec.MinimaxBound, error) {
	if err := b.needEpsilonOrDPSGD(set, d, bad); err != nil {
		return nil, err
	}
	switch {
	case b.models < 1:
		return nil, bad("--models must be ≥ 1, got %d", b.models)
	case !(b.diameter > 0 && !math.IsInf(b.diameter, 1)):
		return nil, bad("--diameter must be > 0 and finite, got %v", b.diameter)
	case set["dimension"] && b.dimension < 1:
		return nil, bad("--dimension must be ≥ 1, got %d", b.dimension)
	case b.effectiveDimension != "low" && b.effectiveDimension != "high":
		return nil, bad("--effective-dimension must be low or high, got %q", b.effectiveDimension)
	case !(b.alpha > 1 && !math.IsInf(b.alpha, 1)):
		return nil, bad("--alpha must be > 1 and finite, got %v", b.alpha)
	case b.mdpConstant != "paper" && b.mdpConstant != "separation_corrected":
		return nil, bad("--mdp-constant must be paper or separation_corrected, got %q", b.mdpConstant)
	}
	mm := &spec.MinimaxBound{Epsilon: b.epsilon, Models: b.models, Diameter: b.diameter, Dimension: b.dimension,
		EffectiveDimension: b.effectiveDimension, Alpha: b.alpha, MDPConstant: b.mdpConstant,
		Accountant: m.accountant, Conversion: m.conversion}
	// With ε given, δ is --delta if set, else 0 (pure DP), as in a spec.
	if set["epsilon"] && set["delta"] {
		if !(m.delta >= 0 && m.delta < 1) {
			return nil, bad("--delta must be in [0, 1), got %v", m.delta)
		}
		mm.Delta = m.delta
	}
	return mm, nil
}

func (b *boundFlags) beliefEntry(set map[string]bool, d *spec.DPSGD, m mechFlags, bad func(string, ...any) error) (*spec.BeliefBound, error) {
	var given []string
	for _, k := range []string{"epsilon", "target-rho-beta", "target-rho-alpha"} {
		if set[k] {
			given = append(given, "--"+k)
		}
	}
	switch {
	case len(given) > 1:
		return nil, bad("give at most one of --epsilon, --target-rho-beta and --target-rho-alpha (got %s)", strings.Join(given, " and "))
	case len(given) == 0 && d == nil:
		return nil, bad("give --epsilon, --target-rho-beta, --target-rho-alpha or the DP-SGD flags")
	case len(given) == 1 && d != nil:
		return nil, bad("give %s or the DP-SGD flags, not both", given[0])
	case set["epsilon"] && !(b.epsilon > 0 && !math.IsInf(b.epsilon, 1)):
		return nil, bad("--epsilon must be > 0 and finite, got %v", b.epsilon)
	case set["target-rho-beta"] && !(b.targetRhoBeta > 0.5 && b.targetRhoBeta < 1):
		return nil, bad("--target-rho-beta must be in (0.5, 1), got %v", b.targetRhoBeta)
	case set["target-rho-alpha"] && !(b.targetRhoA > 0 && b.targetRhoA < 1):
		return nil, bad("--target-rho-alpha must be in (0, 1), got %v", b.targetRhoA)
	case !(m.delta > 0 && m.delta < 1):
		return nil, bad("--delta must be in (0, 1), got %v", m.delta)
	}
	return &spec.BeliefBound{Epsilon: b.epsilon, TargetRhoBeta: b.targetRhoBeta, TargetRhoAlpha: b.targetRhoA,
		Delta: m.delta, Accountant: m.accountant, Conversion: m.conversion}, nil
}

// unwrapPath drops the spec path of a compile-time error: on the command
// line the flag is named in the message.
func unwrapPath(err error) error {
	var pe *stages.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// boundInputs are the inputs echoed in the output.
func boundInputs(kind string, e spec.Bound, d *spec.DPSGD, b boundFlags) map[string]any {
	in := map[string]any{"kind": kind}
	if d != nil {
		in["noise_multiplier"], in["sampling_rate"], in["steps"] = d.NoiseMultiplier, d.SamplingRate, d.Steps
	}
	switch {
	case e.Rero != nil:
		r := e.Rero
		if r.PriorSize > 0 {
			in["prior_size"] = r.PriorSize
		}
		in["method"] = r.Method
		if r.Method != "exact" {
			in["samples"], in["seed"], in["confidence"] = r.Samples, b.seed, r.Confidence
		}
	case e.MSE != nil:
		in["diameter"] = e.MSE.Diameter
		if d != nil {
			in["soft_clip"] = b.softClip
		}
	case e.Minimax != nil:
		mm := e.Minimax
		in["models"], in["diameter"], in["alpha"] = mm.Models, mm.Diameter, mm.Alpha
		if mm.Dimension > 0 {
			in["dimension"], in["effective_dimension"] = mm.Dimension, mm.EffectiveDimension
		}
		in["delta"] = mm.Delta
		if d != nil {
			in["accountant"], in["delta"] = mm.Accountant, d.Delta
		}
	case e.Belief != nil:
		bb := e.Belief
		in["delta"] = bb.Delta
		switch {
		case bb.TargetRhoBeta > 0:
			in["target_rho_beta"] = bb.TargetRhoBeta
		case bb.TargetRhoAlpha > 0:
			in["target_rho_alpha"] = bb.TargetRhoAlpha
		case bb.Epsilon == 0:
			in["accountant"] = bb.Accountant
		}
	}
	return in
}

// jsonValue keeps non-finite numbers representable in JSON.
func jsonValue(v any) any {
	if f, ok := v.(float64); ok {
		return jsonNumber(f)
	}
	return v
}

// boundMeanings describe the output columns (prefix stripped) in the text
// output; docs/tables.md has the full story.
var boundMeanings = map[string]string{
	"kappa":                 "prior baseline κ (success of the best blind guess)",
	"gamma":                 "bound on the success probability of any reconstruction attack",
	"gamma_lo":              "lower end of the bracket/interval of gamma",
	"gamma_hi":              "upper end of the bracket/interval of gamma",
	"advantage":             "advantage bound (γ − κ)/(1 − κ) (Hayes et al. Eq. 4)",
	"method":                "how the bound was computed",
	"confidence":            "confidence of [gamma_lo, gamma_hi] (1: guaranteed)",
	"effective_samples":     "Algorithm 1 diagnostic: ≪ ⌈κN⌉ means heavy tails",
	"rdp_gamma":             "RDP bound of Balle et al. 2022 (Eq. 2 at q = 1)",
	"rdp_advantage":         "its advantage",
	"rdp_order":             "Rényi order of rdp_gamma",
	"guo_fano_gamma":        "Guo et al.'s Fano bound (closed-form information)",
	"guo_fano_advantage":    "its advantage",
	"guo_fano_info":         "mutual information bound (nats)",
	"guo_fano_mc_gamma":     "Guo et al.'s Fano bound (Monte Carlo information)",
	"guo_fano_mc_advantage": "its advantage",
	"guo_fano_mc_info":      "mutual information estimate (nats)",
	"guo_fano_mc_info_se":   "its standard error (nats)",
	"epsilon":               "ε (nats) the bounds use",
	"mse_lower_bound":       "per-coordinate MSE of unbiased reconstruction ≥ this (squared data units)",
	"delta":                 "δ",
	"dp":                    "Theorem 4.1, (ε, δ)-DP: E‖ẑ − z‖² ≥ this",
	"rdp_epsilon":           "ε of (α, ε)-RDP used by Corollary E.2",
	"rdp":                   "Corollary E.2, RDP: E‖ẑ − z‖² ≥ this",
	"mdp":                   "Theorem E.4, metric DP: E‖ẑ − z‖² ≥ this",
	"high_dim":              "Theorem 4.4, high-dimensional: E‖ẑ − z‖² ≥ this",
	"guo_total":             "Guo et al.'s Theorem 1 in total squared distance",
	"guo_vacuity_epsilon":   "below this ε Guo et al.'s bound exceeds diam²",
	"rho_beta":              "posterior belief bound ρ_β (holds with probability 1 − δ)",
	"rho_alpha":             "advantage bound ρ_α (Gaussian mechanism, Theorem 2)",
	"rho_alpha_rdp":         "advantage bound 2Φ(√T/(2σ)) − 1 (Sec. 4.4)",
	"expected_confidence":   "ρ_β + δ(1 − ρ_β)",
	"yeom_advantage":        "Yeom et al.'s membership advantage bound min(1, e^ε − 1)",
}

func printBound(w io.Writer, kind string, in map[string]any, outs []stages.Output) {
	keys := make([]string, 0, len(in))
	for k := range in {
		if k != "kind" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s = %v", k, in[k])
	}
	fmt.Fprintf(w, "%s: %s\n", kind, strings.Join(parts, ", "))
	for _, o := range outs {
		name := strings.TrimPrefix(o.Name, boundPrefixes[kind])
		val := "null"
		switch v := o.Value.(type) {
		case float64:
			val = fmt.Sprintf("%.6g", v)
		case nil:
		default:
			val = fmt.Sprint(v)
		}
		fmt.Fprintf(w, "  %-22s %-12s %s\n", name, val, boundMeanings[name])
	}
}

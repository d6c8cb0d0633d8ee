package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/privacy"
)

// mechFlags are the DP-SGD flags shared by account and calibrate (and, in
// later commands, bound).
type mechFlags struct {
	sigma, q, delta, epochs float64
	steps, n, batch         int
	accountant              string
	conversion              string
	interval                float64
	pldMemory               string
	memBytes                int64
	asJSON                  bool
}

func (m *mechFlags) register(fs *flag.FlagSet, withSigma bool, defaultAcc string) {
	if withSigma {
		fs.Float64Var(&m.sigma, "noise-multiplier", 0, "σ: noise std / clipping norm (required)")
	}
	fs.Float64Var(&m.q, "sampling-rate", 0, "q: Poisson sampling rate (or give --batch-size and --dataset-size)")
	fs.IntVar(&m.steps, "steps", 0, "T: number of steps (or give --epochs)")
	fs.Float64Var(&m.epochs, "epochs", 0, "epochs; T = ceil(epochs · N / batch)")
	fs.IntVar(&m.n, "dataset-size", 0, "N: training set size")
	fs.IntVar(&m.batch, "batch-size", 0, "expected batch size; q = batch / N")
	fs.Float64Var(&m.delta, "delta", 1e-5, "δ")
	fs.StringVar(&m.accountant, "accountant", defaultAcc, "rdp, pld, gdp, best (the smallest valid upper bound) or all (comma-separated list allowed)")
	fs.StringVar(&m.conversion, "conversion", "improved", "RDP → (ε, δ) conversion: improved (dp_accounting's default) or classic")
	fs.Float64Var(&m.interval, "pld-interval", 1e-4, "PLD discretisation interval of the privacy loss")
	fs.StringVar(&m.pldMemory, "pld-memory", "", "memory the PLD grids may use before the interval is coarsened, in bytes or with a K, M, G or T suffix (binary; default a quarter of RAM)")
	fs.BoolVar(&m.asJSON, "json", false, "print one JSON object")
}

// parseBytes reads a byte count: digits with an optional binary suffix
// K, M, G or T (KiB, KB and k are the same).
func parseBytes(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	shift := 0
	if n := len(t); n > 0 {
		if k := strings.IndexByte("KMGT", t[n-1]); k >= 0 {
			shift, t = 10*(k+1), t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(v > 0) || v*math.Exp2(float64(shift)) >= math.MaxInt64/2 {
		return 0, fmt.Errorf("want a positive size like 6G or 512M, got %q", s)
	}
	return int64(v * math.Exp2(float64(shift))), nil
}

// resolve checks the flags and derives q and T from epochs if needed.
func (m *mechFlags) resolve(cmd string, withSigma bool) ([]string, error) {
	bad := func(format string, args ...any) error {
		return usagef("dpaudit %s: %s", cmd, fmt.Sprintf(format, args...))
	}
	if m.batch > 0 || m.n > 0 || m.epochs > 0 {
		if m.q != 0 && (m.batch > 0 || m.n > 0) {
			return nil, bad("give either --sampling-rate or --batch-size with --dataset-size, not both")
		}
		if m.steps != 0 && m.epochs > 0 {
			return nil, bad("give either --steps or --epochs, not both")
		}
		if m.batch > 0 || m.n > 0 {
			if m.batch <= 0 || m.n <= 0 {
				return nil, bad("--batch-size and --dataset-size go together (both > 0)")
			}
			if m.batch > m.n {
				return nil, bad("--batch-size %d is larger than --dataset-size %d", m.batch, m.n)
			}
			m.q = float64(m.batch) / float64(m.n)
		}
		if m.epochs > 0 {
			if m.q <= 0 {
				return nil, bad("--epochs needs the sampling rate (--sampling-rate, or --batch-size and --dataset-size)")
			}
			m.steps = int(math.Ceil(m.epochs/m.q - 1e-9))
		}
	}
	switch {
	case withSigma && !(m.sigma > 0):
		return nil, bad("--noise-multiplier must be > 0, got %v", m.sigma)
	case !(m.q > 0 && m.q <= 1):
		return nil, bad("--sampling-rate must be in (0, 1], got %v", m.q)
	case m.steps < 1:
		return nil, bad("--steps must be ≥ 1, got %d", m.steps)
	case !(m.delta > 0 && m.delta < 1):
		return nil, bad("--delta must be in (0, 1), got %v", m.delta)
	case m.conversion != "improved" && m.conversion != "classic":
		return nil, bad("--conversion must be improved or classic, got %q", m.conversion)
	case !(m.interval > 0 && m.interval <= 0.1):
		return nil, bad("--pld-interval must be in (0, 0.1], got %v", m.interval)
	}
	if m.pldMemory != "" {
		b, err := parseBytes(m.pldMemory)
		if err != nil {
			return nil, bad("--pld-memory: %v", err)
		}
		m.memBytes = b
	}
	var accs []string
	for _, a := range strings.Split(m.accountant, ",") {
		switch a = strings.TrimSpace(a); a {
		case "all":
			accs = append(accs, "rdp", "pld", "gdp", "best")
		case "rdp", "pld", "gdp", "best":
			accs = append(accs, a)
		default:
			return nil, bad("--accountant must be rdp, pld, gdp, best or all, got %q", a)
		}
	}
	return dedupe(accs), nil
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func (m *mechFlags) options() privacy.Options {
	o := privacy.Options{PLDInterval: m.interval, PLDMemory: m.memBytes}
	if m.conversion == "classic" {
		o.Conversion = privacy.ConversionClassic
	}
	return o
}

func (m *mechFlags) inputs() map[string]any {
	in := map[string]any{"sampling_rate": m.q, "steps": m.steps, "delta": m.delta}
	if m.sigma > 0 {
		in["noise_multiplier"] = m.sigma
	}
	if m.epochs > 0 {
		in["epochs"] = m.epochs
	}
	if m.n > 0 {
		in["dataset_size"], in["batch_size"] = m.n, m.batch
	}
	return in
}

// jsonNumber keeps non-finite values representable in JSON ("+Inf").
func jsonNumber(x float64) any {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return x
}

// privacyError maps bad input found by the accountants to exit code 2.
func privacyError(cmd string, err error) error {
	if errors.Is(err, privacy.ErrInvalid) {
		return usagef("dpaudit %s: %v", cmd, err)
	}
	return err
}

func cmdAccount(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("account", "--noise-multiplier σ (--sampling-rate q --steps T | --batch-size B --dataset-size N --epochs E) [--delta δ] [--epsilon ε] [--risk [--fpr …] [--baseline …]]",
		"Computes ε at δ of T steps of the Poisson-subsampled Gaussian mechanism\n(DP-SGD, add/remove adjacency) with the RDP, PLD and GDP accountants.\nWith --epsilon, also δ at that ε. With --risk, what each accountant's\ntrade-off curve means for an attacker (docs/what-epsilon-means.md).", stderr)
	var m mechFlags
	m.register(fs, true, "all")
	epsilon := fs.Float64("epsilon", 0, "also report δ at this ε")
	var risk riskFlags
	risk.register(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	accs, err := m.resolve("account", true)
	if err != nil {
		return err
	}
	if *epsilon < 0 {
		return usagef("dpaudit account: --epsilon must be > 0, got %v", *epsilon)
	}
	if err := risk.check(); err != nil {
		return err
	}
	mech := privacy.SampledGaussian{NoiseMultiplier: m.sigma, SamplingRate: m.q, Steps: m.steps}
	o := m.options()
	eps := map[string]any{}
	deltas := map[string]any{}
	pldUsed := map[string]any{}
	panels := map[string]riskPanel{}
	var lines []string
	for _, acc := range accs {
		r, err := privacy.EpsilonDetail(privacy.Accountant(acc), mech, m.delta, o)
		if err != nil {
			return privacyError("account", err)
		}
		e := r.Value
		eps[acc] = jsonNumber(e)
		note, used := m.epsilonNote(acc, r)
		line := fmt.Sprintf("  %s  ε = %.6g", acc, e) + note
		if used {
			pldUsed[acc] = r.PLDInterval
		}
		if *epsilon > 0 {
			d, err := privacy.Delta(privacy.Accountant(acc), mech, *epsilon, o)
			if err != nil {
				return privacyError("account", err)
			}
			deltas[acc] = jsonNumber(d)
			line += fmt.Sprintf("\n        δ(ε=%g) = %.6g", *epsilon, d)
		}
		if risk.on {
			p, err := risk.panel(acc, mech, o)
			if err != nil {
				return err
			}
			panels[acc] = p
			line += p.text(risk.prior)
		}
		lines = append(lines, line)
	}
	if m.asJSON {
		in := m.inputs()
		out := map[string]any{"inputs": in, "epsilon": eps}
		if len(pldUsed) > 0 {
			out["pld_interval_used"] = pldUsed
		}
		if *epsilon > 0 {
			in["epsilon"] = *epsilon
			out["delta"] = deltas
		}
		if risk.on {
			out["risk"] = panels
		}
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "DP-SGD: σ = %g, q = %.6g, T = %d, δ = %g\n%s\n", m.sigma, m.q, m.steps, m.delta, strings.Join(lines, "\n"))
	return nil
}

// epsilonNote says how an accountant's ε was computed (its conversion,
// grid, closed form or source), and whether a PLD ran on a coarser grid
// than asked (then the JSON output reports the interval used).
func (m mechFlags) epsilonNote(acc string, r privacy.Result) (string, bool) {
	switch acc {
	case "rdp":
		return fmt.Sprintf("   (%s conversion, dp_accounting's orders)", m.conversion), false
	case "pld":
		note := fmt.Sprintf("   (interval %g, pessimistic)", r.PLDInterval)
		if r.PLDInterval == m.interval {
			return note, false
		}
		mem := m.memBytes
		if mem == 0 {
			mem = privacy.DefaultPLDMemory()
		}
		return note + fmt.Sprintf("; coarsened from %g: the finer grid needs more than --pld-memory %.3g GiB", m.interval, float64(mem)/(1<<30)), true
	case "gdp":
		if m.q == 1 {
			return fmt.Sprintf("   (μ = √T/σ = %.6g, exact at q = 1)", math.Sqrt(float64(m.steps))/m.sigma), false
		}
		if mu, err := privacy.GDPMu(m.q, m.sigma, float64(m.steps)); err == nil {
			return fmt.Sprintf("   (μ = %.6g, CLT approximation)", mu), false
		}
	case "best":
		return fmt.Sprintf("   (from %s: the smallest valid upper bound)", r.Accountant), r.PLDInterval != 0 && r.PLDInterval != m.interval
	}
	return "", false
}

func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", "(--target-epsilon ε | --target-tpr-at-fpr TPR@FPR | --target-advantage A | --target-reconstruction SUCCESS@BASELINE) (--sampling-rate q --steps T | --batch-size B --dataset-size N --epochs E) [--delta δ]",
		"Finds the smallest noise multiplier σ for which T steps of the Poisson-subsampled\nGaussian mechanism meet a target under the chosen accountant (Brent's method,\nrelative tolerance 1e-6 on σ): (ε, δ)-DP, or an attack-risk bound read off the\naccountant's trade-off curve (docs/what-epsilon-means.md). The default, best,\nis the smallest σ that any valid upper bound (RDP, PLD; exact GDP at q = 1)\nproves enough.", stderr)
	var m mechFlags
	m.register(fs, false, "best")
	target := fs.Float64("target-epsilon", 0, "ε to reach at --delta")
	tprAt := fs.String("target-tpr-at-fpr", "", "TPR@FPR: no membership attack's true-positive rate above TPR at false-positive rate FPR, e.g. 0.05@0.01")
	adv := fs.Float64("target-advantage", 0, "no membership attack's advantage (TPR − FPR) above this, in (0, 1)")
	recon := fs.String("target-reconstruction", "", "SUCCESS@BASELINE: no reconstruction (attribute-inference, re-identification) attack succeeds with probability above SUCCESS when guessing succeeds with BASELINE (1/n for n candidates), e.g. 0.2@1/10")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	accs, err := m.resolve("calibrate", false)
	if err != nil {
		return err
	}
	t, err := calibrationTarget(*target, m.delta, *tprAt, *adv, *recon)
	if err != nil {
		return err
	}
	o := m.options()
	sig := map[string]any{}
	var lines []string
	for _, acc := range accs {
		s, err := privacy.CalibrateTo(privacy.Accountant(acc), t, m.q, m.steps, o)
		if err != nil {
			if errors.Is(err, privacy.ErrUnreachable) {
				return usagef("dpaudit calibrate: %s: %v", acc, err)
			}
			return privacyError("calibrate", err)
		}
		sig[acc] = jsonNumber(s)
		lines = append(lines, fmt.Sprintf("  %s  σ = %.7g", acc, s))
	}
	if m.asJSON {
		in := m.inputs()
		in["target"] = t.String()
		if t.Kind == privacy.TargetEpsilon {
			in["target_epsilon"] = t.Value
		}
		return json.NewEncoder(stdout).Encode(map[string]any{"inputs": in, "noise_multiplier": sig})
	}
	fmt.Fprintf(stdout, "noise multiplier for %s, q = %.6g, T = %d:\n%s\n", describeTarget(t), m.q, m.steps, strings.Join(lines, "\n"))
	return nil
}

// calibrationTarget builds the one target the flags give.
func calibrationTarget(eps, delta float64, tprAt string, adv float64, recon string) (privacy.Target, error) {
	var ts []string
	if eps != 0 {
		ts = append(ts, fmt.Sprintf("epsilon=%v@%v", eps, delta))
	}
	if tprAt != "" {
		ts = append(ts, "tpr_at_fpr="+tprAt)
	}
	if adv != 0 {
		ts = append(ts, fmt.Sprintf("advantage=%v", adv))
	}
	if recon != "" {
		// The baseline may be written 1/n.
		v, b, _ := strings.Cut(recon, "@")
		if x, err := fraction(b); err == nil {
			b = strconv.FormatFloat(x, 'g', -1, 64)
		}
		ts = append(ts, "reconstruction="+v+"@"+b)
	}
	if len(ts) != 1 {
		return privacy.Target{}, usagef("dpaudit calibrate: give exactly one of --target-epsilon, --target-tpr-at-fpr, --target-advantage, --target-reconstruction (got %d)", len(ts))
	}
	t, err := privacy.ParseTarget(ts[0])
	if err != nil {
		return privacy.Target{}, usagef("dpaudit calibrate: %v", err)
	}
	return t, nil
}

func describeTarget(t privacy.Target) string {
	switch t.Kind {
	case privacy.TargetEpsilon:
		return fmt.Sprintf("ε = %g at δ = %g", t.Value, t.At)
	case privacy.TargetTPRAtFPR:
		return fmt.Sprintf("TPR ≤ %g at FPR %g", t.Value, t.At)
	case privacy.TargetAdvantage:
		return fmt.Sprintf("advantage ≤ %g", t.Value)
	}
	return fmt.Sprintf("reconstruction success ≤ %g at baseline %g", t.Value, t.At)
}

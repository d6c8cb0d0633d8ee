package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/selftest"
)

// errSelftest ends a self-test in which a valid estimator failed its
// coverage (exit 1).
var errSelftest = errors.New("selftest failed: a valid estimator exceeded the true ε more often than its confidence allows")

func cmdSelftest(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("selftest", "[flags]", "Null coverage of the membership-audit estimators: R honest audits of the ideal\nmechanism at its exact ε; how often each ε lower bound exceeded the true ε\n(with a 95% Clopper–Pearson interval on that rate) against the nominal\n1 − confidence, and the mean ε_lb as a fraction of the true ε (power).\nExit 1 if a valid estimator exceeds significantly more often than allowed.", stderr)
	d := selftest.Default()
	var trials, methods multiFlag
	fs.Var(&trials, "trials", "trials per audit (comma-separated list; default 1000)")
	fs.Var(&methods, "methods", "estimators (comma-separated; default all: "+strings.Join(selftest.Methods, ", ")+")")
	fs.IntVar(&d.Repeats, "repeats", d.Repeats, "R: audits per trial count")
	fs.Float64Var(&d.Epsilon, "epsilon", d.Epsilon, "the mechanism's true ε (σ is calibrated to it)")
	fs.Float64Var(&d.Delta, "delta", d.Delta, "δ")
	fs.Float64Var(&d.Confidence, "confidence", d.Confidence, "confidence of the lower bounds")
	fs.Float64Var(&d.SamplingRate, "sampling-rate", d.SamplingRate, "q of the ideal mechanism (1: the Gaussian mechanism, exact ε)")
	fs.IntVar(&d.Steps, "steps", d.Steps, "T of the ideal mechanism")
	fs.Float64Var(&d.SplitFraction, "split-fraction", 0, "share of each world's trials that chooses the split threshold (0: the audit default, 0.2)")
	seed := fs.Uint64("seed", d.Seed, "seed of every stream")
	fs.IntVar(&d.Workers, "j", 0, "parallel workers (0: all cores); results do not depend on it")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	sequential := fs.Bool("sequential", false, "self-test the sequential audit (audit.stop: sequential) instead: --repeats honest sequential audits with a budget of --trials (default 6400) trials; the rate of false violations against 1 − confidence")
	firstLook := fs.Int("first-look", 100, "--sequential: trials at the first look")
	seqTest := fs.String("sequential-test", "profile", "--sequential: what each look tests, profile or epsilon")
	claimFactor := fs.Float64("claim-factor", 1, "--sequential: the claim's σ over the mechanism's (1: honest; above 1 the violation rate is the power)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("dpaudit selftest: unexpected argument %q", pos[0])
	}
	d.Seed = *seed
	if *sequential && len(trials) > 1 {
		return usagef("dpaudit selftest --sequential: give one --trials (the budget)")
	}
	counts, err := trialCounts(trials)
	if err != nil {
		return err
	}
	if *sequential {
		sc := selftest.DefaultSequential()
		sc.Epsilon, sc.Delta, sc.Confidence, sc.SamplingRate, sc.Steps = d.Epsilon, d.Delta, d.Confidence, d.SamplingRate, d.Steps
		sc.FirstLook, sc.Test, sc.ClaimFactor, sc.Seed, sc.Workers = *firstLook, *seqTest, *claimFactor, d.Seed, d.Workers
		if d.Repeats != selftest.Default().Repeats {
			sc.Audits = d.Repeats
		}
		if len(counts) == 1 {
			sc.Budget = counts[0]
		}
		return interruptibly(stopsAtCheck, keptBySelftest, func(ctx context.Context) error {
			return runSequentialSelftest(ctx, sc, *asJSON, stdout)
		})
	}
	if len(counts) > 0 {
		d.Trials = counts
	}
	d.Methods = methods
	// Ctrl-C stops the audits between repeats.
	return interruptibly(stopsAtCheck, keptBySelftest, func(ctx context.Context) error {
		return runSelftest(ctx, d, *asJSON, stdout)
	})
}

// keptBySelftest: a self-test writes no file and reports only at its end.
func keptBySelftest() string {
	return "nothing to keep (the self-test writes no file and reports when every audit has finished)"
}

// trialCounts reads the --trials values.
func trialCounts(trials []string) ([]int, error) {
	var counts []int
	for _, t := range trials {
		n, err := strconv.Atoi(t)
		if err != nil {
			return nil, usagef("dpaudit selftest: --trials %q is not an integer", t)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// runSelftest runs the self-test of the estimators and prints its report;
// a valid estimator that failed its coverage is exit code 1.
func runSelftest(ctx context.Context, d selftest.Config, asJSON bool, stdout io.Writer) error {
	rep, err := selftest.Run(ctx, d)
	if err != nil {
		if errors.Is(err, audit.ErrInvalid) {
			return usagef("dpaudit %v", err)
		}
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printSelftest(stdout, rep)
	}
	for _, r := range rep.Rows {
		if r.Valid && !r.OK {
			return errSelftest
		}
	}
	return nil
}

func printSelftest(w io.Writer, rep selftest.Report) {
	c := rep.Config
	fmt.Fprintf(w, "ideal mechanism q=%g T=%d σ=%.5g: true ε = %.4g at δ = %g; %d audits per row, %.0f%% confidence (nominal exceedance ≤ %.3g)\n\n",
		c.SamplingRate, c.Steps, rep.Sigma, rep.TrueEps, c.Delta, c.Repeats, 100*c.Confidence, 1-c.Confidence)
	fmt.Fprintf(w, "%-8s %-18s %-13s %-6s %-34s %9s %17s %9s %9s %7s  %s\n", "trials", "estimator", "family", "valid", "assumes", "exceed", "rate 95% CI", "mean ε_lb", "median", "power", "coverage")
	for _, r := range rep.Rows {
		verdict := "ok"
		switch {
		case r.Valid && !r.OK:
			verdict = "FAIL"
		case !r.Valid && !r.OK:
			verdict = "over (not valid: expected)"
		case !r.Valid:
			verdict = "ok here (no guarantee)"
		}
		fmt.Fprintf(w, "%-8d %-18s %-13s %-6v %-34s %4d/%-4d [%6.4f, %6.4f] %9.4f %9.4f %7.3f  %s\n",
			r.Trials, r.Method, r.Family, r.Valid, r.Assumes, r.Exceed, r.Repeats, r.RateLo, r.RateHi, r.MeanLB, r.MedianLB, r.Power, verdict)
	}
	fmt.Fprintf(w, "\n%.2f s\n", rep.Elapsed.Seconds())
}

func runSequentialSelftest(ctx context.Context, c selftest.SequentialConfig, asJSON bool, stdout io.Writer) error {
	rep, err := selftest.RunSequential(ctx, c)
	if err != nil {
		if errors.Is(err, audit.ErrInvalid) {
			return usagef("dpaudit %v", err)
		}
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printSequentialSelftest(stdout, rep)
	}
	if c.ClaimFactor == 1 && !rep.OK {
		return errSequentialSelftest
	}
	return nil
}

// errSequentialSelftest: the sequential audit falsely refuted an honest
// claim significantly more often than its confidence allows (exit 1).
var errSequentialSelftest = errors.New("selftest failed: the sequential audit refuted an honest claim more often than its confidence allows")

func printSequentialSelftest(w io.Writer, rep selftest.SequentialReport) {
	c := rep.Config
	honest := c.ClaimFactor == 1
	fmt.Fprintf(w, "sequential audits (%s test) of the ideal mechanism q=%g T=%d σ=%.5g: true ε = %.4g at δ = %g\n", c.Test, c.SamplingRate, c.Steps, rep.Sigma, rep.TrueEps, c.Delta)
	fmt.Fprintf(w, "claim: σ=%.5g (ε = %.4g)%s; looks at %v trials; %.0f%% confidence\n\n", rep.ClaimSigma, rep.ClaimEpsilon,
		map[bool]string{true: ", honest", false: fmt.Sprintf(", %.3g× the true σ: a bug to catch", c.ClaimFactor)}[honest], audit.LookSchedule(c.FirstLook, c.Budget), 100*c.Confidence)
	what := "false violations"
	if !honest {
		what = "violations (power)"
	}
	verdict := "ok (≤ α)"
	switch {
	case !honest:
		verdict = "power"
	case !rep.OK:
		verdict = "FAIL: significantly above α"
	}
	fmt.Fprintf(w, "%s: %d/%d = %.4f, 95%% CI [%.4f, %.4f], nominal α = %.3g: %s\n", what, rep.Violations, rep.Audits, rep.Rate, rep.RateLo, rep.RateHi, rep.Nominal, verdict)
	fmt.Fprintf(w, "mean trials used %.0f, mean looks %.2f, mean ε_lb at the stopping look %.4f\n\n%.2f s\n", rep.MeanTrialsUsed, rep.MeanLooks, rep.MeanEpsilonLB, rep.Elapsed.Seconds())
}

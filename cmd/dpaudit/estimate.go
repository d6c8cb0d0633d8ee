package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/attack/planfile"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/audit/scorefile"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
	"github.com/dpaudit/dpaudit/stages"
)

// estimateFlags are the flags of "dpaudit estimate". Every option that
// changes a number has the runner's default (spec audit block and
// audit.DefaultOptions).
type estimateFlags struct {
	cols                      scorefile.Columns
	filters                   multiFlag
	lowerIsMember, scoreIsLLR bool
	group, aggregate          string
	claimEps                  optFloat
	delta                     float64
	sigma, q                  float64
	steps                     int
	accountant                string
	confidence                float64
	threshold                 string
	splitFraction             float64
	splits                    int
	splitSeed                 uint64
	pointKey                  string
	specSeed                  int64
	splitSeedSet              bool // --split-seed was given
	grid                      floatList
	steinke, fdp, orderStats  int
	osFamily                  string
	plan                      string
	memberNamed               bool // --member-column was given
	format, table             string
	digits                    int
	failOnViolation           bool
	results                   string
	sequential                string
	firstLook, budget         int
}

func (f *estimateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.cols.Member, "member-column", "member", "column of the membership bits (bool, or 0/1)")
	fs.StringVar(&f.cols.Score, "score-column", "score", "column of the scores (higher = more likely a member)")
	fs.StringVar(&f.cols.Canary, "canary-column", "", "column naming each row's canary (default: \"canary\" if the table has it)")
	fs.StringVar(&f.cols.Run, "run-column", "", "column naming each row's training run (default: \"run\" if the table has it)")
	fs.StringVar(&f.cols.User, "user-column", "", "column naming each row's privacy unit (default: \"user\" if the table has it)")
	fs.StringVar(&f.cols.Step, "step-column", "", "column of the step of per-step samples (default: \"step\" if the table has it); makes the table a per-step audit")
	fs.Var(&f.filters, "filter", "keep only the rows where COLUMN=VALUE (repeatable), e.g. repeat=0 of a trials table with audit.repeats")
	fs.BoolVar(&f.lowerIsMember, "lower-is-member", false, "low scores mean \"member\" (a loss)")
	fs.BoolVar(&f.scoreIsLLR, "score-is-llr", false, "the scores are log-likelihood ratios: the order-statistics decoder guesses by their sign (else by the side of the median)")
	fs.StringVar(&f.group, "group", "", "user: aggregate each privacy unit's records into one score first (user-level audit)")
	fs.StringVar(&f.aggregate, "aggregate", "", "with --group user: max, min, mean or logsumexp")
	fs.Var(&f.claimEps, "claim-epsilon", "the claimed ε at --delta (default: none)")
	fs.Float64Var(&f.delta, "delta", 1e-5, "δ of the claim and of every estimate")
	fs.Float64Var(&f.sigma, "noise-multiplier", 0, "claim as a mechanism: σ of DP-SGD (Poisson sampling, add/remove, hard clip)")
	fs.Float64Var(&f.q, "sampling-rate", 0, "claim as a mechanism: sampling rate q")
	fs.IntVar(&f.steps, "steps", 0, "claim as a mechanism: steps T")
	fs.StringVar(&f.accountant, "accountant", "best", "claim as a mechanism: rdp, pld, gdp or best (the smaller of RDP and PLD)")
	fs.Float64Var(&f.confidence, "confidence", 0.95, "confidence of every lower bound")
	fs.StringVar(&f.threshold, "threshold", "split", "classic threshold: split (valid), bonferroni (valid) or posthoc (optimistic)")
	fs.Float64Var(&f.splitFraction, "split-fraction", audit.DefaultSplitFraction, "share of each world's trials that chooses the split threshold (or builds the Bonferroni grid)")
	fs.IntVar(&f.splits, "splits", 1, "seeded splits; each at α/k, the largest bound reported")
	fs.Uint64Var(&f.splitSeed, "split-seed", 0, "seed of the split (and of the one canary per run of a multi-run table)")
	fs.StringVar(&f.pointKey, "point-key", "", "derive the split seed as a run does, from --spec-seed and this point key (the estimate node's params.point_key in dpaudit plan SPEC --json)")
	fs.Int64Var(&f.specSeed, "spec-seed", 0, "with --point-key: the spec's seed (params.seed)")
	fs.Var(&f.grid, "bonferroni-grid", "fixed Bonferroni thresholds, comma-separated (default: 100 quantiles of a held-out share)")
	fs.IntVar(&f.steinke, "steinke-guesses", 0, "Steinke et al.'s two-sided guesses (0: 10% of the canaries)")
	fs.IntVar(&f.fdp, "fdp-guesses", 0, "the f-DP audit's two-sided guesses (0: 10% of the canaries)")
	fs.IntVar(&f.orderStats, "order-stats-guesses", 0, "guesses the order-statistics decoder releases (0: all)")
	fs.StringVar(&f.osFamily, "os-family", "claim", "order-statistics family: claim (from the mechanism; gaussian for an ε claim), gaussian, or none")
	fs.StringVar(&f.plan, "plan", "", "a canary plan (dpaudit canaries make): join the table to its canaries and bits by canary id")
	fs.StringVar(&f.format, "format", "table", "output format: table, csv, md (Markdown) or json (one object per row)")
	fs.StringVar(&f.table, "table", "estimates", "estimates (one row per estimate) or summary (one row, the runner's summary columns)")
	fs.IntVar(&f.digits, "digits", 5, "significant digits of floats (table and md formats)")
	fs.BoolVar(&f.failOnViolation, "fail-on-violation", false, "exit with code 3 when a valid estimate refutes the claim")
	fs.StringVar(&f.sequential, "sequential", "", "profile or epsilon: a sequential audit of the rows in table order (looks at --first-look, twice that, … trials), testing the claim's privacy profile or its (ε, δ) pair, as audit.stop: sequential")
	fs.IntVar(&f.firstLook, "first-look", 100, "with --sequential: the first look's trials")
	fs.IntVar(&f.budget, "budget", 0, "with --sequential: the last look's trials (0: the table's rows)")
	fs.StringVar(&f.results, "results", "", "also write a results folder DIR as a run's (summary.parquet, estimates.parquet, trials/, manifest.json, report.html); replaces only an earlier estimate's folder")
}

// optFloat is a number flag that may be absent; its help prints no
// default (a float flag whose "absent" is NaN would print "(default NaN)").
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

func (o *optFloat) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) {
		return fmt.Errorf("%q is not a number", s)
	}
	o.v, o.set = x, true
	return nil
}

// floatList is a comma-separated list of numbers.
type floatList []float64

func (l *floatList) String() string {
	var s []string
	for _, x := range *l {
		s = append(s, strconv.FormatFloat(x, 'g', -1, 64))
	}
	return strings.Join(s, ",")
}

func (l *floatList) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) {
			return fmt.Errorf("%q is not a number", p)
		}
		*l = append(*l, x)
	}
	return nil
}

func cmdEstimate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("estimate", "SCORES.parquet|SCORES.csv|DIR|- [flags]",
		"Estimates empirical privacy from a table of attack scores (Parquet, a folder of\nParquet parts, CSV, or CSV on stdin as -): columns member (bool or 0/1) and score,\noptionally canary, run, user and step. The layout of the rows decides which\nestimators are valid; the command says which it used and why. With a claim\n(--claim-epsilon and --delta, or the mechanism --noise-multiplier --sampling-rate\n--steps) every estimate is compared with it; --plan joins the table to a canary\nplan. See docs/estimate.md and docs/canary-plans.md.", stderr)
	var f estimateFlags
	f.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("dpaudit estimate takes one score table (a file, or - for CSV on stdin)")
	}
	fs.Visit(func(fl *flag.Flag) {
		f.memberNamed = f.memberNamed || fl.Name == "member-column"
		f.splitSeedSet = f.splitSeedSet || fl.Name == "split-seed"
	})
	o, claim, claimText, err := f.resolve()
	if err != nil {
		return err
	}
	started := time.Now()
	stdin := stdinReader
	var in stages.DataFile
	if f.results != "" {
		if err := dpaudit.CheckEstimateDir(f.results); err != nil {
			return inputf("dpaudit estimate: %v", err)
		}
		if in, stdin, err = inputDigest(pos[0], stdin); err != nil {
			return err
		}
	}
	src, err := readScores(pos[0], f, stdin)
	if err != nil {
		return err
	}
	if f.sequential != "" {
		violation, err := sequentialEstimate(stdout, f, src, o, claim, claimText)
		if err == nil && violation && f.failOnViolation {
			err = errViolation
		}
		return err
	}
	e, err := audit.EstimateScores(src.table, o)
	if err != nil {
		return estimateError(err)
	}
	ct, err := e.Test(claim)
	if err != nil {
		return estimateError(err)
	}
	if err := printEstimates(stdout, f, src, e, ct, claimText); err != nil {
		return err
	}
	if f.results != "" {
		if err := publishEstimate(fs, args, f, in, src, e, ct, claimText, started); err != nil {
			return err
		}
	}
	if ct.Violation && f.failOnViolation {
		return errViolation
	}
	return nil
}

// stdinReader is where "-" reads from (tests replace it).
var stdinReader io.Reader = os.Stdin

// inputf is bad input found after the flags (exit 2).
func inputf(format string, args ...any) error { return usagef(format, args...) }

// estimateError maps bad input found by the estimators to exit code 2;
// anything else is a failure (exit 1).
func estimateError(err error) error {
	if errors.Is(err, audit.ErrInvalid) {
		return inputf("dpaudit estimate: %v", err)
	}
	return fmt.Errorf("estimate: %w", err)
}

// scoreSource is the table read, where from, and its plan.
type scoreSource struct {
	path  string
	info  scorefile.Info
	table *audit.ScoreTable
	plan  *planfile.Plan
}

// readScores reads the score table and joins it to its plan.
func readScores(path string, f estimateFlags, stdin io.Reader) (scoreSource, error) {
	src := scoreSource{path: path}
	cols := f.cols
	for _, fl := range f.filters {
		k, v, ok := strings.Cut(fl, "=")
		if !ok || k == "" {
			return src, usagef("dpaudit estimate: --filter wants COLUMN=VALUE, got %q", fl)
		}
		cols.Filters = append(cols.Filters, scorefile.Filter{Column: k, Value: v})
	}
	if f.plan != "" {
		// The plan has the bits; a member column is checked against it.
		cols.OptionalMember = true
		if !f.memberNamed {
			cols.Member = ""
		}
		if cols.Canary == "" {
			cols.Canary = "canary"
		}
	}
	var err error
	if src.table, src.info, err = scorefile.Read(path, stdin, cols); err != nil {
		return src, inputf("dpaudit estimate: %v", err)
	}
	if f.plan == "" {
		return src, nil
	}
	if src.plan, err = planfile.Read(f.plan); err != nil {
		return src, inputf("dpaudit estimate: %v", err)
	}
	if src.table, err = audit.JoinPlan(src.table, src.plan.IDs, src.plan.Member); err != nil {
		return src, inputf("dpaudit estimate: plan %s: %v", f.plan, err)
	}
	return src, nil
}

// resolve checks the flags and turns them into estimator options and a
// claim.
func (f *estimateFlags) resolve() (audit.ScoreOptions, audit.Claim, string, error) {
	bad := func(format string, args ...any) error {
		return usagef("dpaudit estimate: %s", fmt.Sprintf(format, args...))
	}
	switch {
	case f.format != "table" && f.format != "csv" && f.format != "md" && f.format != "json":
		return audit.ScoreOptions{}, audit.Claim{}, "", bad("--format must be table, csv, md or json, got %q", f.format)
	case f.table != "estimates" && f.table != "summary":
		return audit.ScoreOptions{}, audit.Claim{}, "", bad("--table must be estimates or summary, got %q", f.table)
	}
	o := audit.ScoreOptions{Options: audit.DefaultOptions()}
	o.Delta, o.Confidence, o.SplitFraction, o.Splits, o.Seed = f.delta, f.confidence, f.splitFraction, f.splits, f.splitSeed
	o.LowerMeansWorld1, o.ScoreIsLLR = f.lowerIsMember, f.scoreIsLLR
	o.Guesses = audit.OneRunGuesses{Steinke: f.steinke, FDP: f.fdp, OrderStats: f.orderStats}
	switch f.threshold {
	case "split", "posthoc", "bonferroni":
		o.Method = audit.Method(f.threshold)
	default:
		return o, audit.Claim{}, "", bad("--threshold must be split, posthoc or bonferroni, got %q", f.threshold)
	}
	if len(f.grid) > 0 {
		if f.threshold != "bonferroni" {
			return o, audit.Claim{}, "", bad("--bonferroni-grid needs --threshold bonferroni")
		}
		o.Grid = f.grid
	}
	switch {
	case f.group == "" && f.aggregate == "":
	case f.group == "":
		return o, audit.Claim{}, "", bad("--aggregate needs --group user")
	case f.plan != "":
		return o, audit.Claim{}, "", bad("--group does not go with --plan: a plan's canaries are the privacy units")
	case f.group != "user":
		return o, audit.Claim{}, "", bad("--group must be user, got %q", f.group)
	case f.aggregate == "":
		return o, audit.Claim{}, "", bad("--group user needs --aggregate (max, min, mean or logsumexp)")
	default:
		o.Aggregate = audit.Aggregation(f.aggregate)
	}
	switch {
	case f.pointKey != "" && f.splitSeedSet:
		return o, audit.Claim{}, "", bad("give --split-seed or --point-key with --spec-seed, not both")
	case f.pointKey != "":
		// The runner's estimate stage: rng.Seed(spec seed, "audit", the
		// point's trial key).
		o.Seed = rng.Seed(uint64(f.specSeed), "audit", f.pointKey)
	}
	if f.steinke < 0 || f.fdp < 0 || f.orderStats < 0 {
		return o, audit.Claim{}, "", bad("guess counts must be ≥ 0")
	}
	claim, text, err := f.claim(bad)
	if err != nil {
		return o, audit.Claim{}, "", err
	}
	fam, err := f.family(&claim, bad)
	if err != nil {
		return o, audit.Claim{}, "", err
	}
	o.Family = fam
	if f.sigma != 0 {
		acc := f.accountant
		if acc == "best" {
			acc = "" // the runner's claim_accountant of the default
		}
		o.PerStepClaim = &audit.PerStepClaim{NoiseMultiplier: f.sigma, SamplingRate: f.q, Steps: f.steps, Accountant: acc}
	}
	if fam == nil {
		o.NoFamilyWhy = "no order-statistics family: --os-family none"
		if f.osFamily == "claim" {
			o.NoFamilyWhy = "no order-statistics family for T > 1 steps with q < 1"
		}
	}
	return o, claim, text, nil
}

// claim is the claimed ε: given, or the accountant's for the mechanism
// (as the runner's epsilon_accountant: add/remove, hard clip), or +Inf
// without a claim.
func (f *estimateFlags) claim(bad func(string, ...any) error) (audit.Claim, string, error) {
	mech := f.sigma != 0 || f.q != 0 || f.steps != 0
	given := f.claimEps.set
	switch {
	case !(f.delta >= 0 && f.delta < 1):
		return audit.Claim{}, "", bad("--delta must be in [0, 1), got %v", f.delta)
	case mech && given:
		return audit.Claim{}, "", bad("give the claim as --claim-epsilon or as the mechanism (--noise-multiplier, --sampling-rate, --steps), not both")
	case given && !(f.claimEps.v >= 0):
		return audit.Claim{}, "", bad("--claim-epsilon must be ≥ 0, got %v", f.claimEps.v)
	case given:
		return audit.Claim{Epsilon: f.claimEps.v}, fmt.Sprintf("ε = %g at δ = %g (given)", f.claimEps.v, f.delta), nil
	case !mech:
		return audit.Claim{Epsilon: math.Inf(1)}, "none (estimates only; give --claim-epsilon or the mechanism to test a claim)", nil
	case !(f.sigma > 0) || !(f.q > 0 && f.q <= 1) || f.steps < 1:
		return audit.Claim{}, "", bad("a mechanism claim needs --noise-multiplier > 0, --sampling-rate in (0, 1] and --steps ≥ 1")
	case !(f.delta > 0):
		return audit.Claim{}, "", bad("a mechanism claim needs --delta > 0")
	}
	switch f.accountant {
	case "rdp", "pld", "gdp", "best":
	default:
		return audit.Claim{}, "", bad("--accountant must be rdp, pld, gdp or best, got %q", f.accountant)
	}
	eps, err := privacy.Epsilon(privacy.Accountant(f.accountant), privacy.SampledGaussian{NoiseMultiplier: f.sigma, SamplingRate: f.q, Steps: f.steps}, f.delta, privacy.Options{})
	if err != nil {
		if errors.Is(err, privacy.ErrInvalid) {
			return audit.Claim{}, "", bad("%v", err)
		}
		return audit.Claim{}, "", err
	}
	text := fmt.Sprintf("ε = %.6g at δ = %g: %s accountant on σ=%g, Poisson q=%g, T=%d, add/remove", eps, f.delta, f.accountant, f.sigma, f.q, f.steps)
	return audit.Claim{Epsilon: eps}, text, nil
}

// family picks the order-statistics family and the claim's parameter in
// it, as the runner does for a mechanism.
func (f *estimateFlags) family(c *audit.Claim, bad func(string, ...any) error) (*audit.OSFamily, error) {
	switch f.osFamily {
	case "none":
		return nil, nil
	case "gaussian":
		return &audit.OSFamily{SamplingRate: 1}, nil
	case "claim":
	default:
		return nil, bad("--os-family must be claim, gaussian or none, got %q", f.osFamily)
	}
	if f.sigma == 0 {
		return &audit.OSFamily{SamplingRate: 1}, nil
	}
	fam, mu, ok := audit.OSFamilyOfSGM(f.sigma, f.q, f.steps)
	if !ok {
		return nil, nil // ScoreOptions.NoFamilyWhy says why
	}
	c.FamilyMu = mu
	return &fam, nil
}

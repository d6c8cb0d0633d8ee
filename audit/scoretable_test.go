package audit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/rng"
)

func ids(prefix string, xs ...int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = prefix + strconv.Itoa(x)
	}
	return out
}

func TestDetectLayout(t *testing.T) {
	four := func() *ScoreTable {
		return &ScoreTable{Member: []bool{true, false, true, false}, Score: []float64{1, 2, 3, 4}}
	}
	cases := []struct {
		name         string
		canary, run  []string
		want         Layout
		runs, lo, hi int
		err          string
	}{
		{name: "no columns", want: LayoutClassic, runs: 4, lo: 1, hi: 1},
		{name: "canaries", canary: ids("c", 0, 1, 2, 3), want: LayoutOneRun, runs: 1, lo: 4, hi: 4},
		{name: "one row per run", run: ids("r", 0, 1, 2, 3), canary: ids("c", 0, 0, 0, 0), want: LayoutClassic, runs: 4, lo: 1, hi: 1},
		{name: "one run value", run: ids("r", 7, 7, 7, 7), want: LayoutOneRun, runs: 1, lo: 4, hi: 4},
		{name: "runs x canaries", run: ids("r", 0, 0, 1, 1), canary: ids("c", 0, 1, 0, 1), want: LayoutMultiRun, runs: 2, lo: 2, hi: 2},
		{name: "uneven runs", run: ids("r", 0, 0, 0, 1), want: LayoutMultiRun, runs: 2, lo: 1, hi: 3},
		{name: "duplicate canary", canary: ids("c", 0, 1, 2, 1), err: `duplicate canary id "c1" (row 2 and row 4)`},
		{name: "duplicate canary in a run", run: ids("r", 0, 0, 1, 1), canary: ids("c", 5, 5, 0, 1), err: `duplicate canary id "c5" in run "r0" (row 1 and row 2)`},
	}
	for _, c := range cases {
		tb := four()
		tb.Canary, tb.Run = c.canary, c.run
		info, err := DetectLayout(tb)
		if c.err != "" {
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if info.Layout != c.want || info.Runs != c.runs || info.MinPerRun != c.lo || info.MaxPerRun != c.hi || info.Why == "" {
			t.Errorf("%s: %+v, want %s with %d runs of %d..%d rows", c.name, info, c.want, c.runs, c.lo, c.hi)
		}
	}
}

func TestScoreTableCheck(t *testing.T) {
	cases := []struct {
		tb   ScoreTable
		want string
	}{
		{ScoreTable{Member: []bool{true, false}, Score: []float64{1, math.NaN()}, Line: []int{2, 7}}, "row 7: score is NaN"},
		{ScoreTable{Member: []bool{true, false}, Score: []float64{math.Inf(1), 0}}, "row 1: score is +Inf"},
		{ScoreTable{Member: []bool{true, true}, Score: []float64{1, 2}}, "no non-members"},
		{ScoreTable{Member: []bool{false, false}, Score: []float64{1, 2}}, "no members"},
		{ScoreTable{Member: []bool{false}, Score: []float64{1, 2}}, "2 scores but 1 membership bits"},
		{ScoreTable{}, "no rows"},
	}
	for _, c := range cases {
		err := c.tb.Check()
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.tb, err, c.want)
		}
	}
}

func TestAggregateUsers(t *testing.T) {
	tb := &ScoreTable{
		Member: []bool{true, false, true, false, true},
		Score:  []float64{1, 5, 3, -2, 2},
		User:   []string{"a", "b", "a", "b", "c"},
	}
	want := map[Aggregation][]float64{
		AggregateMax:       {3, 5, 2},
		AggregateMin:       {1, -2, 2},
		AggregateMean:      {2, 1.5, 2},
		AggregateLogSumExp: {3 + math.Log1p(math.Exp(-2)), 5 + math.Log1p(math.Exp(-7)), 2},
	}
	for a, w := range want {
		got, err := AggregateUsers(tb, a)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got.Canary, ",") != "a,b,c" || got.Member[0] != true || got.Member[1] != false || got.Line[1] != 2 {
			t.Fatalf("%s: units %v members %v lines %v", a, got.Canary, got.Member, got.Line)
		}
		for i := range w {
			if math.Abs(got.Score[i]-w[i]) > 1e-15 {
				t.Errorf("%s: user %d score %v, want %v", a, i, got.Score[i], w[i])
			}
		}
	}
	// logsumexp of large scores does not overflow.
	big := &ScoreTable{Member: []bool{true, true}, Score: []float64{1000, 1000}, User: []string{"u", "u"}}
	if got, _ := AggregateUsers(big, AggregateLogSumExp); math.Abs(got.Score[0]-(1000+math.Ln2)) > 1e-12 {
		t.Errorf("logsumexp(1000, 1000) = %v", got.Score[0])
	}
	// The same user in two runs is two units.
	tb.Run = []string{"r0", "r0", "r1", "r1", "r1"}
	got, err := AggregateUsers(tb, AggregateMax)
	if err != nil || len(got.Score) != 5 || got.Run[2] != "r1" {
		t.Fatalf("per-run users: %+v, %v", got, err)
	}
	// A user on both sides of membership is refused, naming the user and two rows.
	bad := &ScoreTable{Member: []bool{true, false, false}, Score: []float64{1, 2, 3}, User: []string{"x", "y", "x"}, Line: []int{2, 3, 4}}
	_, err = AggregateUsers(bad, AggregateMean)
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `user "x"`) || !strings.Contains(err.Error(), "row 2 is a member, row 4 is not a member") {
		t.Errorf("disagreeing user: %v", err)
	}
	if _, err := AggregateUsers(&ScoreTable{Member: []bool{true}, Score: []float64{1}}, AggregateMax); err == nil {
		t.Error("aggregation without a user column accepted")
	}
	if _, err := AggregateUsers(tb, "median"); err == nil || !strings.Contains(err.Error(), "max, min, mean, logsumexp") {
		t.Errorf("unknown aggregation: %v", err)
	}
}

// A classic table is estimated by Estimate itself, on the rows in table
// order, so EstimateScores and a direct call agree to the last bit.
func TestEstimateScoresClassicIsEstimate(t *testing.T) {
	scores, worlds := gaussianShift(1, 0, 500, 2)
	o := DefaultOptions()
	o.Seed = 12345
	want, err := Estimate(scores, worlds, o)
	if err != nil {
		t.Fatal(err)
	}
	e, err := EstimateScores(&ScoreTable{Member: worlds, Score: scores}, ScoreOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if e.Layout.Layout != LayoutClassic || e.Classic == nil || e.OneRun != nil {
		t.Fatalf("layout %+v, classic %v, one-run %v", e.Layout, e.Classic, e.OneRun)
	}
	if e.Classic.EpsilonLB != want.EpsilonLB || e.Classic.Threshold != want.Threshold || e.Classic.GDP != want.GDP {
		t.Errorf("EstimateScores %+v, Estimate %+v", *e.Classic, want)
	}
	rows := e.Rows()
	if len(rows) != 2 || rows[0].Family != FamilyEpsDeltaCP || !rows[0].RaisesViolation() || rows[1].RaisesViolation() {
		t.Errorf("rows %+v", rows)
	}
}

// A one-run table ranks centred scores: median − s for a loss, as the
// runner's input-canary audit does.
func TestEstimateScoresOneRunCentred(t *testing.T) {
	r := rng.New(3, "test", "one-run-centred")
	m := 400
	loss, in := make([]float64, m), make([]bool, m)
	canary := make([]string, m)
	for i := range loss {
		in[i] = r.IntN(2) == 1
		loss[i] = r.NormFloat64() + 3
		if in[i] {
			loss[i] -= 2
		}
		canary[i] = strconv.Itoa(i)
	}
	fam := OSFamily{SamplingRate: 1}
	e, err := EstimateScores(&ScoreTable{Member: in, Score: loss, Canary: canary},
		ScoreOptions{Options: Options{Delta: 1e-5, Confidence: 0.95, LowerMeansWorld1: true}, Family: &fam})
	if err != nil {
		t.Fatal(err)
	}
	med := Median(loss)
	s := make([]float64, m)
	for i := range s {
		s[i] = med - loss[i]
	}
	want, _ := OneRun(s, in, 20, 20, 1e-5, 0.95) // 5% of 400 each side
	wantOS, _ := OrderStatsOneRun(fam, s, in, m, 1e-5, 0.95)
	if e.Layout.Layout != LayoutOneRun || e.Classic != nil || *e.OneRun != want || *e.OrderStats != wantOS {
		t.Fatalf("got %+v / %+v, want %+v / %+v", e.OneRun, e.OrderStats, want, wantOS)
	}
	if want.EpsilonLB <= 0 || len(e.Skipped) != 2 {
		t.Errorf("ε_lb %v (want > 0 for a shift of 2), skipped %v", want.EpsilonLB, e.Skipped)
	}
}

// multiRunTable simulates R independent runs of m canaries each through
// the Gaussian mechanism with shift mu: the score of a canary is N(mu, 1)
// when it is in and N(0, 1) when it is out, independently, so every run
// is exactly mu-GDP with respect to each canary.
func multiRunTable(seed uint64, rep, runs, m int, mu float64) *ScoreTable {
	r := rng.New(seed, "test", "multi-run", rep)
	tb := &ScoreTable{}
	for run := range runs {
		for c := range m {
			in := r.IntN(2) == 1
			s := r.NormFloat64()
			if in {
				s += mu
			}
			tb.Member = append(tb.Member, in)
			tb.Score = append(tb.Score, s)
			tb.Run = append(tb.Run, strconv.Itoa(run))
			tb.Canary = append(tb.Canary, strconv.Itoa(c))
		}
	}
	return tb
}

// The combination of classic and one-run estimates on several runs ×
// many canaries is valid: against a mechanism that exactly meets the
// claim (μ = 2 GDP, ε(μ, δ) at δ = 1e-5), the violation rate over 300
// simulated tables is at most 1 − confidence = 5% (15 of 300; assert
// ≤ 26, +2.9 binomial sd), and against a claim of a quarter of the true
// ε it is found in most tables (power).
func TestMultiRunCombinationValid(t *testing.T) {
	mu := 2.0
	epsTrue, err := privacy.GDPEpsilon(mu, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	o := ScoreOptions{Options: Options{Delta: 1e-5, Confidence: 0.95}, ScoreIsLLR: false}
	false1, found, both := 0, 0, 0
	const sims = 300
	for rep := range sims {
		tb := multiRunTable(5, rep, 40, 50, mu)
		o.Seed = uint64(rep)
		e, err := EstimateScores(tb, o)
		if err != nil {
			t.Fatal(err)
		}
		if e.Layout.Layout != LayoutMultiRun {
			t.Fatalf("layout %v", e.Layout)
		}
		if e.Classic != nil && e.OneRun != nil {
			both++
		}
		ct, err := e.Test(Claim{Epsilon: epsTrue})
		if err != nil {
			t.Fatal(err)
		}
		if ct.Violation {
			false1++
		}
		if ct.Tests == 2 && !strings.HasPrefix(ct.Correction, "bonferroni over 2") {
			t.Fatalf("correction %q", ct.Correction)
		}
		ct, _ = e.Test(Claim{Epsilon: epsTrue / 4})
		if ct.Violation {
			found++
		}
	}
	if both < sims*9/10 {
		t.Errorf("classic and one-run both ran in %d of %d tables", both, sims)
	}
	if false1 > 26 {
		t.Errorf("%d of %d tables refuted a true claim (ε = %.3f)", false1, sims, epsTrue)
	}
	if found < sims*8/10 {
		t.Errorf("a claim of ε/4 = %.3f refuted in only %d of %d tables", epsTrue/4, found, sims)
	}
}

// Near the boundary: every canary goes through ε-DP randomised response
// (its score is its bit with probability e^ε/(1 + e^ε), ε = 1, δ = 0),
// against which Steinke et al.'s p-value is exact. 1000 runs × 2
// canaries give the classic estimate 1000 trials and the one-run ones
// 2000 canaries; over 400 tables the claim ε = 1 is refuted in at most
// 5% (20; assert ≤ 32, +2.7 binomial sd), and the classic estimate uses
// exactly one canary per run.
func TestMultiRunCombinationNearBoundary(t *testing.T) {
	p := 1 / (1 + math.Exp(-1))
	o := ScoreOptions{Options: Options{Delta: 0, Confidence: 0.95}}
	refuted := 0
	for rep := range 400 {
		r := rng.New(6, "test", "multi-run-rr", rep)
		tb := &ScoreTable{}
		for run := range 1000 {
			for c := range 2 {
				in := r.IntN(2) == 1
				s := 0.0
				if in == (r.Float64() < p) {
					s = 1
				}
				tb.Member = append(tb.Member, in)
				tb.Score = append(tb.Score, s)
				tb.Run = append(tb.Run, strconv.Itoa(run))
				tb.Canary = append(tb.Canary, strconv.Itoa(c))
			}
		}
		o.Seed = uint64(rep)
		o.Guesses.Steinke = 2000
		e, err := EstimateScores(tb, o)
		if err != nil {
			t.Fatal(err)
		}
		if e.Classic == nil || e.Classic.Trials0+e.Classic.Trials1 != 1000 || e.OneRunCanaries != 2000 {
			t.Fatalf("classic %+v on %d canaries", e.Classic, e.OneRunCanaries)
		}
		ct, err := e.Test(Claim{Epsilon: 1})
		if err != nil {
			t.Fatal(err)
		}
		if ct.Violation {
			refuted++
		}
	}
	if refuted > 32 {
		t.Errorf("the true claim ε = 1 refuted in %d of 400 tables", refuted)
	}
}

func TestClaimTestRules(t *testing.T) {
	tb := multiRunTable(9, 0, 40, 50, 3)
	e, err := EstimateScores(tb, ScoreOptions{Options: Options{Delta: 1e-5, Confidence: 0.95, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	rows := e.Rows()
	// Classic (eps_delta_cp, gdp_fit) and one-run (one_run, one_run_fdp);
	// order statistics are skipped without a family.
	var fams []string
	for _, r := range rows {
		fams = append(fams, r.Family)
	}
	if strings.Join(fams, ",") != "eps_delta_cp,gdp_fit,one_run,one_run_fdp" || len(e.Skipped) != 1 {
		t.Fatalf("rows %v, skipped %v", fams, e.Skipped)
	}
	claim := 0.5
	ct, err := e.Test(Claim{Epsilon: claim})
	if err != nil {
		t.Fatal(err)
	}
	p0, p2 := rows[0].pValue(claim), rows[2].pValue(claim)
	if ct.Tests != 2 || ct.PValue != math.Min(1, 2*math.Min(p0, p2)) || ct.Violation != (ct.PValue < 0.05) {
		t.Errorf("test %+v, p-values %v and %v", ct, p0, p2)
	}
	for i, r := range rows {
		if ct.Above[i] != (r.EpsilonLB > claim) {
			t.Errorf("row %s: above %v with ε_lb %v", r.Family, ct.Above[i], r.EpsilonLB)
		}
	}
	// Equality never counts as exceeding.
	ct, _ = e.Test(Claim{Epsilon: rows[0].EpsilonLB})
	if ct.Above[0] {
		t.Error("a bound equal to the claim counted as above it")
	}
	if _, err := e.Test(Claim{Epsilon: math.NaN()}); err == nil {
		t.Error("NaN claim accepted")
	}
	// No claim: nothing refuted.
	ct, _ = e.Test(Claim{Epsilon: math.Inf(1)})
	if ct.Violation || ct.PValue != 1 {
		t.Errorf("no claim: %+v", ct)
	}
}

func TestJoinPlan(t *testing.T) {
	ids := []string{"0", "1", "2", "3"}
	member := []bool{true, false, false, true}
	// Scored in another order, without a member column: the plan's bits,
	// in plan order.
	tb := &ScoreTable{Score: []float64{3, 1, 0, 2}, Canary: []string{"3", "1", "0", "2"}}
	got, err := JoinPlan(tb, ids, member)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Canary, ",") != "0,1,2,3" || fmt.Sprint(got.Score) != "[0 1 2 3]" || fmt.Sprint(got.Member) != "[true false false true]" || fmt.Sprint(got.Line) != "[3 2 4 1]" {
		t.Errorf("joined %+v", got)
	}
	cases := []struct {
		tb   ScoreTable
		want string
	}{
		{ScoreTable{Score: []float64{0, 1, 2, 3}, Canary: []string{"0", "1", "2", "9"}}, `row 4 scores canary "9", which is not in the plan`},
		{ScoreTable{Score: []float64{0, 1, 2}, Canary: []string{"0", "1", "2"}}, `1 of the plan's 4 canaries are not scored (the first: "3")`},
		{ScoreTable{Score: []float64{0, 1, 2, 3, 4}, Canary: []string{"0", "1", "2", "3", "1"}}, `duplicate canary id "1" (row 2 and row 5)`},
		{ScoreTable{Member: []bool{true, true, false, true}, Score: []float64{0, 1, 2, 3}, Canary: ids}, `row 2 says canary "1" is a member, the plan says it is not a member`},
		{ScoreTable{Score: []float64{0, 1, 2, 3}}, "needs a canary column"},
		{ScoreTable{Score: []float64{0, 1, 2, 3}, Canary: ids, Run: []string{"a", "a", "b", "b"}}, "2 runs, but a canary plan is for one training run"},
	}
	for _, c := range cases {
		_, err := JoinPlan(&c.tb, ids, member)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.tb, err, c.want)
		}
	}
	// Matching member bits pass.
	if _, err := JoinPlan(&ScoreTable{Member: member, Score: []float64{0, 1, 2, 3}, Canary: ids}, ids, member); err != nil {
		t.Error(err)
	}
}

// A step column makes a per-step table: PerStep on the samples in table
// order, composed over the claimed mechanism; without a claim the μ
// interval is reported and nothing can be refuted.
func TestEstimateScoresPerStep(t *testing.T) {
	r := rng.New(8, "test", "per-step")
	tb := &ScoreTable{}
	var in, out []float64
	for i := range 4000 {
		m := i%3 == 0
		s := r.NormFloat64()
		if m {
			s += 1.5
			in = append(in, s)
		} else {
			out = append(out, s)
		}
		tb.Member = append(tb.Member, m)
		tb.Score = append(tb.Score, s)
		tb.Step = append(tb.Step, strconv.Itoa(i/40))
	}
	o := ScoreOptions{Options: Options{Delta: 1e-5, Confidence: 0.95}}
	e, err := EstimateScores(tb, o)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := PerStep(in, out, 1, 1e-5, 0.95)
	if e.Layout.Layout != LayoutPerStep || e.PerStep == nil || e.PerStep.PerStepResult != want || !math.IsNaN(e.PerStep.EpsilonLB) {
		t.Fatalf("layout %v, per step %+v, want %+v", e.Layout, e.PerStep, want)
	}
	if rows := e.Rows(); len(rows) != 1 || rows[0].Valid || rows[0].RaisesViolation() {
		t.Errorf("without a claim: %+v", rows)
	}
	claim := &PerStepClaim{NoiseMultiplier: 1, SamplingRate: 1, Steps: 16}
	o.PerStepClaim = claim
	e, _ = EstimateScores(tb, o)
	lb, _ := ComposePerStep(want.MuLower, 1, 16, "", 1e-5)
	gdp, _ := privacy.GDPEpsilon(4*want.MuLower, 1e-5)
	if e.PerStep.EpsilonLB != lb || lb != gdp || e.PerStep.ClaimMu != 1 {
		t.Errorf("composed %v, want √T·μ's %v = %v", e.PerStep.EpsilonLB, lb, gdp)
	}
	// The per-step claim is refuted by its p-value, as a run decides.
	ct, _ := e.Test(Claim{Epsilon: 100})
	p := PerStepPValue(want, 1)
	if ct.Tests != 1 || ct.PValue != p || ct.Violation != (p < 0.05) {
		t.Errorf("claim test %+v, p-value %v", ct, p)
	}
	claim.NoiseMultiplier = 2 // μ = 1/2 < the samples' 1.5: refuted
	e, _ = EstimateScores(tb, o)
	if ct, _ := e.Test(Claim{Epsilon: 100}); !ct.Violation {
		t.Errorf("a per-step μ of 1.5 did not refute the claim μ = 0.5: %+v", ct)
	}
	tb.User = tb.Step
	if _, err := EstimateScores(tb, ScoreOptions{Options: o.Options, Aggregate: AggregateMax}); err == nil {
		t.Error("per-user aggregation of per-step samples accepted")
	}
}

// The verdict over several estimates is Bonferroni's: two tests at
// p = 0.03 and 0.2 do not refute at α = 0.05 (2 × 0.03 = 0.06), though
// either alone would; one test refutes by its bound (or, per-step, by
// its p-value).
func TestCombineTests(t *testing.T) {
	cases := []struct {
		tests []claimTest
		p     float64
		viol  bool
		corr  string
	}{
		{nil, math.NaN(), false, "no estimate can refute"},
		{[]claimTest{{p: 0.03, above: true}}, 0.03, true, "none (one test)"},
		{[]claimTest{{p: 0.03, above: false}}, 0.03, false, "none (one test)"},
		{[]claimTest{{p: 0.03, byPValue: true}}, 0.03, true, "none (one test)"},
		{[]claimTest{{p: 0.03, above: true}, {p: 0.2}}, 0.06, false, "bonferroni over 2 tests"},
		{[]claimTest{{p: 0.02, above: true}, {p: 0.2}}, 0.04, true, "bonferroni over 2 tests"},
		{[]claimTest{{p: 0.9}, {p: 0.8}}, 1, false, "bonferroni over 2 tests"},
	}
	for i, c := range cases {
		p, v, corr := combineTests(c.tests, 0.05)
		if !(p == c.p || math.IsNaN(p) && math.IsNaN(c.p)) || v != c.viol || !strings.HasPrefix(corr, c.corr) {
			t.Errorf("case %d: p %v, violation %v, %q; want %v, %v, %q", i, p, v, corr, c.p, c.viol, c.corr)
		}
	}
}

package figure

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/privacy"
	"github.com/dpaudit/dpaudit/report"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// A tradeoff figure puts a membership audit on the curve its claim must
// stay under: the claim's trade-off curve (privacy.TradeOffCurve of
// claim_accountant on the claimed mechanism, its symmetric curve: it bounds
// every membership test, TPR ≤ 1 − β(FPR)) and the audit's empirical
// operating points, each in a box that holds jointly with the others at
// the audit's confidence. A box entirely beyond the curve — its lowest TPR
// above the curve's TPR at its highest FPR — cannot be explained by any
// mechanism the claim describes at that confidence: it is drawn as a
// violation, and the figure's notes say so.

// lowerScores are the audit scores for which a low value means world 1
// (a loss: the distinguishers whose LowerMeansWorld1 is true; a test
// checks the list against package attack's distinguishers).
var lowerScores = []string{"loss", "max_loss", "mean_loss"}

// tradeoffPoint is one audited point's panel input.
type tradeoffPoint struct {
	index        int64
	title        string // the panel's: the label column's value, or "point i"
	id, score    string
	confidence   float64
	claim        mechanism
	trained      mechanism
	claimMatches bool
	claimEpsilon float64
	epsilonLB    float64
}

// mechanism is a claimed or trained DP-SGD configuration from the summary.
type mechanism struct {
	accountant                       string
	sigma, rate                      float64
	steps                            int
	sampling, clip, adjacency, label string
}

func (m mechanism) curve() (privacy.Curve, error) {
	c, err := privacy.TradeOffCurve(privacy.Accountant(m.accountant),
		stages.AccountedMechanism(m.sigma, m.rate, m.steps, m.sampling, m.adjacency, m.clip), privacy.Options{})
	if err != nil {
		return privacy.Curve{}, err
	}
	return c.Symmetric, nil
}

// drawTradeoff draws a tradeoff figure: one panel per audited point that
// the figure's where keeps.
func drawTradeoff(f *spec.Figure, sum *pipeline.Table, trials []report.TrialPart) (*Info, map[string][]byte, error) {
	t := f.Tradeoff
	pts, err := tradeoffPoints(t, sum)
	if err != nil {
		return nil, nil, fmt.Errorf("figure %s: %w", t.Name, err)
	}
	if len(pts) > t.MaxPanels {
		return nil, nil, fmt.Errorf("figure %s: %d audited points, more than max_panels = %d; filter with where or raise max_panels", t.Name, len(pts), t.MaxPanels)
	}
	ax := tradeoffAxes(t.Curve)
	var panels []report.CurvePanel
	var notes []string
	for _, p := range pts {
		panel, note, err := tradeoffPanel(t, p, trials, &ax)
		if err != nil {
			return nil, nil, fmt.Errorf("figure %s: point %d: %w", t.Name, p.index, err)
		}
		panels = append(panels, panel)
		notes = append(notes, note)
	}
	if len(panels) == 1 && t.Title != "" {
		panels[0].Title = ""
	}
	res, err := report.DrawCurves(f.Common(), panels, ax)
	if err != nil {
		return nil, nil, err
	}
	info := &Info{Name: t.Name, Title: t.Title, Notes: append(notes, res.Notes...)}
	files := map[string][]byte{}
	for _, format := range t.Formats {
		name := t.Name + "." + format
		files[name] = res.Files[format]
		info.Files = append(info.Files, name)
	}
	return info, files, nil
}

func tradeoffAxes(curve string) report.CurveAxes {
	if curve == "tradeoff" {
		return report.CurveAxes{XLabel: "α = FPR", YLabel: "β = FNR = 1 − TPR", XMin: 0, XMax: 1, YMin: 0, YMax: 1,
			BoxLabel: "audit (joint Clopper–Pearson box)", FlagLabel: "beyond the claimed curve"}
	}
	return report.CurveAxes{XLabel: "false-positive rate", YLabel: "true-positive rate", Log: true, XMin: 1e-3, XMax: 1, YMin: 1e-3, YMax: 1,
		BoxLabel: "audit (joint Clopper–Pearson box)", FlagLabel: "beyond the claimed curve"}
}

// tradeoffPoints reads the audited points the figure's where keeps; a
// kept point without a membership audit is an error.
func tradeoffPoints(t *spec.FigureTradeoff, sum *pipeline.Table) ([]tradeoffPoint, error) {
	keep := make([]bool, sum.Rows())
	for i := range keep {
		keep[i] = true
	}
	if t.Where != "" {
		fr, err := report.FromTable(sum, nil)
		if err != nil {
			return nil, err
		}
		if keep, err = report.WhereMask(t.Where, fr); err != nil {
			return nil, err
		}
	}
	var out []tradeoffPoint
	for i, k := range keep {
		if !k {
			continue
		}
		p, err := tradeoffPointAt(sum, i)
		if err != nil {
			return nil, err
		}
		if t.Label != "" {
			p.title = fmt.Sprint(cell(sum, t.Label, i))
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no point is left after where %q", t.Where)
	}
	return out, nil
}

func tradeoffPointAt(sum *pipeline.Table, i int) (tradeoffPoint, error) {
	str := func(c string) string { s, _ := cell(sum, c, i).(string); return s }
	num := func(c string) float64 {
		switch x := cell(sum, c, i).(type) {
		case float64:
			return x
		case int64:
			return float64(x)
		}
		return math.NaN()
	}
	idx, _ := cell(sum, "point_index", i).(int64)
	p := tradeoffPoint{index: idx, title: fmt.Sprintf("point %d", idx), id: str("point_id"), score: str("audit_score"), confidence: num("epsilon_lb_confidence"),
		claimEpsilon: num("epsilon_accountant"), epsilonLB: num("epsilon_lb")}
	if p.score == "" || str("estimate_family") != "eps_delta_cp" || math.IsNaN(p.confidence) {
		return p, fmt.Errorf("point %d has no membership audit with estimator clopper_pearson (a tradeoff figure draws its trials; select the audited points with where)", idx)
	}
	p.claimMatches, _ = cell(sum, "claim_matches_training", i).(bool)
	p.claim = mechanism{accountant: str("claim_accountant"), sigma: num("claim_noise_multiplier"), rate: num("claim_sampling_rate"),
		sampling: str("claim_sampling"), steps: int(num("claim_steps")), clip: str("claim_clip"), adjacency: str("claim_adjacency")}
	p.trained = mechanism{accountant: p.claim.accountant, sigma: num("trained_noise_multiplier"), rate: num("trained_sampling_rate"),
		sampling: str("trained_sampling"), steps: int(num("trained_steps")), clip: str("trained_clip"), adjacency: str("trained_adjacency")}
	return p, nil
}

func cell(t *pipeline.Table, name string, i int) any {
	if c := t.Col(name); c != nil && i < len(c.Values) {
		return c.Values[i]
	}
	return nil
}

// tradeoffPanel computes one point's curves and boxes, and the note that
// says how many boxes lie beyond the claimed curve.
func tradeoffPanel(t *spec.FigureTradeoff, p tradeoffPoint, trials []report.TrialPart, ax *report.CurveAxes) (report.CurvePanel, string, error) {
	scores, worlds, err := pointTrials(p, trials)
	if err != nil {
		return report.CurvePanel{}, "", err
	}
	claim, err := p.claim.curve()
	if err != nil {
		return report.CurvePanel{}, "", fmt.Errorf("the claim's curve: %w", err)
	}
	boxes, err := operatingPoints(scores, worlds, slicesContains(lowerScores, p.score), t.Thresholds, p.confidence)
	if err != nil {
		return report.CurvePanel{}, "", err
	}
	flagged := 0
	for k := range boxes {
		// Beyond the curve: even the box's most favourable corner (its
		// highest FPR, lowest TPR) has a TPR the claim does not allow.
		if audit.Exceeds(boxes[k].YLo, claim.TPR(boxes[k].XHi), audit.ClaimTolerance) {
			boxes[k].Flagged = true
			flagged++
		}
	}
	panel := report.CurvePanel{Title: fmt.Sprintf("%s (ε_lb %.3g, claimed ε %.3g)", p.title, p.epsilonLB, p.claimEpsilon)}
	claimText := fmt.Sprintf("claimed %s σ=%.4g q=%.4g T=%d", p.claim.accountant, p.claim.sigma, p.claim.rate, p.claim.steps)
	panel.Lines = append(panel.Lines, curveLine(claim, "claimed curve", t.Curve, false))
	if !p.claimMatches {
		claimText += fmt.Sprintf(", trained σ=%.4g q=%.4g T=%d", p.trained.sigma, p.trained.rate, p.trained.steps)
		trained, err := p.trained.curve()
		switch {
		case errors.Is(err, privacy.ErrNoAccountant):
			// Shuffled batches: no accountant gives a valid curve, so
			// none is drawn (a lower bound would look like an upper one).
			claimText += fmt.Sprintf(" (%s sampling: no accountant gives its curve)", p.trained.sampling)
		case err != nil:
			return report.CurvePanel{}, "", fmt.Errorf("the trained mechanism's curve: %w", err)
		default:
			panel.Lines = append(panel.Lines, curveLine(trained, "trained curve", t.Curve, true))
		}
	}
	panel.Lines = append(panel.Lines, guessing(t.Curve))
	for k := range boxes {
		if t.Curve == "tradeoff" {
			b := &boxes[k]
			b.Y, b.YLo, b.YHi = 1-b.Y, 1-b.YHi, 1-b.YLo
		} else {
			widenLog(ax, boxes[k])
		}
	}
	panel.Boxes = boxes
	note := fmt.Sprintf("point %d (%s): %d of %d operating points (score %s, joint confidence %g) lie entirely beyond the claimed curve", p.index, claimText, flagged, len(boxes), p.score, p.confidence)
	if flagged > 0 {
		note += ": the audit refutes the claim"
	}
	return panel, note, nil
}

// widenLog lowers a log axis to show a box's point (the boxes' lower ends
// may be 0, which no log axis shows: they are drawn to the edge).
func widenLog(ax *report.CurveAxes, b report.Box) {
	if b.X > 0 {
		ax.XMin = math.Min(ax.XMin, math.Pow(10, math.Floor(math.Log10(b.X))))
	}
	if b.Y > 0 {
		ax.YMin = math.Min(ax.YMin, math.Pow(10, math.Floor(math.Log10(b.Y))))
	}
}

// guessing is the test that ignores the release: TPR = FPR.
func guessing(mode string) report.CurveLine {
	l := report.CurveLine{Label: "guessing", Dashed: true, X: []float64{1e-6, 1}, Y: []float64{1e-6, 1}}
	if mode == "tradeoff" {
		l.X, l.Y = []float64{0, 1}, []float64{1, 0}
	}
	return l
}

// curveLine samples a curve: TPR at log-spaced FPRs from 1e-6 to 1 (roc),
// or β at evenly spaced α (tradeoff).
func curveLine(c privacy.Curve, label, mode string, dashed bool) report.CurveLine {
	const n = 300
	l := report.CurveLine{Label: label, Dashed: dashed}
	for i := range n {
		if mode == "tradeoff" {
			a := float64(i) / (n - 1)
			l.X, l.Y = append(l.X, a), append(l.Y, c.Beta(a))
			continue
		}
		a := math.Pow(10, -6+6*float64(i)/(n-1))
		l.X, l.Y = append(l.X, a), append(l.Y, c.TPR(a))
	}
	return l
}

// pointTrials reads the scores and worlds of repeat 0 of a point (the
// repeat the audit's estimate is).
func pointTrials(p tradeoffPoint, trials []report.TrialPart) ([]float64, []bool, error) {
	var scores []float64
	var worlds []bool
	for _, part := range trials {
		if part.PointID != p.id {
			continue
		}
		tb, err := pipeline.ReadParquet(part.Path)
		if err != nil {
			return nil, nil, err
		}
		sc, wc, rc := tb.Col(p.score), tb.Col("world"), tb.Col("repeat")
		if sc == nil || wc == nil {
			return nil, nil, fmt.Errorf("%s: no %s or world column", part.Path, p.score)
		}
		for i := range sc.Values {
			if rc != nil && rc.Values[i] != int64(0) {
				continue
			}
			if v, ok := sc.Values[i].(float64); ok {
				scores, worlds = append(scores, v), append(worlds, wc.Values[i] == int64(1))
			}
		}
	}
	if len(scores) == 0 {
		return nil, nil, fmt.Errorf("no trials with a %s score", p.score)
	}
	return scores, worlds, nil
}

// operatingPoints returns up to k operating points of the test "score at
// or beyond a threshold means world 1" (low scores when lower), at
// thresholds where the share of trials guessed world 1 is log-spaced from
// max(10/n, 0.001) to 0.5, each with two-sided Clopper–Pearson intervals
// on its FPR and TPR at 1 − (1 − confidence)/(2k): by the union bound all
// 2k intervals hold together with probability ≥ confidence.
func operatingPoints(scores []float64, worlds []bool, lower bool, k int, confidence float64) ([]report.Box, error) {
	n := len(scores)
	oriented := make([]float64, n)
	var n1 int
	for i, s := range scores {
		oriented[i] = s
		if lower {
			oriented[i] = -s
		}
		if worlds[i] {
			n1++
		}
	}
	n0 := n - n1
	if n0 == 0 || n1 == 0 {
		return nil, fmt.Errorf("the trials hold only one world (%d in world 0, %d in world 1)", n0, n1)
	}
	sorted := append([]float64(nil), oriented...)
	sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
	lo := math.Min(math.Max(10/float64(n), 1e-3), 0.5)
	perRate := 1 - (1-confidence)/float64(2*k)
	var out []report.Box
	seen := map[float64]bool{}
	for j := range k {
		share := 0.5
		if k > 1 {
			share = lo * math.Pow(0.5/lo, float64(j)/float64(k-1))
		}
		thr := sorted[max(int(math.Ceil(share*float64(n)))-1, 0)]
		if seen[thr] {
			continue
		}
		seen[thr] = true
		var fp, tp int
		for i, s := range oriented {
			if s >= thr {
				if worlds[i] {
					tp++
				} else {
					fp++
				}
			}
		}
		b, err := cpBox(fp, n0, tp, n1, perRate)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func cpBox(fp, n0, tp, n1 int, conf float64) (report.Box, error) {
	b := report.Box{X: float64(fp) / float64(n0), Y: float64(tp) / float64(n1)}
	var err error
	for _, e := range []struct {
		dst  *float64
		up   bool
		x, n int
	}{{&b.XLo, false, fp, n0}, {&b.XHi, true, fp, n0}, {&b.YLo, false, tp, n1}, {&b.YHi, true, tp, n1}} {
		if e.up {
			*e.dst, err = audit.ClopperPearsonUpper(e.x, e.n, conf, audit.TwoSided)
		} else {
			*e.dst, err = audit.ClopperPearsonLower(e.x, e.n, conf, audit.TwoSided)
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

package spec

import (
	"fmt"
	"math"
	"strings"
)

// Limits bound what a spec may ask for before anything is allocated for
// it: a plan of a spec within them stays under about a gigabyte (see
// docs/store.md for the measurements). They are checked arithmetically,
// from the counts the spec declares, never by building what they bound.
type Limits struct {
	Points int // sweep points, before the where filter
	Nodes  int // pipeline nodes of the whole plan (estimated, see pointNodes)
	Trials int // trials of one point (audit trials × repeats, repetitions, trainings …)
}

// Default limits (Options.MaxPoints, MaxNodes, MaxTrials at 0).
const (
	DefaultMaxPoints = 100_000
	DefaultMaxNodes  = 100_000
	DefaultMaxTrials = 10_000_000
)

// LargeFactor is how much Options.AllowLarge (--allow-large) raises every
// limit: it raises them, it never removes them.
const LargeFactor = 10

// limits resolves the options' limits.
func (o Options) limits() Limits {
	l := Limits{Points: o.MaxPoints, Nodes: o.MaxNodes, Trials: o.MaxTrials}
	for _, f := range []struct {
		v   *int
		def int
	}{{&l.Points, DefaultMaxPoints}, {&l.Nodes, DefaultMaxNodes}, {&l.Trials, DefaultMaxTrials}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
		if o.AllowLarge {
			*f.v = int(min(float64(*f.v)*LargeFactor, math.MaxInt64/2))
		}
	}
	return l
}

// raise says how a limit is raised: the flag, and --allow-large if unset.
func (o Options) raise(flag string) string {
	if o.AllowLarge {
		return "raise --" + flag + " (already ×" + fmt.Sprint(LargeFactor) + " with --allow-large)"
	}
	return fmt.Sprintf("raise --%s, or pass --allow-large (every limit ×%d)", flag, LargeFactor)
}

// checkPoints refuses a sweep larger than the points limit from the
// lengths of its axes, before any value of them is made (a linspace's
// count is read, not expanded).
func checkPoints(file string, root *Node, o Options) error {
	sn := root.Get("sweep")
	if sn == nil || sn.Kind != MapNode {
		return nil
	}
	n := 1.0
	if g := sn.Get("grid"); g != nil && g.Kind == MapNode {
		for _, v := range g.Vals {
			n *= axisLength(v)
		}
	}
	if z := sn.Get("zip"); z != nil && z.Kind == MapNode && len(z.Vals) > 0 {
		n *= axisLength(z.Vals[0])
	}
	l := o.limits()
	if n <= float64(l.Points) {
		return nil
	}
	return Errors{{File: source(file, o.Overrides, sn.Pos), Pos: sn.Pos, Path: "sweep", Msg: fmt.Sprintf("expands to %.0f points, more than the limit of %d: lower the sweep, or %s", n, l.Points, o.raise("max-points"))}}
}

// axisLength is the number of values of one swept key as written (a list,
// or the count of a linspace/logspace); 1 for anything malformed, which
// readSweep reports.
func axisLength(v *Node) float64 {
	switch v.Kind {
	case ListNode:
		return float64(max(len(v.Items), 1))
	case MapNode:
		if len(v.Vals) == 1 && v.Vals[0].Kind == ListNode && len(v.Vals[0].Items) == 3 {
			switch c := v.Vals[0].Items[2].Value.(type) {
			case int64:
				return max(float64(c), 1)
			case float64:
				return max(math.Trunc(c), 1)
			}
		}
	}
	return 1
}

// checkExpanded checks every point's trial count and the plan's node count
// against the limits, before the points are compiled into a graph.
func (s *Spec) checkExpanded(points []Point) error {
	l := s.opts.limits()
	for i, pt := range points {
		if trials, shown, key := pointTrials(pt.Exp); trials > float64(l.Trials) {
			return s.ErrorAt(key, fmt.Errorf("%s trials at point %d, more than the limit of %d per point: lower %s, or %s", shown, i, l.Trials, key, s.opts.raise("max-trials")))
		}
	}
	total := EstimateNodes(points)
	if total <= float64(l.Nodes) {
		return nil
	}
	worst, worstAt := 0.0, 0
	for i, pt := range points {
		if n, _ := pointNodes(pt.Exp); n > worst {
			worst, worstAt = n, i
		}
	}
	msg := fmt.Sprintf("the spec would make up to %.0f pipeline nodes (%d point(s), up to %.0f nodes each, work shared by points counted once per point), more than the limit of %d", total, len(points), worst, l.Nodes)
	if _, key := pointNodes(points[worstAt].Exp); key != "" && worst*4 > float64(l.Nodes) {
		return s.ErrorAt(key, fmt.Errorf("%s: %s, or %s", msg, nodeAdvice(key), s.opts.raise("max-nodes")))
	}
	return s.ErrorAt("sweep", fmt.Errorf("%s: lower the sweep, or %s", msg, s.opts.raise("max-nodes")))
}

// EstimateNodes is the number of pipeline nodes the points will make,
// estimated from above from the counts they declare (shared nodes are
// counted once per point): what the node limit is checked against.
func EstimateNodes(points []Point) float64 {
	total := 1.0 // the summary
	for _, pt := range points {
		n, _ := pointNodes(pt.Exp)
		total += n
	}
	if len(points) > 0 && points[0].Exp.Report != nil {
		total += float64(len(points[0].Exp.Report.Figures))
	}
	return total
}

// nodeAdvice names what to change at the key that makes most nodes.
func nodeAdvice(key string) string {
	switch {
	case strings.HasSuffix(key, "shard_size"), strings.HasSuffix(key, "trials_per_call"):
		return "raise " + key + " (results do not depend on it) or lower the trials"
	case strings.HasSuffix(key, ".trials"), strings.HasSuffix(key, ".repetitions"):
		return "lower " + key + " or set a larger shard_size beside it (results do not depend on it)"
	}
	return "lower " + key
}

// pointTrials is the largest number of trials (trainings or repetitions)
// one game of the point runs, as a number and as the spec states it, and
// the key that sets it.
func pointTrials(exp *Experiment) (n float64, shown, key string) {
	see := func(k string, counts ...int) {
		m, parts := 1.0, []string{}
		for i, c := range counts {
			if i == 0 || c > 1 {
				m *= float64(c)
				parts = append(parts, fmt.Sprint(c))
			}
		}
		if m > n {
			n, shown, key = m, strings.Join(parts, " × "), k
		}
	}
	if a := exp.Audit; a != nil {
		see("audit.trials", a.Trials, max(a.Repeats, 1), max(a.Runs, 1))
	}
	if t := exp.Train; t != nil {
		see("train.runs", t.Runs)
	}
	if id := exp.Identifiability; id != nil {
		see("identifiability.repetitions", id.Repetitions)
	}
	if r := exp.Reconstruction; r != nil {
		switch {
		case r.PriorAware != nil:
			see("reconstruction.trials", r.PriorAware.Trials)
		case r.Inversion != nil:
			see("reconstruction.trials", r.Inversion.Trials)
		case r.GLM != nil:
			see("reconstruction.releases", r.GLM.Releases, max(r.GLM.Average, 1))
		}
	}
	return n, shown, key
}

// Default shard sizes of the games, as their spec keys document them
// (audit.shard_size, reconstruction.shard_size, identifiability.shard_size
// at 0). They mirror the stages' defaults: the node count is an estimate
// made before any stage runs; a game that declared its node count per
// point would make it exact.
const (
	shardTrained      = 64
	shardIdeal        = 65536
	shardReconPrior   = 32
	shardReconInverse = 8
	shardIdentify     = 50
	firstLook         = 100 // audit.sequential.first_look at 0
)

func shards(trials, size, def int) float64 {
	if size <= 0 {
		size = def
	}
	return math.Ceil(float64(trials) / float64(size))
}

// pointNodes estimates, from above, the pipeline nodes one point makes,
// and the key that makes most of them ("" when no key dominates).
func pointNodes(exp *Experiment) (float64, string) {
	n, big, key := 0.0, 0.0, ""
	add := func(k float64, at string) {
		n += k
		if k > big {
			big, key = k, at
		}
	}
	ideal := exp.Model != nil && exp.Model.Ideal != nil
	if a := exp.Audit; a != nil {
		if t := exp.Trainer; t != nil && t.TrialsPerCall > 0 && exp.Model != nil && exp.Model.External != nil {
			// An external trainer's calls are the audit's shards.
			c := *a
			c.ShardSize = t.TrialsPerCall
			k, at := auditNodes(&c, false)
			if at != "" {
				at = "trainer.trials_per_call"
			}
			add(k, at)
		} else {
			k, at := auditNodes(a, ideal)
			add(k, at)
		}
	}
	if t := exp.Train; t != nil {
		add(float64(t.Runs)+2, "train.runs")
	}
	if id := exp.Identifiability; id != nil {
		add(shards(id.Repetitions, id.ShardSize, shardIdentify)+2, shardKey("identifiability", id.ShardSize))
	}
	if r := exp.Reconstruction; r != nil {
		switch {
		case r.PriorAware != nil:
			def := shardReconPrior
			if ideal {
				def = shardIdeal
			}
			add(shards(r.PriorAware.Trials, r.PriorAware.ShardSize, def)+3, shardKey("reconstruction", r.PriorAware.ShardSize))
		case r.Inversion != nil:
			add(shards(r.Inversion.Trials, r.Inversion.ShardSize, shardReconInverse)+3, shardKey("reconstruction", r.Inversion.ShardSize))
		default:
			add(3, "")
		}
	}
	for _, b := range exp.Bound {
		switch {
		case b.Accountant != nil:
			add(float64(len(b.Accountant.Accountants)), "")
		case b.Rero != nil:
			add(1+float64(len(b.Rero.Compare)), "")
		default:
			add(2, "")
		}
	}
	return n, key
}

// auditNodes counts a membership audit's nodes: per repeat its trial
// shards (and a craft node), or its training runs; looks; the estimate.
func auditNodes(a *Audit, ideal bool) (float64, string) {
	repeats := float64(max(a.Repeats, 1))
	key := shardKey("audit", a.ShardSize)
	def := shardTrained
	if ideal {
		def = shardIdeal
	}
	switch {
	case a.Stop == "sequential":
		return sequentialNodes(a, def) + 2, key
	case a.Estimator == "per_step" && !ideal:
		return repeats*float64(max(a.Runs, 1)+1) + 2, "audit.runs"
	case a.Estimator == "one_run" && !ideal:
		return 2*repeats + 2, ""
	}
	return repeats*(shards(a.Trials, a.ShardSize, def)+1) + 2, key
}

// sequentialNodes counts a sequential audit's shards and looks: looks at
// first_look trials, twice that, … up to the budget, each look's new
// trials in shards of their own.
func sequentialNodes(a *Audit, defShard int) float64 {
	first := firstLook
	if a.Sequential != nil && a.Sequential.FirstLook > 0 {
		first = a.Sequential.FirstLook
	}
	n, done := 0.0, 0
	for look := first; ; look *= 2 {
		look = min(look, a.Trials)
		n += 1 + shards(look-done, a.ShardSize, defShard)
		done = look
		if look >= a.Trials || look <= 0 {
			return n
		}
	}
}

// shardKey is the key to change to make fewer shards: the shard size when
// it is set, the trial count when the default shard size is used.
func shardKey(block string, size int) string {
	if size > 0 {
		return block + ".shard_size"
	}
	if block == "identifiability" {
		return block + ".repetitions"
	}
	return block + ".trials"
}

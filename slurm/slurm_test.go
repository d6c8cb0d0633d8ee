package slurm

import (
	"strings"
	"testing"
	"time"

	"github.com/dpaudit/dpaudit/pipeline"
)

// A node's layer is one more than its deepest input that also runs;
// cached inputs do not count.
func TestLayers(t *testing.T) {
	g := pipeline.NewGraph()
	mk := func(label string, in ...*pipeline.Node) *pipeline.Node {
		return g.Add(&pipeline.Node{Kind: "k", Label: label, Params: label, Inputs: in})
	}
	a := mk("a")
	b := mk("b")
	c := mk("c", a, b)
	d := mk("d", c)
	e := mk("e", a) // a is cached: e is in the first layer
	steps := []pipeline.Step{{Node: a, Status: pipeline.Cached}, {Node: b, Status: pipeline.Run}, {Node: c, Status: pipeline.Run},
		{Node: d, Status: pipeline.Run}, {Node: e, Status: pipeline.Run}}
	got := Layers(steps)
	want := [][]string{{"b", "e"}, {"c"}, {"d"}}
	if len(got) != len(want) {
		t.Fatalf("%d layers, want %d", len(got), len(want))
	}
	for i := range want {
		var labels []string
		for _, n := range got[i] {
			labels = append(labels, n.Label)
		}
		if strings.Join(labels, ",") != strings.Join(want[i], ",") {
			t.Fatalf("layer %d: %v, want %v", i, labels, want[i])
		}
	}
}

func TestChunkFor(t *testing.T) {
	nodes := make([]*pipeline.Node, 100000)
	for _, c := range []struct {
		cfg     Config
		perNode time.Duration
		want    int
	}{
		{Config{Chunk: 7}, time.Second, 7},                  // explicit wins
		{Config{Parallel: 64}, 0, 1563},                     // unmeasured: one task per slot
		{Config{Parallel: 1000000}, 0, 100},                 // never more than MaxTasks tasks
		{Config{Parallel: 64}, 10 * time.Millisecond, 6000}, // a minute of measured work
		{Config{Parallel: 64}, 2 * time.Minute, 100},        // long nodes: one each, capped by MaxTasks
	} {
		if got := c.cfg.ChunkFor(nodes, nil, c.perNode); got != c.want {
			t.Errorf("%+v, %v per node: chunk %d, want %d", c.cfg, c.perNode, got, c.want)
		}
	}
	if got := (Config{Parallel: 4}).ChunkFor(nodes[:3], nil, 0); got != 1 {
		t.Errorf("3 nodes over 4 slots: chunk %d, want 1", got)
	}
}

// The script carries the options and a worker command that survives odd
// paths.
func TestScript(t *testing.T) {
	e := &Executor{Config: Config{Partition: "gpu", Mem: "4G", CPUsPerTask: 2, Extra: []string{"#SBATCH --gres=gpu:1", "--exclusive"}},
		Worker: []string{"/opt/dp audit/dpaudit", "worker", "/x/it's.yaml"}, RunDir: "/r"}
	sc, err := e.script("dpaudit-x-L0-a0", "0-9%2", e.chunkFile(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-9%2\n", "#SBATCH --partition=gpu\n", "#SBATCH --mem=4G\n", "#SBATCH --cpus-per-task=2\n",
		"#SBATCH --gres=gpu:1\n", "#SBATCH --exclusive\n", `exec '/opt/dp audit/dpaudit' worker '/x/it'\''s.yaml' --chunks /r/L0-a0.chunks --index "$SLURM_ARRAY_TASK_ID"`} {
		if !strings.Contains(sc, want) {
			t.Errorf("script lacks %q:\n%s", want, sc)
		}
	}
}

// slurmArgument reads one #SBATCH argument as sbatch does (Slurm's
// _get_argument in src/sbatch/opt.c: a backslash escapes the next
// character, single or double quotes group, an unquoted # ends the line).
func slurmArgument(s string) string {
	var b strings.Builder
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case q != 0 && c == q:
			q = 0
		case q != 0:
			b.WriteByte(c)
		case c == '"' || c == '\'':
			q = c
		case c == ' ' || c == '#':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// A store path with a space, quotes, '#' or '%' broke --executor slurm:
// #SBATCH --output= was not quoted. Every path the script carries is
// quoted for its context: the #SBATCH line as sbatch reads it (with '%'
// doubled, since --output is a filename pattern), the command for sh.
func TestScriptQuotesPaths(t *testing.T) {
	run := `/data/it's a "store" #1 100%/slurm/x-1`
	e := &Executor{Worker: []string{"/opt/dpaudit", "worker", `/data/it's a "store" #1 100%/spec.yaml`}, RunDir: run}
	sc, err := e.script("dpaudit-x-L0-a0", "0-9", e.chunkFile(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var out string
	for _, line := range strings.Split(sc, "\n") {
		if v, ok := strings.CutPrefix(line, "#SBATCH --output="); ok {
			out = slurmArgument(v)
		}
	}
	if want := strings.ReplaceAll(run, "%", "%%") + "/logs/%A_%a.out"; out != want {
		t.Fatalf("sbatch reads --output as %q, want %q:\n%s", out, want, sc)
	}
	if !strings.Contains(sc, `--chunks '/data/it'\''s a "store" #1 100%/slurm/x-1/L0-a0.chunks'`) {
		t.Fatalf("chunk path not quoted for sh:\n%s", sc)
	}
	for _, bad := range []string{"/data/new\nline", `/data/back\slash`} {
		e.RunDir = bad
		if _, err := e.script("x", "0", e.chunkFile(0, 0)); err == nil || !strings.Contains(err.Error(), "cannot") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

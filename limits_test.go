package dpaudit

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// The node limit is checked against an estimate the spec package makes
// from the counts a spec declares, before the graph exists. For every
// example it must bound the compiled graph from above (a limit may be
// loose, never on the wrong side), and not by much: it counts work points
// share once per point and every optional node of a game, which makes it
// at most 2.8 times the graph on the examples (fig2-pnsgd, 25 for 9). The
// calibrating functions are stubbed (they move noise levels, not node
// counts, and cost minutes on a fresh store).
func TestNodeEstimateBoundsEveryExample(t *testing.T) {
	var specs []string
	filepath.WalkDir("examples", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			specs = append(specs, p)
		}
		return nil
	})
	if len(specs) < 10 {
		t.Fatalf("found %d example specs", len(specs))
	}
	funcs := stages.Functions(stages.NewMemo(pipeline.NewStore(t.TempDir())))
	// A stub answers equal arguments equally and different ones
	// differently, so the points share exactly the nodes they would.
	stub := map[string]float64{"calibrate": 1, "epsilon": 1, "delta": 1e-6, "bernau_noise": 1}
	for name, v := range stub {
		if funcs[name] == nil {
			t.Fatalf("no function %s to stub", name)
		}
		funcs[name] = func(args ...any) (any, error) {
			h := fnv.New32a()
			fmt.Fprint(h, args...)
			return v * (1 + float64(h.Sum32()%1000)/1000), nil
		}
	}
	for _, p := range specs {
		s, err := spec.Load(p, spec.Options{Functions: funcs, Implemented: stages.Implements(games)})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		points, cols, err := s.Expand()
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		c, err := stages.Compile(games, s.Name, points, cols, stages.Env{DataDir: datasets.DefaultDataDir(), Code: codeOf})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		est, nodes := spec.EstimateNodes(points), float64(c.Graph.Len())
		t.Logf("%s: %d nodes, estimated %.0f", p, c.Graph.Len(), est)
		if est < nodes || est > 3*nodes+16 {
			t.Errorf("%s: %d nodes, estimated %.0f", p, c.Graph.Len(), est)
		}
	}
}

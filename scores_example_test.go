package dpaudit

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpaudit/dpaudit/rng"
)

var updateScores = flag.Bool("update-scores", false, "rewrite the score tables of examples/scores from their generator")

// scoreTables are examples/scores' tables: the attack scores of the
// Gaussian mechanism with sensitivity 1 and noise σ, as a user's own
// pipeline would hand them over — 2000 independent trials, alternately
// without (member 0) and with (member 1) the target, each scored by the
// released value x = member + σ·z (the Neyman–Pearson optimal score: the
// log-likelihood ratio is increasing in x). The mechanism is 1/σ-GDP.
var scoreTables = []struct {
	file  string
	sigma float64
}{{"sigma-0.5.csv", 0.5}, {"sigma-1.csv", 1}, {"sigma-2.csv", 2}}

func scoreTableCSV(sigma float64) []byte {
	r := rng.New(1, "examples/scores", sigma)
	var b bytes.Buffer
	b.WriteString("member,score\n")
	for i := range 2000 {
		member := i % 2
		fmt.Fprintf(&b, "%d,%.6f\n", member, float64(member)+sigma*r.NormFloat64())
	}
	return b.Bytes()
}

// The example's score tables are what scoreTableCSV writes (regenerate
// them with go test . -run TestScoresExampleFiles -update-scores).
func TestScoresExampleFiles(t *testing.T) {
	for _, st := range scoreTables {
		path := filepath.Join("examples", "scores", st.file)
		want := scoreTableCSV(st.sigma)
		if *updateScores {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s is stale; regenerate it with: go test . -run TestScoresExampleFiles -update-scores", path)
		}
	}
}

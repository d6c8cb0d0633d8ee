package external

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/audit/scorefile"
	"github.com/dpaudit/dpaudit/internal/npy"
)

// The files a trainer writes into the request's output folder.
const (
	HyperparametersFile = "hyperparameters.json"
	RefusalFile         = "refusal.txt"
)

// ObservationFiles are the table's names, in the order they are looked
// for; a trainer writes exactly one.
var ObservationFiles = []string{"observations.csv", "observations.jsonl", "observations.npy", "observations.parquet"}

// Observations are a call's validated scores: Score[(k·m + j)·S + t] is
// trial Trials[k]'s score of canary j at step t (m = 1 in the membership
// game, S = 1 for the final loss, T for a per-step report), in the
// request's order whatever order the trainer wrote.
type Observations struct {
	Score []float64
	Used  Hyperparameters
	// File is the table the scores came from.
	File string
}

// row is one observation as read, before validation; at names it in
// messages ("observations.csv:7").
type row struct {
	trial, canary, step int64
	score               float64
	at                  string
}

// layout is the table's key columns as the request asks for them.
type layout struct{ canary, step bool }

// Read reads and validates the trainer's output folder against req.
func Read(dir string, req *Request) (*Observations, error) {
	if b, err := os.ReadFile(filepath.Join(dir, RefusalFile)); err == nil {
		return nil, fmt.Errorf("%w: the trainer cannot serve this request (game %s, threat model %s, report %s): %s",
			ErrInvalid, req.Game, req.Threat, req.Report, strings.TrimSpace(string(b)))
	}
	var file string
	for _, name := range ObservationFiles {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			if file != "" {
				return nil, fmt.Errorf("%w: the trainer wrote both %s and %s; write one table", ErrInvalid, file, name)
			}
			file = name
		}
	}
	if file == "" {
		return nil, fmt.Errorf("%w: the trainer exited without writing a table (want one of %s in %s)", ErrInvalid, strings.Join(ObservationFiles, ", "), dir)
	}
	rows, err := readRows(filepath.Join(dir, file), layout{canary: req.Game == GameOneRun, step: PerStep(req.Report)})
	if err != nil {
		return nil, err
	}
	scores, err := validate(rows, req)
	if err != nil {
		return nil, err
	}
	used, err := readUsed(filepath.Join(dir, HyperparametersFile))
	if err != nil {
		return nil, err
	}
	if bad := req.DPSGD.Mismatch(used); len(bad) > 0 {
		return nil, fmt.Errorf("%w: the trainer reports training with %s: what was trained is not the claim that is audited (fix the trainer or the spec's dpsgd block)",
			ErrInvalid, strings.Join(bad, ", "))
	}
	return &Observations{Score: scores, Used: used, File: file}, nil
}

// validate puts rows in the request's order: every (trial, canary, step)
// the request asks for exactly once, no other, every score finite.
func validate(rows []row, req *Request) ([]float64, error) {
	m, steps := req.canaries(), req.Steps()
	slot := make(map[int64]int, len(req.Trials))
	for k, t := range req.Trials {
		slot[int64(t.Trial)] = k
	}
	out := make([]float64, req.Rows())
	seen := make([]string, len(out))
	for _, r := range rows {
		k, ok := slot[r.trial]
		if !ok {
			return nil, fmt.Errorf("%w: %s: trial %d is not in this call (it asked for trials %s)", ErrInvalid, r.at, r.trial, trialList(req))
		}
		if r.canary < 0 || r.canary >= int64(m) {
			return nil, fmt.Errorf("%w: %s: unknown canary id %d (the request has canaries 0…%d)", ErrInvalid, r.at, r.canary, m-1)
		}
		if r.step < 0 || r.step >= int64(steps) {
			return nil, fmt.Errorf("%w: %s: unknown step %d (the request has steps 0…%d)", ErrInvalid, r.at, r.step, steps-1)
		}
		if math.IsNaN(r.score) || math.IsInf(r.score, 0) {
			return nil, fmt.Errorf("%w: %s: trial %d canary %d%s: score %v is not finite", ErrInvalid, r.at, r.trial, r.canary, stepNote(req, r.step), r.score)
		}
		i := (k*m+int(r.canary))*steps + int(r.step)
		if seen[i] != "" {
			return nil, fmt.Errorf("%w: %s: trial %d canary %d%s appears twice (first at %s)", ErrInvalid, r.at, r.trial, r.canary, stepNote(req, r.step), seen[i])
		}
		seen[i], out[i] = r.at, r.score
	}
	for i, s := range seen {
		if s == "" {
			return nil, fmt.Errorf("%w: the table has %d rows, the request asks for %d (trials × canaries × steps): trial %d canary %d%s is missing",
				ErrInvalid, len(rows), len(out), req.Trials[i/(m*steps)].Trial, i/steps%m, stepNote(req, int64(i%steps)))
		}
	}
	return out, nil
}

// stepNote names a step in messages about a per-step report ("" for the
// final loss).
func stepNote(req *Request, step int64) string {
	if !PerStep(req.Report) {
		return ""
	}
	return fmt.Sprintf(" step %d", step)
}

func trialList(req *Request) string {
	if len(req.Trials) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d…%d", req.Trials[0].Trial, req.Trials[len(req.Trials)-1].Trial)
}

func readUsed(path string) (Hyperparameters, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Hyperparameters{}, fmt.Errorf("%w: the trainer wrote no %s (the DP-SGD parameters it trained with, checked against the claim)", ErrInvalid, HyperparametersFile)
	}
	if err != nil {
		return Hyperparameters{}, err
	}
	var h Hyperparameters
	if err := json.Unmarshal(b, &h); err != nil {
		return Hyperparameters{}, fmt.Errorf("%w: %s: %v", ErrInvalid, HyperparametersFile, err)
	}
	return h, nil
}

// readRows reads a table of (trial, canary, [step,] score) rows; canary
// may be left out of a membership game's table (it is 0); step is there
// exactly when the report is per step.
func readRows(path string, want layout) ([]row, error) {
	name := filepath.Base(path)
	switch filepath.Ext(path) {
	case ".jsonl":
		return readJSONL(path, name, want)
	case ".npy":
		return readNPY(path, name, want)
	}
	cols := scorefile.Columns{Score: "score", Run: "trial", OptionalMember: true}
	if want.canary {
		cols.Canary = "canary"
	}
	if want.step {
		cols.Step = "step"
	}
	t, _, err := scorefile.Read(path, nil, cols)
	if err != nil {
		return nil, err
	}
	rows := make([]row, t.Len())
	for i := range rows {
		at := fmt.Sprintf("%s row %d", name, i+1)
		if t.Line != nil {
			at = fmt.Sprintf("%s:%d", name, t.Line[i])
		}
		r := row{score: t.Score[i], at: at}
		if r.trial, err = strconv.ParseInt(strings.TrimSpace(t.Run[i]), 10, 64); err != nil {
			return nil, fmt.Errorf("%w: %s: trial %q is not an integer", ErrInvalid, at, t.Run[i])
		}
		if t.Canary != nil {
			if r.canary, err = strconv.ParseInt(strings.TrimSpace(t.Canary[i]), 10, 64); err != nil {
				return nil, fmt.Errorf("%w: %s: canary %q is not an integer", ErrInvalid, at, t.Canary[i])
			}
		}
		if t.Step != nil {
			if r.step, err = strconv.ParseInt(strings.TrimSpace(t.Step[i]), 10, 64); err != nil {
				return nil, fmt.Errorf("%w: %s: step %q is not an integer", ErrInvalid, at, t.Step[i])
			}
		}
		rows[i] = r
	}
	return rows, nil
}

func readJSONL(path, name string, want layout) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		at := fmt.Sprintf("%s:%d", name, line)
		var v struct {
			Trial  *int64   `json:"trial"`
			Canary *int64   `json:"canary"`
			Step   *int64   `json:"step"`
			Score  *float64 `json:"score"`
		}
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, fmt.Errorf("%w: %s: %v (NaN and Infinity are not JSON numbers: a score must be finite)", ErrInvalid, at, err)
		}
		if v.Trial == nil || v.Score == nil || (want.canary && v.Canary == nil) || (want.step && v.Step == nil) {
			return nil, fmt.Errorf("%w: %s: want an object with %s", ErrInvalid, at, want.columns())
		}
		r := row{trial: *v.Trial, score: *v.Score, at: at}
		if v.Canary != nil {
			r.canary = *v.Canary
		}
		if v.Step != nil {
			r.step = *v.Step
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	return rows, nil
}

// columns names the table's columns as the request asks for them.
func (l layout) columns() string {
	if l.step {
		return "trial, canary, step and score"
	}
	return "trial, canary and score"
}

// readNPY reads a 2-D array whose columns are trial, canary, score (or
// trial, score), or trial, canary, step, score for a per-step report; any
// numeric dtype.
func readNPY(path, name string, want layout) ([]row, error) {
	a, err := npy.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	switch {
	case want.step && (len(a.Shape) != 2 || a.Shape[1] != 4):
		return nil, fmt.Errorf("%w: %s: shape %v, want [rows, 4] (trial, canary, step, score) for a per-step report", ErrInvalid, name, a.Shape)
	case !want.step && (len(a.Shape) != 2 || (a.Shape[1] != 2 && a.Shape[1] != 3)):
		return nil, fmt.Errorf("%w: %s: shape %v, want [rows, 3] (trial, canary, score) or [rows, 2] (trial, score)", ErrInvalid, name, a.Shape)
	}
	vals, ok := a.Data.([]float64)
	if !ok {
		f32, err := npy.Float32s(a)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
		}
		vals = make([]float64, len(f32))
		for i, v := range f32 {
			vals[i] = float64(v)
		}
	}
	w := a.Shape[1]
	rows := make([]row, a.Shape[0])
	for i := range rows {
		v := vals[i*w : (i+1)*w]
		at := fmt.Sprintf("%s row %d", name, i)
		for _, id := range v[:w-1] {
			if id != math.Trunc(id) {
				return nil, fmt.Errorf("%w: %s: trial, canary and step must be integers, got %v", ErrInvalid, at, v[:w-1])
			}
		}
		rows[i] = row{trial: int64(v[0]), score: v[w-1], at: at}
		if w >= 3 {
			rows[i].canary = int64(v[1])
		}
		if w == 4 {
			rows[i].step = int64(v[2])
		}
	}
	return rows, nil
}

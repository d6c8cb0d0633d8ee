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

// Observations are a call's validated scores: Score[k·m + j] is trial
// Trials[k]'s score of canary j (m = 1 in the membership game), in the
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
	trial, canary int64
	score         float64
	at            string
}

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
	rows, err := readRows(filepath.Join(dir, file), req.Game == GameOneRun)
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

// validate puts rows in the request's order: every (trial, canary) the
// request asks for exactly once, no other, every score finite.
func validate(rows []row, req *Request) ([]float64, error) {
	m := 1
	if req.Game == GameOneRun {
		m = req.Canaries.Count
	}
	slot := make(map[int64]int, len(req.Trials))
	for k, t := range req.Trials {
		slot[int64(t.Trial)] = k
	}
	out := make([]float64, len(req.Trials)*m)
	seen := make([]string, len(out))
	for _, r := range rows {
		k, ok := slot[r.trial]
		if !ok {
			return nil, fmt.Errorf("%w: %s: trial %d is not in this call (it asked for trials %s)", ErrInvalid, r.at, r.trial, trialList(req))
		}
		if r.canary < 0 || r.canary >= int64(m) {
			return nil, fmt.Errorf("%w: %s: unknown canary id %d (the request has canaries 0…%d)", ErrInvalid, r.at, r.canary, m-1)
		}
		if math.IsNaN(r.score) || math.IsInf(r.score, 0) {
			return nil, fmt.Errorf("%w: %s: trial %d canary %d: score %v is not finite", ErrInvalid, r.at, r.trial, r.canary, r.score)
		}
		i := k*m + int(r.canary)
		if seen[i] != "" {
			return nil, fmt.Errorf("%w: %s: trial %d canary %d appears twice (first at %s)", ErrInvalid, r.at, r.trial, r.canary, seen[i])
		}
		seen[i], out[i] = r.at, r.score
	}
	for i, s := range seen {
		if s == "" {
			return nil, fmt.Errorf("%w: the table has %d rows, the request asks for %d: trial %d canary %d is missing",
				ErrInvalid, len(rows), len(out), req.Trials[i/m].Trial, i%m)
		}
	}
	return out, nil
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

// readRows reads a table of (trial, canary, score) rows; canary may be
// left out of a membership game's table (it is 0).
func readRows(path string, needCanary bool) ([]row, error) {
	name := filepath.Base(path)
	switch filepath.Ext(path) {
	case ".jsonl":
		return readJSONL(path, name, needCanary)
	case ".npy":
		return readNPY(path, name)
	}
	cols := scorefile.Columns{Score: "score", Run: "trial", OptionalMember: true}
	if needCanary {
		cols.Canary = "canary"
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
		rows[i] = r
	}
	return rows, nil
}

func readJSONL(path, name string, needCanary bool) ([]row, error) {
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
			Score  *float64 `json:"score"`
		}
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, fmt.Errorf("%w: %s: %v (NaN and Infinity are not JSON numbers: a score must be finite)", ErrInvalid, at, err)
		}
		if v.Trial == nil || v.Score == nil || (needCanary && v.Canary == nil) {
			return nil, fmt.Errorf("%w: %s: want an object with trial, canary and score", ErrInvalid, at)
		}
		r := row{trial: *v.Trial, score: *v.Score, at: at}
		if v.Canary != nil {
			r.canary = *v.Canary
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	return rows, nil
}

// readNPY reads a 2-D array whose columns are trial, canary, score (or
// trial, score); any numeric dtype.
func readNPY(path, name string) ([]row, error) {
	a, err := npy.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	if len(a.Shape) != 2 || (a.Shape[1] != 2 && a.Shape[1] != 3) {
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
		if v[0] != math.Trunc(v[0]) || (w == 3 && v[1] != math.Trunc(v[1])) {
			return nil, fmt.Errorf("%w: %s: trial and canary must be integers, got %v", ErrInvalid, at, v[:w-1])
		}
		rows[i] = row{trial: int64(v[0]), score: v[w-1], at: at}
		if w == 3 {
			rows[i].canary = int64(v[1])
		}
	}
	return rows, nil
}

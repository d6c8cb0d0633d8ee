package dpaudit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// EstimateFolder is what `dpaudit estimate --results DIR` publishes: a
// results folder laid out as a run's, so that dpaudit show, dpaudit
// report and dpaudit estimate DIR/trials/point=<id>/ read it.
type EstimateFolder struct {
	Name        string
	Description string
	// PointID names the one point: its trials are
	// trials/point=<PointID>/part-00000.parquet.
	PointID string
	// Summary is one row under the runner's summary column names;
	// Estimates one row per estimate; Trials the score table estimated.
	Summary, Estimates, Trials *pipeline.Table
	Estimate                   EstimateManifest
	Started, Ended             time.Time
}

// EstimateManifest is manifest.json's "estimate": how the folder was
// made, enough to make it again.
type EstimateManifest struct {
	// Input is the score table read (for a folder of Parquet parts, the
	// digest over its parts: scorefile.Digest); Format how it was read.
	Input  stages.DataFile  `json:"input"`
	Format string           `json:"format"`
	Plan   *stages.DataFile `json:"plan,omitempty"`
	// Args is the command line after "dpaudit"; Options every flag of
	// the command with the value it had (defaults included).
	Args    []string          `json:"args"`
	Options map[string]string `json:"options"`
	// Columns names the input column behind each column of the
	// published trials table (member, score, canary, run, user, step).
	Columns map[string]string `json:"columns"`
}

// EstimatesFile is an estimate folder's table of one row per estimate.
const EstimatesFile = "estimates.parquet"

// CheckEstimateDir refuses a results folder for dpaudit estimate that
// would overwrite something else: dir may be absent, empty, or the
// folder of an earlier dpaudit estimate --results (which is replaced).
func CheckEstimateDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &InputError{errUnwrap(err)}
	case !st.IsDir():
		return &InputError{fmt.Errorf("--results %s exists and is not a folder: dpaudit never replaces it; choose another --results", dir)}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &InputError{errUnwrap(err)}
	}
	if len(entries) == 0 {
		return nil
	}
	if m, err := readManifest(dir); err == nil && m.Estimate != nil {
		return nil
	}
	return &InputError{fmt.Errorf("--results %s is a folder that is not empty and not the results of an earlier dpaudit estimate: dpaudit replaces only those; choose another --results", dir)}
}

// PublishEstimate writes the folder f into dir — summary.parquet,
// estimates.parquet, trials/point=<id>/part-00000.parquet, manifest.json
// and report.html (the runner's page) — built beside dir and swapped in,
// so a reader sees the old folder or the new one whole.
func PublishEstimate(dir string, f EstimateFolder) error {
	if err := CheckEstimateDir(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o755); err != nil {
		return &InputError{errUnwrap(err)}
	}
	err := replaceDir(filepath.Clean(dir), func(tmp string) error { return fillEstimateDir(tmp, f) }, false)
	if err != nil {
		return fmt.Errorf("publishing %s: %w", dir, errUnwrap(err))
	}
	return nil
}

func fillEstimateDir(dir string, f EstimateFolder) error {
	if err := pipeline.WriteParquet(filepath.Join(dir, stages.SummaryFile), f.Summary); err != nil {
		return err
	}
	if err := pipeline.WriteParquet(filepath.Join(dir, EstimatesFile), f.Estimates); err != nil {
		return err
	}
	pd := filepath.Join(dir, "trials", "point="+f.PointID)
	if err := os.MkdirAll(pd, 0o777); err != nil {
		return err
	}
	if err := pipeline.WriteParquet(filepath.Join(pd, "part-00000.parquet"), f.Trials); err != nil {
		return err
	}
	m := Manifest{
		Name:        f.Name,
		Description: f.Description,
		Dpaudit:     Build(),
		Started:     f.Started.UTC(),
		Ended:       f.Ended.UTC(),
		Seconds:     f.Ended.Sub(f.Started).Seconds(),
		Code:        pipeline.CodeFingerprint(),
		Points:      []PointInfo{{Index: 0, ID: f.PointID, Values: map[string]any{}}},
		Estimate:    &f.Estimate,
		DataFiles:   []stages.DataFile{f.Estimate.Input},
	}
	if f.Estimate.Plan != nil {
		m.DataFiles = append(m.DataFiles, *f.Estimate.Plan)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if _, err := writeReportPage(dir); err != nil {
		return err
	}
	if err := syncTree(dir); err != nil {
		return err
	}
	return nil
}

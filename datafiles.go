package dpaudit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// noteDataFiles records the users' data files the plan reads (for the
// manifest) and says which of them changed since the spec's last run, as
// recorded in the manifest of its results folder: a plan-wide note, and a
// note on each node that runs again because of it.
func (p *Plan) noteDataFiles() error {
	files, err := stages.DataFiles(p.Points)
	if err != nil {
		return &InputError{err}
	}
	p.DataFiles = files
	prev := previousDataFiles(filepath.Join(p.ResultsDir(), "manifest.json"))
	var changed []stages.DataFile
	for _, f := range files {
		old, ok := prev[f.Path]
		if !ok || old == f.SHA256 {
			continue
		}
		changed = append(changed, f)
		p.Notes = append(p.Notes, fmt.Sprintf("data file %s changed since the last run (sha256 %.12s… then, %.12s… now): what depends on it runs again",
			f.Path, old, f.SHA256))
	}
	for i, st := range p.Steps {
		if st.Status != pipeline.Run || st.Note != "" {
			continue
		}
		params := string(st.Node.ParamsJSON())
		for _, f := range changed {
			if strings.Contains(params, f.SHA256) {
				p.Steps[i].Note = "data file " + filepath.Base(f.Path) + " changed since the last run"
				break
			}
		}
	}
	return nil
}

// previousDataFiles reads path → digest from a results folder's manifest;
// empty when there is none (a first run, or a manifest from before data
// files were recorded).
func previousDataFiles(manifest string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(manifest)
	if err != nil {
		return out
	}
	var m struct {
		DataFiles []stages.DataFile `json:"data_files"`
	}
	if json.Unmarshal(b, &m) == nil {
		for _, f := range m.DataFiles {
			out[f.Path] = f.SHA256
		}
	}
	return out
}

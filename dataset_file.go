package dpaudit

import (
	"errors"
	"fmt"

	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/spec"
	"github.com/dpaudit/dpaudit/stages"
)

// SpecDataset is a spec's dataset block loaded as a run loads it.
type SpecDataset struct {
	Split *datasets.Split
	// File is the user's file source (its paths resolved and digests
	// recorded); nil for a built-in source.
	File *datasets.FileSource
	// Normalize is the normalisation the block asks for ("" = the
	// source's default).
	Normalize string
}

// LoadSpecDataset loads the dataset block of the spec at path — its
// own data, with the digests the spec's runs record — for commands that
// need the data of a spec without running it (dpaudit canaries make
// --from-dataset). The split is the images' (not flattened), subsampled
// as the spec's points are, from the spec's seed; a sweep over the
// dataset takes its first point.
func LoadSpecDataset(path, dataDir string) (*SpecDataset, error) {
	s, err := spec.Load(path, spec.Options{Functions: stages.Functions(stages.NewMemo(nil)), Implemented: stages.Implements(games)})
	if err != nil {
		return nil, err
	}
	pts, _, err := s.Expand()
	if err != nil {
		return nil, err
	}
	exp := pts[0].Exp
	if exp.Dataset == nil {
		return nil, &InputError{fmt.Errorf("%s has no dataset block", path)}
	}
	p, err := stages.DatasetParams(exp.Dataset, exp.Seed, false)
	if err != nil {
		var pe *stages.PathError
		if errors.As(stages.DataError(err), &pe) {
			return nil, s.ErrorAt(pe.Path, pe.Err) // file:line:col: dataset.path: …
		}
		return nil, &InputError{fmt.Errorf("%s: %w", path, err)}
	}
	if dataDir == "" {
		dataDir = datasets.DefaultDataDir()
	}
	split, err := datasets.Load(p.Source, p.Options, dataDir)
	if err != nil {
		if datasets.IsBadInput(err) {
			return nil, &InputError{fmt.Errorf("%s: %w", path, err)}
		}
		return nil, err
	}
	return &SpecDataset{Split: split, File: p.Source.File, Normalize: p.Options.Normalize}, nil
}

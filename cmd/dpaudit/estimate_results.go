package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/audit/scorefile"
	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// inputDigest identifies the score table by content (for a folder of
// Parquet parts, the digest over its parts). Standard input is read
// whole, hashed, and handed back as the reader to estimate from.
func inputDigest(path string, stdin io.Reader) (stages.DataFile, io.Reader, error) {
	if path == scorefile.Stdin {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return stages.DataFile{}, nil, err
		}
		return stages.DataFile{Path: path, SHA256: fmt.Sprintf("%x", sha256.Sum256(b)), Bytes: int64(len(b))}, bytes.NewReader(b), nil
	}
	sum, size, err := scorefile.Digest(path)
	if err != nil {
		return stages.DataFile{}, nil, inputf("dpaudit estimate: %v", err)
	}
	abs, _ := filepath.Abs(path)
	return stages.DataFile{Path: abs, SHA256: sum, Bytes: size}, stdin, nil
}

// publishEstimate writes the results folder of --results: the summary
// row (the runner's column names, the file and its digest, the claim),
// the estimates, the table estimated as the trials of one point, and a
// manifest with the input's digest and every flag.
func publishEstimate(fs *flag.FlagSet, args []string, f estimateFlags, in stages.DataFile, src scoreSource,
	e *audit.ScoreEstimates, ct audit.ClaimTest, claimText string, started time.Time) error {
	id := in.SHA256[:16]
	sum := &pipeline.Table{}
	add := func(name string, v any) {
		sum.Columns = append(sum.Columns, &pipeline.Column{Name: name, Type: typeOf(v), Values: []any{v}})
	}
	add("point_index", int64(0))
	add("point_id", id)
	add("scores_file", src.path)
	add("scores_sha256", in.SHA256)
	for _, nv := range e.SummaryColumns(src.info.Used["score"], ct) {
		add(nv.Name, nv.Value)
	}
	add("violation", ct.Violation)
	add("claim", claimText)
	m := dpaudit.EstimateManifest{Input: in, Format: src.info.Format, Args: append([]string{"estimate"}, args...),
		Options: map[string]string{}, Columns: map[string]string{}}
	fs.VisitAll(func(fl *flag.Flag) { m.Options[fl.Name] = fl.Value.String() })
	for k, c := range src.info.Used {
		m.Columns[k] = c
	}
	if src.plan != nil {
		m.Columns["member"] = "the plan's member column"
		sha, size, err := scorefile.Digest(src.plan.Path)
		if err != nil {
			return inputf("dpaudit estimate: %v", err)
		}
		abs, _ := filepath.Abs(src.plan.Path)
		m.Plan = &stages.DataFile{Path: abs, SHA256: sha, Bytes: size}
	}
	folder := dpaudit.EstimateFolder{
		Name:        "dpaudit estimate " + filepath.Base(src.path),
		Description: fmt.Sprintf("Empirical privacy of the score table %s: layout %s (%s). Claim: %s.", src.path, e.Layout.Layout, e.Layout.Why, claimText),
		PointID:     id,
		Summary:     sum,
		Estimates:   &pipeline.Table{Columns: estimatesTable(e, ct, false)},
		Trials:      trialsTable(src.table),
		Estimate:    m,
		Started:     started,
		Ended:       time.Now(),
	}
	return dpaudit.PublishEstimate(f.results, folder)
}

// trialsTable is the score table as estimated (after --filter and the
// plan's join), under the default column names, so that dpaudit estimate
// reads it back with no column flags.
func trialsTable(t *audit.ScoreTable) *pipeline.Table {
	out := &pipeline.Table{}
	member := make([]any, t.Len())
	score := make([]any, t.Len())
	for i := range member {
		member[i], score[i] = t.Member[i], t.Score[i]
	}
	out.Columns = append(out.Columns, &pipeline.Column{Name: "member", Type: pipeline.Bool, Values: member},
		&pipeline.Column{Name: "score", Type: pipeline.Float64, Values: score})
	for _, c := range []struct {
		name string
		ids  []string
	}{{"canary", t.Canary}, {"run", t.Run}, {"user", t.User}, {"step", t.Step}} {
		if c.ids == nil {
			continue
		}
		v := make([]any, len(c.ids))
		for i, s := range c.ids {
			v[i] = s
		}
		out.Columns = append(out.Columns, &pipeline.Column{Name: c.name, Type: pipeline.String, Values: v})
	}
	return out
}

package dpaudit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpaudit/dpaudit/pipeline"
	"github.com/dpaudit/dpaudit/stages"
)

// tamperExecutor runs the plan like the local executor, then overwrites a
// byte of the summary node's stored table (keeping its size, so only the
// digest can tell): what a disk, another process or an attacker could do
// between the plan's verification and the publish.
type tamperExecutor struct{ summary string }

func (e tamperExecutor) Execute(ctx context.Context, steps []pipeline.Step, s *pipeline.Store, rep pipeline.Reporter) error {
	if err := (pipeline.Local{Jobs: 2}).Execute(ctx, steps, s, rep); err != nil {
		return err
	}
	b, err := os.ReadFile(e.summary)
	if err != nil {
		return err
	}
	b[len(b)/2] ^= 0xff
	return os.WriteFile(e.summary, b, 0o644)
}

// A summary whose stored bytes change after they were verified is never
// published: the copy is checked against the node's digest, the run fails
// with a PublishError, the previous results stay as they were, and the
// node is quarantined so the next run recomputes it.
func TestTamperedSummaryIsNotPublished(t *testing.T) {
	dir := t.TempDir()
	path := writeSpec(t, dir, "small.yaml", smallAudit)
	o := Options{Store: filepath.Join(dir, "store"), Results: filepath.Join(dir, "results"), Jobs: 2}
	p, res := runSpec(t, path, o)
	good, err := os.ReadFile(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	stored := filepath.Join(summaryNodeDir(p), stages.SummaryFile)
	o.Executor = tamperExecutor{summary: stored}
	p2, err := Load(path, o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p2.Execute(context.Background(), nil)
	var pe *PublishError
	var ce *pipeline.CorruptError
	if !errors.As(err, &pe) || !pe.Had || !errors.As(err, &ce) {
		t.Fatalf("publishing a tampered summary: %v; want a PublishError naming the corruption", err)
	}
	if got, _ := os.ReadFile(res.Summary); !bytes.Equal(got, good) {
		t.Fatal("the previous results changed")
	}
	if _, err := os.Stat(stored); !os.IsNotExist(err) {
		t.Fatalf("the tampered summary node is still in the store (%v): not quarantined", err)
	}
	o.Executor = nil
	if _, res := runSpec(t, path, o); res.Run == 0 {
		t.Fatal("the next run recomputed nothing")
	} else if got, _ := os.ReadFile(res.Summary); !bytes.Equal(got, good) {
		t.Fatal("the recomputed summary differs")
	}
}

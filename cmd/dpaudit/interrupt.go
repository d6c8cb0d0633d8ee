package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/pipeline"
)

// exitInterrupted is the shells' code for a process ended by SIGINT
// (128 + 2), so that scripts and make see an interruption, not a failure.
const exitInterrupted = 130

// interrupted ends a run stopped by Ctrl-C (or SIGTERM): one line saying
// what was kept, exit code 130.
type interrupted struct{ kept string }

func (e *interrupted) Error() string { return "interrupted: " + e.kept }

// interruptible is a context cancelled by the first SIGINT or SIGTERM.
// After it, the signals get their default action again, so a second
// Ctrl-C ends the process at once if the shutdown hangs.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// interruptReporter passes progress on, except the nodes that fail because
// the run was interrupted: each would print "FAILED … context canceled",
// which says nothing the final line does not. It counts the nodes that
// finished, which the store keeps.
type interruptReporter struct {
	pipeline.Reporter
	ctx      context.Context
	finished atomic.Int64
}

func (r *interruptReporter) NodeFinished(n *pipeline.Node, d time.Duration, err error) {
	if err != nil && (r.ctx.Err() != nil || errors.Is(err, context.Canceled)) {
		return
	}
	if err == nil {
		r.finished.Add(1)
	}
	r.Reporter.NodeFinished(n, d, err)
}

// cachedNodes counts the plan's cached nodes (what the interrupted run found).
func cachedNodes(p *dpaudit.Plan) int {
	_, cached := pipeline.Counts(p.Steps)
	return cached
}

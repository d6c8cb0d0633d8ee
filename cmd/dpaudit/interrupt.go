package main

import (
	"context"
	"errors"
	"io"
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

// How a command's work reacts to Ctrl-C.
type stopping int

const (
	// stopsAtCheck: the work observes its context and returns soon after
	// it is cancelled (a run, a worker, the self-test); it is waited for,
	// so it can say what it kept (and cancel Slurm jobs).
	stopsAtCheck stopping = iota
	// stopsNever: the work cannot stop midway (reading a table, an
	// accountant's composition, drawing figures); it is abandoned when the
	// process exits, so it must write its files whole or not at all.
	stopsNever
)

// interruptibly runs a long command's work until it returns or the first
// SIGINT/SIGTERM. Interrupted, the command ends with one line — "dpaudit:
// interrupted: " and what kept() says was kept — and exit code 130, instead
// of a burst of "context canceled" errors; a work error that is already an
// *interrupted (run's, which counts the nodes) is passed on as it is.
func interruptibly(how stopping, kept func() string, work func(ctx context.Context) error) error {
	ctx, stop := interruptible()
	defer stop()
	done := make(chan error, 1)
	go func() { done <- work(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		if how == stopsNever {
			return &interrupted{kept()}
		}
		err = <-done
	}
	if err == nil || ctx.Err() == nil {
		return err
	}
	if already := (*interrupted)(nil); errors.As(err, &already) {
		return err
	}
	return &interrupted{kept()}
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

// abandonable makes a command that writes files whole or not at all (or
// none) end on Ctrl-C with the interrupted line (kept says what is left)
// and exit code 130, abandoning its work.
func abandonable(kept string, run func(args []string, stdout, stderr io.Writer) error) func(args []string, stdout, stderr io.Writer) error {
	return func(args []string, stdout, stderr io.Writer) error {
		return interruptibly(stopsNever, func() string { return kept }, func(context.Context) error {
			return run(args, stdout, stderr)
		})
	}
}

package pipeline

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"
)

// Reporter is told about the progress of an execution. Calls may come from
// several goroutines.
type Reporter interface {
	Start(toRun, cached int)
	NodeStarted(n *Node)
	NodeFinished(n *Node, d time.Duration, err error)
	Warning(n *Node, msg string)
	Finish()
}

type nopReporter struct{}

func (nopReporter) Start(int, int)                           {}
func (nopReporter) NodeStarted(*Node)                        {}
func (nopReporter) NodeFinished(*Node, time.Duration, error) {}
func (nopReporter) Warning(*Node, string)                    {}
func (nopReporter) Finish()                                  {}

// IsTerminal reports whether f is a character device (a TTY).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// NewReporter returns a live status line when w is a terminal and one
// line per finished node otherwise.
func NewReporter(w io.Writer) Reporter {
	if f, ok := w.(*os.File); ok && IsTerminal(f) {
		return &liveReporter{w: w, running: map[*Node]time.Time{}}
	}
	return &lineReporter{w: w}
}

// progressState is shared by both reporters.
type progressState struct {
	mu     sync.Mutex
	total  int
	cached int
	done   int
	failed int
	start  time.Time
}

func (p *progressState) eta() string {
	if p.done == 0 {
		return "?"
	}
	el := time.Since(p.start)
	rem := time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))
	return fmtDuration(rem)
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// lineReporter prints one line per finished node (logs, CI, pipes).
type lineReporter struct {
	w io.Writer
	progressState
}

func (r *lineReporter) Start(toRun, cached int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total, r.cached, r.start = toRun, cached, time.Now()
	fmt.Fprintf(r.w, "%d node(s) to run, %d cached\n", toRun, cached)
}

func (r *lineReporter) NodeStarted(*Node) {}

func (r *lineReporter) NodeFinished(n *Node, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done++
	status := "done"
	if err != nil {
		status = "FAILED"
		r.failed++
	}
	fmt.Fprintf(r.w, "[%d/%d] %s %s %s (%s)", r.done, r.total, status, n.Kind, n.Label, fmtDuration(d))
	if err != nil {
		fmt.Fprintf(r.w, ": %v", err)
	}
	fmt.Fprintln(r.w)
}

func (r *lineReporter) Warning(n *Node, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "warning: %s %s: %s\n", n.Kind, n.Label, msg)
}

func (r *lineReporter) Finish() {}

// liveReporter redraws one status line: done/total, running node, ETA.
type liveReporter struct {
	w io.Writer
	progressState
	running map[*Node]time.Time
	stop    chan struct{}
	stopped chan struct{}
	last    time.Time // last redraw, to throttle redraws on fast nodes
}

func (r *liveReporter) Start(toRun, cached int) {
	r.mu.Lock()
	r.total, r.cached, r.start = toRun, cached, time.Now()
	r.stop, r.stopped = make(chan struct{}), make(chan struct{})
	r.mu.Unlock()
	if toRun == 0 {
		close(r.stopped)
		return
	}
	go func() {
		defer close(r.stopped)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				r.draw()
			case <-r.stop:
				return
			}
		}
	}()
}

func (r *liveReporter) NodeStarted(n *Node) {
	r.mu.Lock()
	r.running[n] = time.Now()
	r.mu.Unlock()
}

func (r *liveReporter) NodeFinished(n *Node, d time.Duration, err error) {
	r.mu.Lock()
	delete(r.running, n)
	r.done++
	if err != nil {
		r.failed++
		// Failures are kept on screen above the status line.
		fmt.Fprintf(r.w, "\r\033[K%s %s FAILED after %s: %v\n", n.Kind, n.Label, fmtDuration(d), err)
	}
	recent := time.Since(r.last) < 50*time.Millisecond
	r.mu.Unlock()
	if !recent {
		r.draw()
	}
}

func (r *liveReporter) Warning(n *Node, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "\r\033[Kwarning: %s %s: %s\n", n.Kind, n.Label, msg)
}

func (r *liveReporter) draw() {
	r.mu.Lock()
	defer r.mu.Unlock()
	var cur []string
	for n := range r.running {
		cur = append(cur, n.Kind+" "+n.Label)
	}
	sort.Strings(cur)
	line := fmt.Sprintf("[%d/%d] %d cached", r.done, r.total, r.cached)
	if r.failed > 0 {
		line += fmt.Sprintf(", %d failed", r.failed)
	}
	line += ", ETA " + r.eta()
	if len(cur) > 0 {
		line += " | " + cur[0]
		if len(cur) > 1 {
			line += fmt.Sprintf(" (+%d)", len(cur)-1)
		}
	}
	if len(line) > 120 {
		line = line[:117] + "..."
	}
	fmt.Fprintf(r.w, "\r\033[K%s", line)
	r.last = time.Now()
}

func (r *liveReporter) Finish() {
	if r.stop != nil {
		close(r.stop)
		<-r.stopped
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.total > 0 {
		fmt.Fprintf(r.w, "\r\033[K[%d/%d] finished in %s (%d cached)\n", r.done, r.total, fmtDuration(time.Since(r.start)), r.cached)
	}
}

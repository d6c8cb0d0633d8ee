package slurm

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/pipeline"
)

// A driver records every array it submits in <RunDir>/arrays ("job layer
// attempt" per line) and holds <RunDir>/driver.lease while it runs. A
// driver killed mid-run leaves its current array queued; the next driver
// of the same spec on the same store finds it there and, rather than
// submitting those nodes again, adopts it (waits for it, as if it had
// submitted it) when its nodes are in the new plan, or cancels it when
// none is (the spec changed). Arrays of a driver that is still alive are
// left alone.

// driverLease is the lease a running driver holds.
func (e *Executor) driverLease() string { return filepath.Join(e.RunDir, "driver.lease") }

// recordArray appends a submitted array to <RunDir>/arrays.
func (e *Executor) recordArray(job string, layer, attempt int) error {
	f, err := os.OpenFile(filepath.Join(e.RunDir, "arrays"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := fmt.Fprintf(f, "%s %d %d\n", job, layer, attempt)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// siblingRunDirs are the run folders of other drivers of this spec on this
// store (<store>/slurm/<name>-<UTC time>-<pid>.<random>).
func (e *Executor) siblingRunDirs() []string {
	pat := regexp.MustCompile("^" + regexp.QuoteMeta(e.Name) + `-\d{8}T\d{6}-\d+(\.[0-9a-f]+)?$`)
	entries, _ := os.ReadDir(filepath.Dir(e.RunDir))
	var out []string
	for _, d := range entries {
		p := filepath.Join(filepath.Dir(e.RunDir), d.Name())
		if d.IsDir() && pat.MatchString(d.Name()) && p != e.RunDir {
			out = append(out, p)
		}
	}
	return out
}

// adoptPrevious adopts or cancels the arrays dead drivers of this spec
// left in the queue (see above).
func (e *Executor) adoptPrevious(ctx context.Context, steps []pipeline.Step, s *pipeline.Store, rep pipeline.Reporter) error {
	inPlan := map[string]*pipeline.Node{}
	for _, st := range steps {
		if st.Status == pipeline.Run {
			inPlan[st.Node.Key()] = st.Node
		}
	}
	for _, dir := range e.siblingRunDirs() {
		list := filepath.Join(dir, "arrays")
		if _, err := os.Stat(list); err != nil {
			continue
		}
		if h := s.LockHolder(filepath.Join(dir, "driver.lease")); h != nil {
			e.notify("slurm: another driver of %s (%s) is running on this store; its jobs are left alone", e.Name, h)
			continue
		}
		if err := e.adoptArrays(ctx, dir, inPlan, s, rep); err != nil {
			return err
		}
		os.Rename(list, list+".adopted")
	}
	return nil
}

// adoptArrays waits for (or cancels) the queued arrays listed in dir.
func (e *Executor) adoptArrays(ctx context.Context, dir string, inPlan map[string]*pipeline.Node, s *pipeline.Store, rep pipeline.Reporter) error {
	b, err := os.ReadFile(filepath.Join(dir, "arrays"))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		q, err := queued(ctx, f[0])
		if err != nil || len(q) == 0 {
			continue // finished (its nodes are in the store), or unknown to Slurm
		}
		layer, _ := strconv.Atoi(f[1])
		attempt, _ := strconv.Atoi(f[2])
		chunks, ours := readChunks(filepath.Join(dir, fmt.Sprintf("L%d-a%d.chunks", layer, attempt)), inPlan)
		if ours == 0 {
			exec.CommandContext(ctx, "scancel", f[0]).Run()
			e.notify("slurm: cancelled job %s of a previous driver of %s (its run folder %s): none of its nodes is in this plan", f[0], e.Name, dir)
			continue
		}
		e.notify("slurm: adopting job %s of a previous driver of %s that is gone: waiting for its %d queued or running task(s) instead of submitting its %d node(s) again", f[0], e.Name, len(q), ours)
		e.active = f[0]
		if err := e.wait(ctx, f[0], chunks, s, rep); err != nil {
			return err
		}
		e.active = ""
	}
	return nil
}

// readChunks reads a chunk list, keeping the nodes of this plan, and
// counts them.
func readChunks(path string, inPlan map[string]*pipeline.Node) ([][]*pipeline.Node, int) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	var chunks [][]*pipeline.Node
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var c []*pipeline.Node
		for _, k := range strings.Fields(sc.Text()) {
			if node := inPlan[k]; node != nil {
				c = append(c, node)
				n++
			}
		}
		chunks = append(chunks, c)
	}
	return chunks, n
}

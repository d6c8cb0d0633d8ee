package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Command is how a trainer is started.
type Command struct {
	// Argv is the program and its arguments; the request's path is
	// appended.
	Argv []string
	// Dir is the working directory ("" = the caller's).
	Dir string
	// Env is added to the caller's environment (KEY=value).
	Env []string
	// Timeout ends the call (0 = none): its whole process group is killed.
	Timeout time.Duration
}

// RequestFile and OutputDir are where a call's request and the trainer's
// files go, under the call's folder.
const (
	RequestFile = "request.json"
	OutputDir   = "out"
	StderrFile  = "stderr.txt"
	stderrLines = 20
)

// Call writes req into dir (req.Output is set to dir/out), runs the
// command, and reads and validates what it wrote. The command's standard
// output and error go to dir/stderr.txt (standard output too, so that a
// trainer's prints cannot fill a pipe). Errors say which call failed and
// where its request is.
func Call(ctx context.Context, cmd Command, req *Request, dir string) (*Observations, error) {
	out := filepath.Join(dir, OutputDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	reqPath := filepath.Join(dir, RequestFile)
	req.Output = out
	if err := req.Write(reqPath); err != nil {
		return nil, err
	}
	if err := run(ctx, cmd, reqPath, filepath.Join(dir, StderrFile)); err != nil {
		return nil, err
	}
	obs, err := Read(out, req)
	if err != nil {
		return nil, fmt.Errorf("%w (request %s)", err, reqPath)
	}
	return obs, nil
}

// run starts the command in its own process group and waits for it; at
// the timeout or cancellation the whole group is killed, so a trainer's
// worker processes (data loaders) die with it.
func run(ctx context.Context, cmd Command, reqPath, logPath string) error {
	if len(cmd.Argv) == 0 || cmd.Argv[0] == "" {
		return fmt.Errorf("%w: trainer.command is empty", ErrInvalid)
	}
	prog, err := lookPath(cmd.Argv[0], cmd.Dir)
	if err != nil {
		return fmt.Errorf("%w: trainer.command: %v", ErrInvalid, err)
	}
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	if cmd.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cmd.Timeout)
		defer cancel()
	}
	c := exec.CommandContext(ctx, prog, append(cmd.Argv[1:len(cmd.Argv):len(cmd.Argv)], reqPath)...)
	c.Dir = cmd.Dir
	c.Env = append(append(os.Environ(), cmd.Env...), "DPAUDIT_REQUEST="+reqPath)
	c.Stdout, c.Stderr = log, log
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = 5 * time.Second
	err = c.Run()
	if c.Process != nil {
		// Children that outlived the trainer (it exited, they did not) go too.
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
	if err == nil {
		return nil
	}
	tail := stderrTail(logPath)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: trainer ran past its timeout of %v and was killed (request %s)%s", ErrInvalid, cmd.Timeout, reqPath, tail)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("%w: trainer failed (%v; request %s)%s", ErrInvalid, exit, reqPath, tail)
	}
	return fmt.Errorf("%w: trainer: %v (request %s)", ErrInvalid, err, reqPath)
}

// lookPath finds prog the way the command will: a name with a slash is
// relative to the working directory, other names are searched in PATH.
func lookPath(prog, dir string) (string, error) {
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) && dir != "" {
		prog = filepath.Join(dir, prog)
		if abs, err := filepath.Abs(prog); err == nil {
			prog = abs
		}
	}
	p, err := exec.LookPath(prog)
	if err != nil {
		return "", fmt.Errorf("%s: not found or not executable", prog)
	}
	return p, nil
}

// stderrTail is the last lines of the trainer's output, indented, for an
// error message ("" when there is none).
func stderrTail(path string) string {
	b, _ := os.ReadFile(path)
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > stderrLines {
		lines = lines[len(lines)-stderrLines:]
	}
	return fmt.Sprintf("; the last %d lines of its output:\n    %s", len(lines), strings.Join(lines, "\n    "))
}

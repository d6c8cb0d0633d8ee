// Command dpaudit audits differentially private training (DP-SGD) from
// YAML experiment specs, and computes privacy accounting on the command
// line. Run "dpaudit help" for the commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/dpaudit/dpaudit"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitInput   = 2
	// exitViolation: dpaudit run --fail-on-violation found one.
	exitViolation = 3
)

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// subcommands of the commands that have them (dpaudit store gc), each with
// its own flags; completion and docs/cli.md list them.
var subcommands = map[string][]string{
	"data":     {"fetch", "ls"},
	"store":    {"verify", "gc", "du"},
	"canaries": {"make"},
}

var commands []command

// writesNothing is what Ctrl-C keeps of a command that only prints.
const writesNothing = "nothing to keep (the command writes no file)"

func init() {
	commands = []command{
		{"run", "run a spec: compute what is not cached, write results/<name>/", cmdRun},
		{"worker", "compute a chunk of a spec's nodes against a shared store (a cluster task)", cmdWorker},
		{"plan", "list every node of a spec with cached/run and the reason", cmdPlan},
		{"validate", "check specs and report every problem with its position", cmdValidate},
		{"schema", "print the JSON Schema of the spec language", cmdSchema},
		{"account", "ε (or δ) of DP-SGD with the RDP, PLD and GDP accountants, and what it means for an attacker (--risk)", abandonable(writesNothing, cmdAccount)},
		{"calibrate", "the noise multiplier that reaches a target (ε, δ) or attack risk", abandonable(writesNothing, cmdCalibrate)},
		{"bound", "theoretical bounds: reconstruction (rero), MSE (mse_rdp, minimax_mse), belief", abandonable(writesNothing, cmdBound)},
		{"data", "fetch and list real data sets (MNIST, Fashion-MNIST)", cmdData},
		{"store", "verify, garbage-collect (gc) and measure (du) the node store", cmdStore},
		{"selftest", "null coverage of the audit estimators on the ideal mechanism at its exact ε", cmdSelftest},
		{"estimate", "empirical ε from a table of attack scores (Parquet or CSV): every valid estimator", abandonable("nothing to keep (estimate prints; --results publishes its folder whole, at the end)", cmdEstimate)},
		{"canaries", "canary plans for training done elsewhere (make), scored back with estimate --plan", cmdCanaries},
		{"show", "print a result table (summary.parquet) in the terminal", abandonable(writesNothing, cmdShow)},
		{"diff", "compare two results folders point by point (old → new)", abandonable(writesNothing, cmdDiff)},
		{"report", "redraw a results folder's figures from its tables and write report.html", abandonable("each figure and report.html is replaced whole or left as it was", cmdReport)},
		{"version", "print the version and build information", cmdVersion},
		{"completion", "print a bash or zsh completion script (source <(dpaudit completion bash))", cmdCompletion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "dpaudit %s — privacy audits of DP-SGD from YAML specs\n\nUsage: dpaudit COMMAND [flags] [args]\n\nCommands:\n", dpaudit.Version)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun \"dpaudit COMMAND --help\" for a command's flags.\nExit codes: 0 ok, 1 failure (dpaudit diff: the results differ), 2 bad input\n(spec error, bad flag, unwritable folder), 3 a privacy violation found with\n--fail-on-violation, 130 interrupted (Ctrl-C; one line says what was kept).\n")
}

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain is main without os.Exit, for tests.
func runMain(args []string, stdout, stderr io.Writer) int {
	helpOut = stdout
	if len(args) == 0 {
		usage(stderr)
		return exitInput
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" {
		if len(args) > 1 {
			return runMain([]string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	}
	if name == "--version" {
		name = "version"
	}
	for _, c := range commands {
		if c.name == name {
			err := c.run(args[1:], stdout, stderr)
			return report(err, stderr)
		}
	}
	fmt.Fprintf(stderr, "dpaudit: unknown command %q\n\n", name)
	usage(stderr)
	return exitInput
}

// usageError is a bad flag or argument (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// report prints err and returns the exit code.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if errors.Is(err, errViolation) {
		return exitViolation
	}
	var stopped *interrupted
	if errors.As(err, &stopped) {
		fmt.Fprintf(stderr, "dpaudit: %v\n", stopped)
		return exitInterrupted
	}
	if errors.Is(err, errDiffers) {
		return exitFailure
	}
	var quiet silent
	if errors.As(err, &quiet) { // already printed
		if dpaudit.IsInputError(quiet.err) {
			return exitInput
		}
		return exitFailure
	}
	var ue *usageError
	if errors.As(err, &ue) || dpaudit.IsInputError(err) {
		fmt.Fprintln(stderr, err)
		return exitInput
	}
	fmt.Fprintf(stderr, "dpaudit: %v\n", err)
	return exitFailure
}

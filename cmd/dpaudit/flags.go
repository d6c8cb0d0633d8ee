package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// helpOut receives --help (stdout; runMain sets it for tests).
var helpOut io.Writer = os.Stdout

// newFlags makes a flag set whose --help prints a usage line and the flags.
func newFlags(name, usageLine, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if capturing != nil {
		*capturing = append(*capturing, commandDoc{name: name, usage: usageLine, about: about, flags: fs})
	}
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: dpaudit %s %s\n\n%s\n\nFlags:\n", name, usageLine, about)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags that may come before or after positional arguments
// ("dpaudit run spec.yaml -j 4"). A bad flag is a usage error (exit 2).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	if capturing != nil {
		return nil, errCaptured
	}
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fs.SetOutput(helpOut) // asked-for help is output, not an error
		}
		if a == "--" {
			break
		}
	}
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // reported by fs.Parse
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{fmt.Sprintf("dpaudit %s: %v (see dpaudit %s --help)", fs.Name(), err, fs.Name())}
	}
	return pos, nil
}

// multiFlag collects a repeatable string flag (also comma-separated).
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*m = append(*m, p)
		}
	}
	return nil
}

// overrideFlag collects -s key.path=value settings: repeatable, never split
// on commas (a value may be a list, [1, 2]).
type overrideFlag []string

func (o *overrideFlag) String() string { return strings.Join(*o, " ") }
func (o *overrideFlag) Set(s string) error {
	*o = append(*o, s)
	return nil
}

// overrideUsage is the help of -s, shared by run, plan, validate and worker.
const overrideUsage = "set a spec key over the file, as `key.path=value` (repeatable; the value is YAML: 1.2, [1, 2], \"=2*epochs\"); a bare variable name sets vars, sweep.grid.KEY sets an axis, a swept key given here takes that one value; validated like the file and recorded in the manifest"

func registerOverrides(fs *flag.FlagSet, o *overrideFlag) {
	fs.Var(o, "s", overrideUsage)
	fs.Var(o, "set", "the same as -s")
}

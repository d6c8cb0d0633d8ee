package main

import (
	"errors"
	"flag"
	"io"
	"sort"
	"strings"
)

// commandDoc is what a command declares about itself: its name ("store
// gc"), usage line, description and flags.
type commandDoc struct {
	name, usage, about string
	flags              *flag.FlagSet
}

// capturing, when set, makes newFlags record each flag set it makes and
// parse stop the command before it does anything. describeCommands uses it
// to read every command's flags from the code that declares them, so that
// completion and docs/cli.md cannot drift from the commands.
var capturing *[]commandDoc

var errCaptured = errors.New("flags captured")

// describeCommands returns the documentation of every command and
// subcommand, in the order of the usage text. Not safe for concurrent use
// with commands that run (it sets capturing for its duration).
func describeCommands() []commandDoc {
	var docs []commandDoc
	capturing = &docs
	defer func() { capturing = nil }()
	for _, c := range commands {
		if c.name == "completion" {
			docs = append(docs, completionDoc())
			continue
		}
		subs := subcommands[c.name]
		if len(subs) == 0 {
			c.run(nil, io.Discard, io.Discard)
			continue
		}
		for _, s := range subs {
			c.run([]string{s}, io.Discard, io.Discard)
		}
	}
	return docs
}

// flagNames lists a flag set's flags, sorted, each with its dash ("-j",
// "--store"): one dash for one-letter flags, two otherwise, as the help
// texts write them.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, dashed(f.Name)) })
	sort.Strings(names)
	return names
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// isBool reports whether a flag takes no value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// takesFile reports whether a flag's value is a path (completion offers
// files for it).
func takesFile(f *flag.Flag) bool {
	for _, w := range []string{"dir", "store", "results", "out", "file", "plan", "chunks", "from", "keep", "marker", "template"} {
		if strings.Contains(f.Name, w) {
			return true
		}
	}
	return false
}

package main

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/dpaudit/dpaudit/datasets"
)

// cliMarkdown is docs/cli.md: every command's usage, description and flags,
// generated from the flag sets the commands declare (TestCLIReference
// fails when the page is stale). Values that depend on the machine (the
// CPU count, the user's cache folder) are written as what they stand for.
func cliMarkdown(docs []commandDoc) string {
	var b strings.Builder
	b.WriteString("# Command reference\n\n")
	b.WriteString("<!-- Generated from the commands' flags; do not edit. Regenerate with:\n     go test ./cmd/dpaudit -run TestCLIReferenceIsCurrent -update -->\n\n")
	b.WriteString("Every command of `dpaudit`, with its flags. `dpaudit COMMAND --help` prints the same.\n")
	b.WriteString("Flags may come before or after the positional arguments; a one-letter flag\ntakes one dash (`-j 4`), the others two (`--store DIR`).\n\n")
	b.WriteString("Exit codes: 0 ok; 1 failure (`dpaudit diff`: the results differ); 2 bad input\n(spec error, bad flag, unwritable folder); 3 a privacy violation found with\n`--fail-on-violation`; 130 interrupted (Ctrl-C or SIGTERM: one line says what\nwas kept, e.g. a run's finished nodes or a fetch's verified files).\n\n")
	for _, d := range docs {
		fmt.Fprintf(&b, "- [dpaudit %s](#%s)\n", d.name, anchor("dpaudit "+d.name))
	}
	b.WriteString("\n")
	for _, d := range docs {
		fmt.Fprintf(&b, "## dpaudit %s\n\n", d.name)
		fmt.Fprintf(&b, "```\ndpaudit %s %s\n```\n\n", d.name, d.usage)
		b.WriteString(aboutMarkdown(d.about))
		flagsMarkdown(&b, d.flags)
	}
	return machineFree(b.String())
}

// aboutMarkdown keeps a description's indented lines (lists of kinds,
// example commands) as a code block and joins the rest into paragraphs.
func aboutMarkdown(about string) string {
	var b strings.Builder
	var para []string
	inCode := false
	flush := func() {
		if len(para) > 0 {
			b.WriteString(strings.Join(para, " ") + "\n\n")
			para = nil
		}
	}
	for _, line := range strings.Split(about, "\n") {
		code := strings.HasPrefix(line, " ")
		switch {
		case code && !inCode:
			flush()
			b.WriteString("```\n")
			inCode = true
		case !code && inCode:
			b.WriteString("```\n\n")
			inCode = false
		}
		switch {
		case code:
			b.WriteString(line + "\n")
		case strings.TrimSpace(line) == "":
			flush()
		default:
			para = append(para, strings.TrimSpace(line))
		}
	}
	if inCode {
		b.WriteString("```\n\n")
	}
	flush()
	return b.String()
}

func flagsMarkdown(b *strings.Builder, fs *flag.FlagSet) {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	b.WriteString("| flag | default | |\n|---|---|---|\n")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		flagCol := dashed(f.Name)
		if name != "" {
			flagCol += " " + name
		}
		def := f.DefValue
		if f.Name == "j" && def == strconv.Itoa(runtime.NumCPU()) {
			def = "number of CPUs"
		}
		switch def {
		case "", "[]", "0", "false":
			if def != "0" || isBool(f) {
				def = ""
			}
		}
		if def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", flagCol, def, cell(usage))
	})
	b.WriteString("\n")
}

// cell escapes a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", " ")
}

// anchor is GitHub's heading anchor for plain ASCII headings.
func anchor(h string) string {
	return strings.ReplaceAll(strings.ToLower(h), " ", "-")
}

// machineFree writes this machine's data folder as the rule that finds it.
func machineFree(s string) string {
	if d := datasets.DefaultDataDir(); d != "" {
		s = strings.ReplaceAll(s, d, "the user cache dir/dpaudit/data")
	}
	return s
}

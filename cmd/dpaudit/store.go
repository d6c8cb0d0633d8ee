package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/dpaudit/dpaudit"
	"github.com/dpaudit/dpaudit/pipeline"
)

func cmdStore(args []string, stdout, stderr io.Writer) error {
	sub := map[string]func([]string, io.Writer, io.Writer) error{"verify": cmdStoreVerify, "gc": cmdStoreGC, "du": cmdStoreDU}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		out := stdout // asked-for help is output; a missing subcommand is an error
		if len(args) == 0 {
			out = stderr
		}
		fmt.Fprint(out, "Usage: dpaudit store verify|gc|du [flags]\n\n"+
			"  verify  check the SHA-256 of every stored node and memo; move failures to the quarantine\n"+
			"  gc      remove nodes no results folder uses, stale temporary folders, the quarantine (dry run unless --delete)\n"+
			"  du      size of the store by node kind\n")
		if len(args) == 0 {
			return usagef("dpaudit store needs a subcommand: verify, gc or du")
		}
		return nil
	}
	f, ok := sub[args[0]]
	if !ok {
		return usagef("dpaudit store: unknown subcommand %q (verify, gc, du)", args[0])
	}
	return f(args[1:], stdout, stderr)
}

// openStore checks that dir exists and is a dpaudit store; it writes nothing.
// gc may open a store whose tmp, leases or quarantine folder is a symbolic
// link (it removes the link and never follows it); the others refuse it.
func openStore(dir string, forGC bool) (*pipeline.Store, error) {
	if dir == "" {
		dir = dpaudit.DefaultStore()
	}
	s := pipeline.NewStore(dir)
	var fe *pipeline.FolderError
	if err := s.Check(); err != nil && !(forGC && errors.As(err, &fe)) {
		return nil, &dpaudit.InputError{Err: err}
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, &dpaudit.InputError{Err: fmt.Errorf("store %s: %w", dir, err)}
	}
	return s, nil
}

func cmdStoreVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("store verify", "[--store DIR]", "Checks every stored node as a run does before using it (its meta names its\nown key and kind and lists exactly the files its folder holds, each of the\nlisted size and SHA-256), and every memo against its digest and its address.\nA failure is reported (node, file, expected, found) and moved to\n<store>/quarantine/, so the next run recomputes it. Exit 1 if any failed.", stderr)
	store := fs.String("store", "", "store directory (default $DPAUDIT_STORE or .dpaudit/store)")
	keep := fs.Bool("no-quarantine", false, "only report; leave failures in place")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	s, err := openStore(*store, false)
	if err != nil {
		return err
	}
	r, err := s.VerifyAll(!*keep)
	if err != nil {
		return err
	}
	for _, b := range r.Bad {
		fmt.Fprintln(stdout, "FAILED", b)
	}
	rate := 0.0
	if r.Seconds > 0 {
		rate = float64(r.Bytes) / r.Seconds / 1e6
	}
	fmt.Fprintf(stdout, "%d node(s), %d memo(s), %s hashed in %.2fs (%.0f MB/s): %d failed\n", r.Nodes, r.Memos, human(r.Bytes), r.Seconds, rate, len(r.Bad))
	if len(r.Bad) > 0 {
		return fmt.Errorf("%d item(s) failed verification", len(r.Bad))
	}
	return nil
}

func cmdStoreGC(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("store gc", "--keep RESULTS [--keep RESULTS ...] [--delete] | --all", "Lists (and with --delete removes) what the store does not need: nodes not\nused by the runs whose results are kept (their manifest.json lists the\nnodes), temporary folders of dead processes, the quarantine, stale leases.\nA dry run unless --delete. Nodes a live run may still read (its run lease\nlists them until it has published) are kept and counted. gc never follows\na symbolic link out of the store: a link in place of a store folder is\nremoved itself.", stderr)
	store := fs.String("store", "", "store directory (default $DPAUDIT_STORE or .dpaudit/store)")
	var keep multiFlag
	fs.Var(&keep, "keep", "a results root (results/) or one results folder (results/<name>) whose nodes to keep (repeatable)")
	all := fs.Bool("all", false, "keep no node (empties the cache)")
	del := fs.Bool("delete", false, "remove; without it gc only lists")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if len(keep) == 0 && !*all {
		return usagef("dpaudit store gc: name the results to keep with --keep DIR (or --all to drop every node)")
	}
	if len(keep) > 0 && *all {
		return usagef("dpaudit store gc: --keep and --all exclude each other")
	}
	s, err := openStore(*store, true)
	if err != nil {
		return err
	}
	s.Notify = func(msg string) { fmt.Fprintf(stdout, "%s\n", msg) }
	keepKeys := map[string]bool{}
	for _, dir := range keep {
		n, err := manifestKeys(dir, keepKeys)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "keeping the nodes of %d run(s) in %s\n", n, dir)
	}
	g, err := s.Garbage(keepKeys, *all)
	if err != nil {
		return err
	}
	var total int64
	for _, x := range g {
		total += x.Bytes
		fmt.Fprintf(stdout, "  %-24s %9s  %s\n", x.What, human(x.Bytes), x.Path)
	}
	verb := "would remove"
	if *del {
		if err := s.Remove(g); err != nil {
			return err
		}
		verb = "removed"
	}
	fmt.Fprintf(stdout, "%s %d item(s), %s", verb, len(g), human(total))
	if !*del {
		fmt.Fprint(stdout, " (dry run; add --delete)")
	}
	fmt.Fprintln(stdout)
	return nil
}

// manifestKeys adds the store keys of the manifests in dir (a results
// folder, or a root of them) and returns how many manifests it read.
func manifestKeys(dir string, keys map[string]bool) (int, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "manifest.json"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "manifest.json"))
	paths = append(paths, more...)
	n := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, err
		}
		var m dpaudit.Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			return 0, fmt.Errorf("%s: %w", p, err)
		}
		if len(m.StoreKeys) == 0 {
			return 0, &dpaudit.InputError{Err: fmt.Errorf("%s lists no store nodes (written by an older dpaudit): run the spec again first", p)}
		}
		for _, k := range m.StoreKeys {
			keys[k] = true
		}
		n++
	}
	if n == 0 {
		return 0, &dpaudit.InputError{Err: fmt.Errorf("--keep %s: no manifest.json in it or its subfolders", dir)}
	}
	return n, nil
}

func cmdStoreDU(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("store du", "[--store DIR] [--json]", "Prints the size of the store by node kind, and of its memos, temporary\nfolders and quarantine.", stderr)
	store := fs.String("store", "", "store directory (default $DPAUDIT_STORE or .dpaudit/store)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	s, err := openStore(*store, false)
	if err != nil {
		return err
	}
	nodes, err := s.Nodes()
	if err != nil {
		return err
	}
	type row struct {
		Kind  string `json:"kind"`
		Nodes int    `json:"nodes"`
		Bytes int64  `json:"bytes"`
	}
	by := map[string]*row{}
	for _, n := range nodes {
		k := n.Kind
		if k == "" {
			k = "(unfinished)"
		}
		if by[k] == nil {
			by[k] = &row{Kind: k}
		}
		by[k].Nodes++
		by[k].Bytes += n.Bytes
	}
	var rows []row
	for _, r := range by {
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Bytes > rows[j].Bytes })
	for _, d := range []string{"memo", "tmp", "quarantine"} {
		rows = append(rows, row{Kind: d + "/", Bytes: pipeline.DiskUsage(filepath.Join(s.Root, d))})
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	var total int64
	for _, r := range rows {
		total += r.Bytes
		nodes := ""
		if r.Nodes > 0 {
			nodes = fmt.Sprintf("%d node(s)", r.Nodes)
		}
		fmt.Fprintf(stdout, "%-16s %10s  %s\n", r.Kind, human(r.Bytes), nodes)
	}
	fmt.Fprintf(stdout, "%-16s %10s\n", "total", human(total))
	return nil
}

func human(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dpaudit/dpaudit"
)

// Under go test (as under go run) the go command stamps no module version
// and no commit: version says so instead of printing blanks.
func TestVersionUnstamped(t *testing.T) {
	code, out, errs := cli(t, "version")
	if code != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"dpaudit " + dpaudit.Version + "\n", "module  devel (", "commit  unknown (", "go      go1."} {
		if !strings.Contains(out, want) {
			t.Fatalf("version output lacks %q:\n%s", want, out)
		}
	}
}

// A binary built by go build or go install in a git checkout carries its
// module version and commit; version prints both, and says when the
// checkout had uncommitted changes.
func TestVersionStamped(t *testing.T) {
	var b bytes.Buffer
	printVersion(&b, dpaudit.BuildInfo{Version: "0.1.0-dev", Module: "v0.0.0-20261128005904-49cead00139d+dirty",
		GitCommit: "49cead00139dc4457ae256ecbb073a70612563ee", GitTime: "2026-11-28T00:59:04Z", GitDirty: true, GoVersion: "go1.26.8"})
	want := "dpaudit 0.1.0-dev\nmodule  v0.0.0-20261128005904-49cead00139d+dirty\ncommit  49cead00139dc4457ae256ecbb073a70612563ee 2026-11-28T00:59:04Z, with uncommitted changes\ngo      go1.26.8\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

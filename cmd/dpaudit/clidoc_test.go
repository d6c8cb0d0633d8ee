package main

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md")

const cliDocFile = "../../docs/cli.md"

// docs/cli.md must be what the commands' flag sets generate.
func TestCLIReferenceIsCurrent(t *testing.T) {
	got := cliMarkdown(describeCommands())
	if *update {
		if err := os.WriteFile(cliDocFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(cliDocFile)
	if err != nil {
		t.Fatalf("%v (generate it with: go test ./cmd/dpaudit -run TestCLIReferenceIsCurrent -update)", err)
	}
	if got != string(want) {
		t.Fatalf("%s is stale; regenerate it with: go test ./cmd/dpaudit -run TestCLIReferenceIsCurrent -update", cliDocFile)
	}
}

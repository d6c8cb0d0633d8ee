package spec

import (
	"os"
	"testing"
)

const referenceFile = "../docs/spec.md"

// docs/spec.md must be what the spec types generate.
func TestReferenceIsCurrent(t *testing.T) {
	got := ReferenceMarkdown()
	if *update {
		if err := os.WriteFile(referenceFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatalf("%v (generate it with: go test ./spec -run TestReferenceIsCurrent -update)", err)
	}
	if got != string(want) {
		t.Fatalf("%s is stale; regenerate it with: go test ./spec -run TestReferenceIsCurrent -update", referenceFile)
	}
}

package external

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite schemas/external-request.schema.json")

const schemaFile = "../schemas/external-request.schema.json"

// TestSchemaIsCurrent: the published request schema is the one the Go
// types give (regenerate with: go test ./external -run TestSchemaIsCurrent -update).
func TestSchemaIsCurrent(t *testing.T) {
	want, err := RequestSchema()
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(schemaFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is stale or missing (%v); regenerate it with: go test ./external -run TestSchemaIsCurrent -update", schemaFile, err)
	}
}

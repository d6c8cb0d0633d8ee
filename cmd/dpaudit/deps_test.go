package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoGRPC: the binary never speaks gRPC, so neither gRPC nor
// protobuf may be linked into it (they arrive with arrow-go's
// parquet/pqarrow, through arrow/flight: about a fifth of the binary and of
// a cold build). Parquet goes through internal/parquetio instead.
func TestBinaryLinksNoGRPC(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to list the binary's packages: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"google.golang.org/grpc", "google.golang.org/protobuf", "github.com/apache/arrow-go/v18/arrow/flight", "github.com/apache/arrow-go/v18/parquet/pqarrow"} {
			if pkg == banned || strings.HasPrefix(pkg, banned+"/") {
				t.Errorf("dpaudit links %s", pkg)
			}
		}
	}
}

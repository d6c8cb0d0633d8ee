package stages

import "fmt"

// PathError is a problem with a spec value found while compiling (e.g. the
// data set is not fetched, the model does not fit the data). The runner
// turns it into a positioned spec error (exit code 2).
type PathError struct {
	Path string // spec path, e.g. "dataset.source"
	Err  error
}

func (e *PathError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *PathError) Unwrap() error { return e.Err }

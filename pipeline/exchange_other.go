//go:build !linux

package pipeline

import "errors"

func renameExchange(a, b string) error { return errors.New("no atomic exchange on this system") }

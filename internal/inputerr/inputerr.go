// Package inputerr is the one home of dpaudit's input-error sentinel.
//
// Every package that validates what a user gave it (a noise multiplier, a
// κ, a dataset request, a confidence) wraps ErrInvalid in the error it
// returns, so one errors.Is test tells bad input (exit code 2) from a
// failure of the computation. The domain packages re-export it under their
// own name (privacy.ErrInvalid, bounds.ErrInvalid, …) because their users
// outside the module cannot import an internal package; every such name
// is this value, or (New) a sentinel of its own wording that errors.Is
// still matches to it.
//
// The package sits on the lowest floor: it imports nothing of the module.
package inputerr

import "errors"

// ErrInvalid is wrapped by every error caused by bad input.
var ErrInvalid = errors.New("invalid input")

// New returns a sentinel whose message is text and which errors.Is
// matches both to itself and to ErrInvalid: for a package whose errors
// have read "invalid dataset request: …" since before there was one
// sentinel, and whose callers test for the narrower value.
func New(text string) error { return &sentinel{text} }

type sentinel struct{ text string }

func (s *sentinel) Error() string        { return s.text }
func (s *sentinel) Is(target error) bool { return target == ErrInvalid }

package inputerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestNewMatchesErrInvalid(t *testing.T) {
	narrow := New("invalid dataset request")
	other := New("invalid dataset request")
	err := fmt.Errorf("loading: %w: held-out size 5 too large", narrow)
	if !errors.Is(err, narrow) {
		t.Error("a wrapped sentinel does not match itself")
	}
	if !errors.Is(err, ErrInvalid) {
		t.Error("a wrapped sentinel of New does not match ErrInvalid")
	}
	if errors.Is(err, other) {
		t.Error("two sentinels of the same text match each other: they must stay distinct values")
	}
	if errors.Is(fmt.Errorf("x: %w", ErrInvalid), narrow) {
		t.Error("ErrInvalid matches a narrower sentinel")
	}
	if got, want := err.Error(), "loading: invalid dataset request: held-out size 5 too large"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

package inputerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/dpaudit/dpaudit/attack"
	"github.com/dpaudit/dpaudit/attack/recon"
	"github.com/dpaudit/dpaudit/audit"
	"github.com/dpaudit/dpaudit/bounds"
	"github.com/dpaudit/dpaudit/datasets"
	"github.com/dpaudit/dpaudit/internal/inputerr"
	"github.com/dpaudit/dpaudit/learn/glm"
	"github.com/dpaudit/dpaudit/privacy"
)

// TestEveryPackageWrapsTheOneSentinel: each package's exported ErrInvalid
// is matched by errors.Is to the one sentinel, so a caller mapping bad
// input to exit code 2 needs one test whichever package found it.
func TestEveryPackageWrapsTheOneSentinel(t *testing.T) {
	for name, err := range map[string]error{
		"privacy": privacy.ErrInvalid, "bounds": bounds.ErrInvalid, "audit": audit.ErrInvalid,
		"attack": attack.ErrInvalid, "recon": recon.ErrInvalid, "glm": glm.ErrInvalid,
		"datasets": datasets.ErrInvalid,
	} {
		wrapped := fmt.Errorf("context: %w", err)
		if !errors.Is(wrapped, inputerr.ErrInvalid) || !errors.Is(wrapped, privacy.ErrInvalid) {
			t.Errorf("%s.ErrInvalid is not matched to the one input-error sentinel", name)
		}
	}
	// datasets keeps its wording, and its narrower sentinel.
	if got := datasets.ErrInvalid.Error(); got != "invalid dataset request" {
		t.Errorf("datasets.ErrInvalid reads %q", got)
	}
	if errors.Is(privacy.ErrInvalid, datasets.ErrInvalid) {
		t.Error("privacy's bad input is reported as a bad dataset request")
	}
	_, err := privacy.Epsilon(privacy.AccountantRDP, privacy.SampledGaussian{NoiseMultiplier: -1, SamplingRate: 0.01, Steps: 10}, 1e-5, privacy.Options{})
	if !errors.Is(err, inputerr.ErrInvalid) || errors.Is(err, datasets.ErrInvalid) {
		t.Errorf("a negative σ: %v", err)
	}
}

package attack

import (
	"fmt"

	"github.com/dpaudit/dpaudit/internal/inputerr"
)

// ErrInvalid is wrapped by every error this package returns for bad input:
// a crafter and distinguisher whose access does not fit the threat model,
// a crafted result that leaves add/remove adjacency without declaring it,
// shadow models for a model kind without input gradients, out-of-range
// parameters. It is the module's one input-error sentinel
// (internal/inputerr, also privacy.ErrInvalid and audit.ErrInvalid), so a
// caller mapping bad input to exit code 2 needs one errors.Is test.
var ErrInvalid = inputerr.ErrInvalid

// invalidf returns an error wrapping ErrInvalid that says what was wrong.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("attack: %w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

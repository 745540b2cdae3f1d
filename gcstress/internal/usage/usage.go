// Package usage holds gcstress's one usage-error sentinel, shared by the
// packages that check settings (gcstress, its live page, its command), so
// errors.Is(err, gcstress.ErrUsage) holds whichever package refused a
// setting. It has no state besides the sentinel.
package usage

import (
	"errors"
	"fmt"
)

// ErrUsage: a bad setting; the message names the flag that sets it. The
// command exits 2. gcstress.ErrUsage is this value.
var ErrUsage = errors.New("usage")

// Errorf is an error wrapping ErrUsage: "usage: -flag: message".
func Errorf(flag, format string, args ...any) error {
	return fmt.Errorf("%w: -%s: %s", ErrUsage, flag, fmt.Sprintf(format, args...))
}

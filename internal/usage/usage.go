// Package usage holds writegc's one usage-error sentinel: a bad flag,
// setting or argument, for which a command exits 2. gcstress (and its live
// page and command), explain and the peers module's engines all wrap this
// one value, so errors.Is(err, usage.ErrUsage) holds whichever of them
// refused a setting. It is a leaf with no state besides the sentinel.
package usage

import (
	"errors"
	"fmt"
)

// ErrUsage: a bad setting; the message names the flag that sets it. The
// command exits 2. gcstress.ErrUsage, explain.ErrUsage and engines.ErrUsage
// are this value.
var ErrUsage = errors.New("usage")

// Errorf is an error wrapping ErrUsage: "usage: -flag: message".
func Errorf(flag, format string, args ...any) error {
	return fmt.Errorf("%w: -%s: %s", ErrUsage, flag, fmt.Sprintf(format, args...))
}

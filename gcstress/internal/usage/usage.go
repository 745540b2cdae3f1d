// Package usage forwards writegc's one usage-error sentinel
// (internal/usage) under the path gcstress's root package imports. The
// gcstress packages use internal/usage directly; this forward goes once
// gcstress/errors.go does too.
package usage

import "github.com/writegc/writegc/internal/usage"

// ErrUsage is internal/usage's ErrUsage: gcstress.ErrUsage is this value.
var ErrUsage = usage.ErrUsage

// Errorf is an error wrapping ErrUsage: "usage: -flag: message".
func Errorf(flag, format string, args ...any) error {
	return usage.Errorf(flag, format, args...)
}

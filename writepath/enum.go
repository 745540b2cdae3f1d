package writepath

import (
	"fmt"
	"strings"
)

// enumString is the name of v, an enum whose values index names, or
// "typ(N)" for a value outside them.
func enumString[T ~int](names []string, v T, typ string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parseEnum reads s, case-insensitively, as one of names (the value is its
// index); anything else is ErrInvalidOption naming what and the known
// names.
func parseEnum[T ~int](names []string, s, what string) (T, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %s %q (known: %s)", ErrInvalidOption, what, s, strings.Join(names, ", "))
}

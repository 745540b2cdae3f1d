package history

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s for a terminal or a log: each invalid UTF-8 byte as
// \xNN, and each control or format character (ESC, a bidirectional
// override) as \xNN, \uNNNN or \UNNNNNNNN, so that a benchmark name cannot
// move the cursor, recolour or reorder what follows it. Other text is kept.
func Printable(s string) string {
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x100 && unprintable(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000 && unprintable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case unprintable(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func unprintable(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

func isPrintable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unprintable(r) {
			return false
		}
	}
	return true
}

// quoteName quotes an untrusted name for a message.
func quoteName(s string) string { return `"` + Printable(s) + `"` }

// Package escape makes untrusted text (a kind's name, an engine's note, a
// Put error, anything a child process or a user's code produced) safe to
// print on a terminal and to put in Markdown.
//
// Invariants:
//   - Terminal's result holds no control character (C0, DEL, C1), no
//     Unicode bidirectional control and no invalid UTF-8: each is replaced
//     by a visible escape (\x1b, \u202e, \xff), so no input can move the
//     cursor, clear the screen, set a window title or reorder what follows.
//     TerminalText is the same but keeps newlines and tabs.
//   - Markdown's result is Terminal's (so it holds no newline) with every
//     character that could start Markdown or HTML syntax backslash-escaped:
//     it renders as exactly the text Terminal shows, one table cell or one
//     inline span, never a tag, entity, link, code span, heading or cell
//     break.
//   - MarkdownCode's result is a code span that shows Terminal's text
//     verbatim whatever backticks it holds.
//   - JSON's result, given encoding/json's output, is the same JSON value
//     with the characters encoding/json leaves raw (DEL, C1, bidi
//     controls) as \u escapes: together with encoding/json's own escapes
//     of C0, it holds no control character a terminal acts on.
//
// The functions are pure and safe for concurrent use; their output is at
// most 6 bytes per input byte (a bidi control becomes \u202e), so callers
// that bound their input bound their output.
package escape

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Terminal returns s with every control character, newline and tab
// included, bidi control and invalid byte replaced by a visible escape.
func Terminal(s string) string { return terminal(s, false) }

// TerminalText is Terminal for multi-line text: newlines and tabs are kept.
func TerminalText(s string) string { return terminal(s, true) }

func terminal(s string, keepLines bool) string {
	if safeTerminal(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case isC1(r) || isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// safeTerminal reports whether s needs no escaping (the common case: no
// allocation).
func safeTerminal(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && !(keepLines && (c == '\n' || c == '\t'))) || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || isC1(r) || isBidi(r) {
			return false
		}
		i += n
	}
	return true
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// isBidi reports the Unicode bidirectional formatting characters (marks,
// embeddings, overrides, isolates), which reorder the text around them.
func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// markdownSpecial are the characters Markdown escapes with a backslash:
// the escape itself, code spans, table cells, HTML and entities, links and
// images, emphasis.
const markdownSpecial = "\\`|<>&[]*"

// Markdown returns s as Markdown text for one table cell or inline span:
// Terminal's escapes, then a backslash before each of \ ` | < > & [ ] *
// and before a leading # (a heading if the text ever starts a line).
func Markdown(s string) string {
	s = Terminal(s)
	if !strings.ContainsAny(s, markdownSpecial) && !leadingMarker(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	if leadingMarker(s) {
		b.WriteByte('\\')
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(markdownSpecial, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func leadingMarker(s string) bool {
	return s != "" && s[0] == '#'
}

// MarkdownCode returns s as a Markdown code span: Terminal's escapes inside
// a fence of one backtick more than the longest run of backticks in s,
// padded with a space when s starts or ends with a backtick, as CommonMark
// requires (which strips one such space from each end).
func MarkdownCode(s string) string {
	s = Terminal(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	switch {
	case s == "":
		s = " " // a span of one space: "``" would be two literal backticks
	case s[0] == '`' || s[len(s)-1] == '`':
		s = " " + s + " "
	}
	return fence + s + fence
}

// JSON returns b, the output of encoding/json, with DEL, the C1 controls
// and the bidi controls written as \u escapes. Such characters can only
// be inside JSON strings, where the escape means the same character, so
// the value is unchanged. b is returned as is when it holds none.
func JSON(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || isC1(r) || isBidi(r) {
			out = append(out, b[last:i]...)
			out = fmt.Appendf(out, `\u%04x`, r)
			last = i + n
		}
		i += n
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

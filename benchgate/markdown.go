package benchgate

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Markdown escaping. Every piece of text WriteMarkdown takes from its inputs
// (benchmark and function names, units, file names, notes, acceptance
// reasons, errors) goes through mdCode or mdText, so that no input can close
// a code span, open raw HTML (a CI job summary renders it), start a heading
// or a list, or break a table row; and through scrubPaths, so that the
// report names no absolute path of the machine it was made on.

// mdCode returns s as a Markdown code span that renders as s: fenced by one
// more backtick than the longest run of backticks in s, padded with a space
// when s starts or ends with a backtick or a space, newlines turned into
// spaces (a span is one line), and | escaped (GitHub splits table cells on
// it before it sees code spans). HTML inside a code span renders as text.
func mdCode(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`).Replace(s)
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s == "" || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdEscaper backslash-escapes the ASCII punctuation that can start Markdown
// syntax inline (~ only doubled, as strikethrough needs), and writes &, <
// and > as entities (raw HTML never starts).
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "|", `\|`, "~~", `\~\~`, "#", `\#`, "!", `\!`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// mdText returns s as Markdown text that renders as s (on one line), with
// local absolute paths reduced to their base name.
func mdText(s string) string { return mdEscaper.Replace(scrubPaths(s)) }

// absPath matches an absolute path as it appears in a message: a /-rooted
// (or drive-letter) path at the start, after a blank, a quote, a parenthesis
// or '='; it ends at a blank, a quote, a comma, a colon, a parenthesis or
// the end.
var absPath = regexp.MustCompile(`(^|[\s"'(=])((?:/|[A-Za-z]:\\)[^\s"',:()]*)`)

// scrubPaths replaces every absolute path in s by its base name.
func scrubPaths(s string) string {
	return absPath.ReplaceAllStringFunc(s, func(m string) string {
		sub := absPath.FindStringSubmatch(m)
		return sub[1] + mdPath(sub[2])
	})
}

// mdPath is the name a report file is shown with: a relative path as given
// (unless it climbs out with ..), else its base name.
func mdPath(p string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, `/`) || strings.HasPrefix(filepath.ToSlash(p), "../") {
		return filepath.Base(filepath.FromSlash(p))
	}
	return p
}

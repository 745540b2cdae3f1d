package history

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/writegc/writegc/benchgate/changepoint"
)

// Report formats of WriteReport.
type Format string

// Formats.
const (
	FormatTable    Format = "table"
	FormatMarkdown Format = "md"
	FormatJSON     Format = "json"
)

// ParseFormat returns the Format named s, or an error.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatTable, FormatMarkdown, FormatJSON:
		return f, nil
	}
	return "", fmt.Errorf("format %q: want table, md or json", s)
}

// JSONReport is the JSON report: every series analysed, with its change
// points (an empty list when none).
type JSONReport struct {
	Series []JSONSeries `json:"series"`
}

// JSONSeries is one series of JSONReport.
type JSONSeries struct {
	Benchmark    string            `json:"benchmark"`
	Unit         string            `json:"unit"`
	Machine      string            `json:"machine"`
	ChangePoints []JSONChangePoint `json:"change_points"`
}

// JSONChangePoint is one change point; Index is its position in the series
// in commit order.
type JSONChangePoint struct {
	Commit    string  `json:"commit"`
	Index     int     `json:"index"`
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	RelChange float64 `json:"rel_change"`
	PValue    float64 `json:"p_value"`
	Direction string  `json:"direction"`
}

// WriteReport writes the change points of as to w in format f. The table and
// Markdown name each change point's commit and, as "since", the last commit
// measured before it: the change came in one of the commits after that one,
// up to and including its commit.
func WriteReport(w io.Writer, f Format, as []Analysis) error {
	switch f {
	case FormatJSON:
		return writeJSON(w, as)
	case FormatMarkdown:
		return writeMarkdown(w, as)
	case FormatTable:
		return writeTable(w, as)
	}
	return fmt.Errorf("format %q: want table, md or json", f)
}

func writeJSON(w io.Writer, as []Analysis) error {
	r := JSONReport{Series: []JSONSeries{}}
	for _, a := range as {
		s := JSONSeries{Benchmark: a.Benchmark, Unit: a.Unit, Machine: a.Machine, ChangePoints: []JSONChangePoint{}}
		for _, cp := range a.Result.ChangePoints {
			s.ChangePoints = append(s.ChangePoints, JSONChangePoint{cp.Commit, cp.Index, sig(cp.Before), sig(cp.After),
				sig(cp.RelChange), sig(cp.P), string(cp.Direction)})
		}
		r.Series = append(r.Series, s)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// counts returns the number of change points and of regressions.
func counts(as []Analysis) (cps, regressions int) {
	for _, a := range as {
		for _, cp := range a.Result.ChangePoints {
			cps++
			if cp.Direction == changepoint.Regression {
				regressions++
			}
		}
	}
	return cps, regressions
}

func writeTable(w io.Writer, as []Analysis) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, a := range as {
		if len(a.Result.ChangePoints) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s %s [%s] (mode %s, %d points)\n", Printable(a.Benchmark), Printable(a.Unit), Printable(a.Machine),
			Printable(string(a.Mode)), len(a.Points))
		fmt.Fprintln(tw, "  commit\tsince\tindex\tbefore\tafter\tchange\tp\tdirection\t")
		for _, cp := range a.Result.ChangePoints {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%.2g\t%s\t\n", Printable(short(cp.Commit)), Printable(short(cp.PrevCommit)), cp.Index,
				num(cp.Before), num(cp.After), pct(cp.RelChange), cp.P, cp.Direction)
		}
	}
	n, reg := counts(as)
	fmt.Fprintf(tw, "%d series, %d change points (%d regressions)\n", len(as), n, reg)
	return tw.Flush()
}

func writeMarkdown(w io.Writer, as []Analysis) error {
	var b strings.Builder
	n, reg := counts(as)
	fmt.Fprintf(&b, "### Benchmark history\n\n%d series, %d change points (%d regressions).\n", len(as), n, reg)
	if n > 0 {
		b.WriteString("\n| benchmark | unit | machine | commit | since | index | before | after | change | p | direction |\n")
		b.WriteString("|---|---|---|---|---|--:|--:|--:|--:|--:|---|\n")
	}
	for _, a := range as {
		for _, cp := range a.Result.ChangePoints {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %s | %s | %s | %.2g | %s |\n", mdCell(a.Benchmark), mdCell(a.Unit), mdCell(a.Machine),
				mdCell(short(cp.Commit)), mdCell(short(cp.PrevCommit)), cp.Index, num(cp.Before), num(cp.After), pct(cp.RelChange), cp.P, cp.Direction)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sig rounds v to 6 significant digits: the JSON carries what the
// statistics can support, and the same digits on every platform.
func sig(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return r
}

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

// mdCell returns s as the text of one cell of a GitHub Markdown table, inert:
// plain text (letters, digits, space and -./:;=,+%()) as is, anything else in
// a code span, where HTML, links, autolinks, @mentions, emphasis and
// comments (<!--) do not render; '|' is escaped either way, and control
// characters are escaped as Printable does.
func mdCell(s string) string {
	s = Printable(s)
	if mdPlain(s) {
		return s
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + " " + strings.ReplaceAll(s, "|", `\|`) + " " + fence
}

// mdPlain reports text that Markdown renders as itself: no markup
// character, and no autolink (www., ://).
func mdPlain(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(" -./:;=,+%()", r)) {
			return false
		}
	}
	l := strings.ToLower(s)
	return !strings.Contains(l, "www.") && !strings.Contains(l, "://")
}

func pct(f float64) string { return fmt.Sprintf("%+.1f%%", f*100) }

func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func short(c string) string {
	if len(c) >= 40 {
		return c[:12]
	}
	return c
}

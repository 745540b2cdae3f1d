// Package histreport writes the change-point report of a benchmark
// history as text: a terminal table, GitHub Markdown or JSON (package
// trendpage, beside it, writes the HTML trend page). It reads what
// history.Analyze returns and nothing else: no database, no git.
//
// Every name and label in a report comes from benchmark files, so it is
// untrusted: the table escapes control and format characters
// (history.Printable), Markdown puts anything but plain text in code spans
// (no HTML, links, mentions or emphasis render), and JSON is encoded by
// encoding/json. Numbers are printed the same on every platform (the JSON
// rounds to 6 significant digits).
//
// Write is a plain function with no state, safe to call from several
// goroutines; it holds the whole report in memory only for Markdown, whose
// size is bounded by the analysed series (history.MaxSeries).
package histreport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/changepoint"
	"github.com/writegc/writegc/benchgate/history"
	"github.com/writegc/writegc/internal/stat"
)

// Format is a report format of Write: its name as benchgate history's
// -format takes it.
type Format string

// Formats.
const (
	Table    Format = "table"
	Markdown Format = "md"
	JSON     Format = "json"
)

// ErrFormat: a format name that is not one of the Formats.
var ErrFormat = errors.New("unknown report format")

// formatError is ErrFormat about one name.
type formatError struct{ name string }

func (e *formatError) Error() string {
	return fmt.Sprintf("format %q: want table, md or json", e.name)
}
func (e *formatError) Unwrap() error { return ErrFormat }

// ParseFormat returns the Format named s, or an error wrapping ErrFormat.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Table, Markdown, JSON:
		return f, nil
	}
	return "", &formatError{s}
}

// JSONReport is the JSON report: every series analysed, with its change
// points (an empty list when none). Its field names are a stable format:
// fields may be added, never renamed or removed. A plain value.
type JSONReport struct {
	Series []JSONSeries `json:"series"`
}

// JSONSeries is one series of JSONReport. A plain value.
type JSONSeries struct {
	Benchmark    string            `json:"benchmark"`
	Unit         string            `json:"unit"`
	Machine      string            `json:"machine"`
	ChangePoints []JSONChangePoint `json:"change_points"`
	// Stale: the series has no point at LatestCommit, the newest commit
	// of its machine and mode (history.Analysis.Stale); LastCommit is its
	// own last point's.
	Stale        bool   `json:"stale"`
	LastCommit   string `json:"last_commit"`
	LatestCommit string `json:"latest_commit,omitempty"`
	// Unstable: over its latest points the series' noise or verdict flips
	// exceed history's bounds (history.Assess); Noise is that noise (a
	// robust coefficient of variation of the medians, 0 when too few
	// points were judged) and Flips those flips.
	Unstable bool    `json:"unstable"`
	Noise    float64 `json:"noise"`
	Flips    int     `json:"flips"`
	// LatestMDE is the MDE of the series' latest point with one (a gate
	// run's: the smallest change it could catch), in percent; absent when
	// no point has one.
	LatestMDE *float64 `json:"latest_mde_pct,omitempty"`
}

// JSONChangePoint is one change point; Index is its position in the series
// in commit order. A plain value.
type JSONChangePoint struct {
	Commit    string  `json:"commit"`
	Index     int     `json:"index"`
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	RelChange float64 `json:"rel_change"`
	PValue    float64 `json:"p_value"`
	Direction string  `json:"direction"`
}

// Write writes the change points of as to w in format f. The table and
// Markdown name each change point's commit and, as "since", the last commit
// measured before it: the change came in one of the commits after that one,
// up to and including its commit. Errors are w's, or wrap ErrFormat.
func Write(w io.Writer, f Format, as []history.Analysis) error {
	switch f {
	case JSON:
		return writeJSON(w, as)
	case Markdown:
		return writeMarkdown(w, as)
	case Table:
		return writeTable(w, as)
	}
	return &formatError{string(f)}
}

func writeJSON(w io.Writer, as []history.Analysis) error {
	r := JSONReport{Series: []JSONSeries{}}
	for _, a := range as {
		s := JSONSeries{Benchmark: a.Benchmark, Unit: a.Unit, Machine: a.Machine, ChangePoints: []JSONChangePoint{},
			Stale: a.Stale, LastCommit: a.LastCommit(), LatestCommit: a.Latest,
			Unstable: a.Stability.Unstable, Noise: sig(a.Stability.Noise), Flips: a.Stability.Flips}
		for _, p := range a.Points {
			if p.HasMDE {
				m := sig(p.MDE * 100)
				s.LatestMDE = &m
			}
		}
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

// counts returns the number of change points, of regressions, of stale
// series and of unstable series.
func counts(as []history.Analysis) (cps, regressions, stale, unstable int) {
	for _, a := range as {
		if a.Stale {
			stale++
		}
		if a.Stability.Unstable {
			unstable++
		}
		for _, cp := range a.Result.ChangePoints {
			cps++
			if cp.Direction == changepoint.Regression {
				regressions++
			}
		}
	}
	return cps, regressions, stale, unstable
}

// unstableLine describes an unstable series for the table and Markdown.
func unstableLine(a history.Analysis) string {
	st := a.Stability
	return fmt.Sprintf("noise %s, %d verdict flips over the latest %d points (bounds: noise %s, %d flips)",
		stat.Percent(st.Noise, 1), st.Flips, st.Points, stat.Percent(history.UnstableMaxNoise, 0), history.UnstableMaxFlips)
}

// unstableMark is the Markdown's unstable cell: the JSON's bool.
func unstableMark(a history.Analysis) string { return strconv.FormatBool(a.Stability.Unstable) }

// staleLine describes a stale series for the table and Markdown.
func staleLine(a history.Analysis) string {
	return fmt.Sprintf("last point %s, newest commit %s", benchgate.ShortCommit(a.LastCommit()), benchgate.ShortCommit(a.Latest))
}

func writeTable(w io.Writer, as []history.Analysis) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, a := range as {
		if len(a.Result.ChangePoints) == 0 {
			continue
		}
		mark := ""
		if a.Stability.Unstable {
			mark = ", unstable"
		}
		fmt.Fprintf(tw, "%s %s [%s] (mode %s, %d points%s)\n", history.Printable(a.Benchmark), history.Printable(a.Unit), history.Printable(a.Machine),
			history.Printable(string(a.Mode)), len(a.Points), mark)
		fmt.Fprintln(tw, "  commit\tsince\tindex\tbefore\tafter\tchange\tp\tdirection\t")
		for _, cp := range a.Result.ChangePoints {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%.2g\t%s\t\n", history.Printable(benchgate.ShortCommit(cp.Commit)), history.Printable(benchgate.ShortCommit(cp.PrevCommit)), cp.Index,
				num(cp.Before), num(cp.After), stat.SignedPercent(cp.RelChange, 1), cp.P, cp.Direction)
		}
	}
	n, reg, stale, unstable := counts(as)
	for _, a := range as {
		if a.Stale {
			fmt.Fprintf(tw, "stale: %s %s [%s] (mode %s): %s\n", history.Printable(a.Benchmark), history.Printable(a.Unit),
				history.Printable(a.Machine), history.Printable(string(a.Mode)), history.Printable(staleLine(a)))
		}
		if a.Stability.Unstable {
			fmt.Fprintf(tw, "unstable: %s %s [%s] (mode %s): %s\n", history.Printable(a.Benchmark), history.Printable(a.Unit),
				history.Printable(a.Machine), history.Printable(string(a.Mode)), unstableLine(a))
		}
	}
	fmt.Fprintf(tw, "%d series, %d change points (%d regressions), %d stale, %d unstable\n", len(as), n, reg, stale, unstable)
	return tw.Flush()
}

func writeMarkdown(w io.Writer, as []history.Analysis) error {
	var b strings.Builder
	n, reg, stale, unstable := counts(as)
	fmt.Fprintf(&b, "### Benchmark history\n\n%d series, %d change points (%d regressions), %d stale, %d unstable.\n", len(as), n, reg, stale, unstable)
	if n > 0 {
		b.WriteString("\n| benchmark | unit | machine | commit | since | index | before | after | change | p | direction | unstable |\n")
		b.WriteString("|---|---|---|---|---|--:|--:|--:|--:|--:|---|---|\n")
	}
	for _, a := range as {
		for _, cp := range a.Result.ChangePoints {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %s | %s | %s | %.2g | %s | %s |\n", mdCell(a.Benchmark), mdCell(a.Unit), mdCell(a.Machine),
				mdCell(benchgate.ShortCommit(cp.Commit)), mdCell(benchgate.ShortCommit(cp.PrevCommit)), cp.Index, num(cp.Before), num(cp.After), stat.SignedPercent(cp.RelChange, 1), cp.P, cp.Direction,
				unstableMark(a))
		}
	}
	if stale > 0 {
		b.WriteString("\n**Stale series** (no result at the newest commit of their machine: renamed, removed or broken):\n\n")
		b.WriteString("| benchmark | unit | machine | last point | newest commit |\n|---|---|---|---|---|\n")
		for _, a := range as {
			if a.Stale {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdCell(a.Benchmark), mdCell(a.Unit), mdCell(a.Machine),
					mdCell(benchgate.ShortCommit(a.LastCommit())), mdCell(benchgate.ShortCommit(a.Latest)))
			}
		}
	}
	if unstable > 0 {
		fmt.Fprintf(&b, "\n**Unstable series** (over their latest %d points, noise above %s or %d or more verdict flips: their regressions are reported, not failed on):\n\n",
			history.UnstableWindow, stat.Percent(history.UnstableMaxNoise, 0), history.UnstableMaxFlips)
		b.WriteString("| benchmark | unit | machine | unstable | noise | flips | points |\n|---|---|---|---|--:|--:|--:|\n")
		for _, a := range as {
			if st := a.Stability; st.Unstable {
				fmt.Fprintf(&b, "| %s | %s | %s | true | %s | %d | %d |\n", mdCell(a.Benchmark), mdCell(a.Unit), mdCell(a.Machine),
					stat.Percent(st.Noise, 1), st.Flips, st.Points)
			}
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

// mdCell returns s as the text of one cell of a GitHub Markdown table, inert:
// plain text (letters, digits, space and -./:;=,+%()) as is, anything else in
// a code span, where HTML, links, autolinks, @mentions, emphasis and
// comments (<!--) do not render; '|' is escaped either way, and control
// characters are escaped as Printable does.
func mdCell(s string) string {
	s = history.Printable(s)
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

func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

package history

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
	"github.com/writegc/writegc/internal/stat"
)

// ReportFormat is a report format of WriteReport: its name as benchgate history's
// -format takes it.
type ReportFormat string

// Formats.
const (
	Table    ReportFormat = "table"
	Markdown ReportFormat = "md"
	JSON     ReportFormat = "json"
)

// ErrReportFormat: a format name that is not one of the Formats.
var ErrReportFormat = errors.New("unknown report format")

// formatError is ErrReportFormat about one name.
type formatError struct{ name string }

func (e *formatError) Error() string {
	return fmt.Sprintf("format %q: want table, md or json", e.name)
}
func (e *formatError) Unwrap() error { return ErrReportFormat }

// ParseReportFormat returns the ReportFormat named s, or an error wrapping ErrReportFormat.
func ParseReportFormat(s string) (ReportFormat, error) {
	switch f := ReportFormat(s); f {
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
	// of its machine and mode (Analysis.Stale); LastCommit is its
	// own last point's.
	Stale        bool   `json:"stale"`
	LastCommit   string `json:"last_commit"`
	LatestCommit string `json:"latest_commit,omitempty"`
	// Unstable: over its latest points the series' noise or verdict flips
	// exceed history's bounds (Assess); Noise is that noise (a
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

// WriteReport writes the change points of as to w in format f. The table and
// Markdown name each change point's commit and, as "since", the last commit
// measured before it: the change came in one of the commits after that one,
// up to and including its commit. Errors are w's, or wrap ErrReportFormat.
func WriteReport(w io.Writer, f ReportFormat, as []Analysis) error {
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

func writeJSON(w io.Writer, as []Analysis) error {
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
func counts(as []Analysis) (cps, regressions, stale, unstable int) {
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
func unstableLine(a Analysis) string {
	st := a.Stability
	return fmt.Sprintf("noise %s, %d verdict flips over the latest %d points (bounds: noise %s, %d flips)",
		stat.Percent(st.Noise, 1), st.Flips, st.Points, stat.Percent(UnstableMaxNoise, 0), UnstableMaxFlips)
}

// unstableMark is the Markdown's unstable cell: the JSON's bool.
func unstableMark(a Analysis) string { return strconv.FormatBool(a.Stability.Unstable) }

// staleLine describes a stale series for the table and Markdown.
func staleLine(a Analysis) string {
	return fmt.Sprintf("last point %s, newest commit %s", benchgate.ShortCommit(a.LastCommit()), benchgate.ShortCommit(a.Latest))
}

func writeTable(w io.Writer, as []Analysis) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, a := range as {
		if len(a.Result.ChangePoints) == 0 {
			continue
		}
		mark := ""
		if a.Stability.Unstable {
			mark = ", unstable"
		}
		fmt.Fprintf(tw, "%s %s [%s] (mode %s, %d points%s)\n", Printable(a.Benchmark), Printable(a.Unit), Printable(a.Machine),
			Printable(string(a.Mode)), len(a.Points), mark)
		fmt.Fprintln(tw, "  commit\tsince\tindex\tbefore\tafter\tchange\tp\tdirection\t")
		for _, cp := range a.Result.ChangePoints {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%.2g\t%s\t\n", Printable(benchgate.ShortCommit(cp.Commit)), Printable(benchgate.ShortCommit(cp.PrevCommit)), cp.Index,
				num(cp.Before), num(cp.After), stat.SignedPercent(cp.RelChange, 1), cp.P, cp.Direction)
		}
	}
	n, reg, stale, unstable := counts(as)
	for _, a := range as {
		if a.Stale {
			fmt.Fprintf(tw, "stale: %s %s [%s] (mode %s): %s\n", Printable(a.Benchmark), Printable(a.Unit),
				Printable(a.Machine), Printable(string(a.Mode)), Printable(staleLine(a)))
		}
		if a.Stability.Unstable {
			fmt.Fprintf(tw, "unstable: %s %s [%s] (mode %s): %s\n", Printable(a.Benchmark), Printable(a.Unit),
				Printable(a.Machine), Printable(string(a.Mode)), unstableLine(a))
		}
	}
	fmt.Fprintf(tw, "%d series, %d change points (%d regressions), %d stale, %d unstable\n", len(as), n, reg, stale, unstable)
	return tw.Flush()
}

func writeMarkdown(w io.Writer, as []Analysis) error {
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
			UnstableWindow, stat.Percent(UnstableMaxNoise, 0), UnstableMaxFlips)
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

func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

package history

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

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
		fmt.Fprintf(tw, "%s %s [%s] (mode %s, %d points)\n", a.Benchmark, a.Unit, a.Machine, a.Mode, len(a.Points))
		fmt.Fprintln(tw, "  commit\tsince\tindex\tbefore\tafter\tchange\tp\tdirection\t")
		for _, cp := range a.Result.ChangePoints {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%.2g\t%s\t\n", short(cp.Commit), short(cp.PrevCommit), cp.Index,
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
				short(cp.Commit), short(cp.PrevCommit), cp.Index, num(cp.Before), num(cp.After), pct(cp.RelChange), cp.P, cp.Direction)
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

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func pct(f float64) string { return fmt.Sprintf("%+.1f%%", f*100) }

func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func short(c string) string {
	if len(c) >= 40 {
		return c[:12]
	}
	return c
}

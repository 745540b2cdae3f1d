package benchgate

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Summary is a one-line result: PASS or FAIL with the counts that matter.
func (r *Report) Summary() string {
	status := "PASS"
	if r.Regressed() {
		status = "FAIL"
	}
	if r.Count(Missing) > 0 || r.Count(Underpowered) > 0 {
		status = "ERROR"
	}
	parts := []string{fmt.Sprintf("%d compared", len(r.Rows)-r.Count(New))}
	for _, v := range []Verdict{Regressed, Accepted, Improved, Missing, Underpowered, NotGated, New} {
		if n := r.Count(v); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ToLower(v.String())))
		}
	}
	return fmt.Sprintf("benchgate: %s (%s; alpha %g, threshold %s)", status, strings.Join(parts, ", "), r.Options.Alpha, formatPct(r.Options.Threshold))
}

func formatPct(f float64) string {
	return strconv.FormatFloat(f*100, 'f', -1, 64) + "%"
}

// cells returns the printed columns of a row.
func (row *Row) cells() []string {
	p := "-"
	if row.Exact {
		p = "exact"
	} else if !math.IsNaN(row.P) {
		p = fmt.Sprintf("%.2g", row.P)
	}
	d := "-"
	if !math.IsNaN(row.Delta) {
		d = fmt.Sprintf("%+.2f%%", row.Delta*100)
	}
	v := row.Verdict.String()
	if row.Note != "" {
		if row.Verdict == Accepted {
			v = row.Note
		} else {
			v += " (" + row.Note + ")"
		}
	}
	return []string{row.Name, row.Unit, formatValue(row.Base), formatValue(row.Head), d, p,
		fmt.Sprintf("%d/%d", row.NBase, row.NHead), v}
}

var header = []string{"benchmark", "unit", "base", "head", "delta", "p", "n base/head", "verdict"}

// formatValue prints 4 significant digits without exponents for ordinary
// benchmark magnitudes.
func formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1e4:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) < 1e-3:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// WriteText writes r as an aligned text table followed by its notes and the
// summary line.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "base: %s\nhead: %s\n\n", strings.Join(r.BaseFiles, ", "), strings.Join(r.HeadFiles, ", "))
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for i := range r.Rows {
		fmt.Fprintln(tw, strings.Join(r.Rows[i].cells(), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, n := range r.Notes {
		b.WriteString("note: " + n + "\n")
	}
	b.WriteString(r.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes r as a Markdown section (for CI job summaries).
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", r.Summary())
	fmt.Fprintf(&b, "base: `%s`, head: `%s`\n\n", strings.Join(r.BaseFiles, "`, `"), strings.Join(r.HeadFiles, "`, `"))
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|---|\n")
	for i := range r.Rows {
		c := r.Rows[i].cells()
		for j := range c {
			c[j] = strings.ReplaceAll(c[j], "|", `\|`)
		}
		c[0] = "`" + c[0] + "`"
		if r.Rows[i].Verdict == Regressed || r.Rows[i].Verdict == Missing || r.Rows[i].Verdict == Underpowered {
			c[len(c)-1] = "**" + c[len(c)-1] + "**"
		}
		b.WriteString("| " + strings.Join(c, " | ") + " |\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			b.WriteString("- note: " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package benchgate

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Summary is a one-line result with the counts that matter: ERROR (a row
// Missing, Underpowered or Incomplete) before FAIL (a regression) before
// NOISY (a row too noisy to judge) before PASS.
func (r *Report) Summary() string {
	status := r.status()
	parts := []string{fmt.Sprintf("%d compared", len(r.Rows)-r.Count(New))}
	for _, v := range []Verdict{Regressed, Unconfirmed, Accepted, Noisy, Improved, Missing, Incomplete, Underpowered, NotGated, New} {
		if n := r.Count(v); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ToLower(v.String())))
		}
	}
	return fmt.Sprintf("benchgate: %s (%s; alpha %g, power %g, %s)", status, strings.Join(parts, ", "), r.Options.Alpha, r.Options.Power, r.thresholdsSummary())
}

// status is the report's outcome: ERROR, FAIL, NOISY or PASS (see Summary).
func (r *Report) status() string {
	switch {
	case r.Count(Missing) > 0 || r.Count(Underpowered) > 0 || r.Count(Incomplete) > 0:
		return "ERROR"
	case r.Regressed():
		return "FAIL"
	case r.Inconclusive():
		return "NOISY"
	}
	return "PASS"
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
		fmt.Sprintf("%d/%d", row.NBase, row.NHead), formatNoise(row.Noise), row.mdeCell(), v}
}

// header names the columns; noise is Row.Noise (see MedianUncertainty),
// mde Row.MDE.
var header = []string{"benchmark", "unit", "base", "head", "delta", "p", "n base/head", "noise", "mde", "verdict"}

// showThresholds reports whether any row's threshold came from somewhere
// other than the default: then the reports add a threshold column, so that
// every row says which threshold judged it.
func (r *Report) showThresholds() bool {
	for _, row := range r.Rows {
		if row.ThresholdFrom != "" && row.ThresholdFrom != "default" {
			return true
		}
	}
	return false
}

// thresholdCell prints a row's threshold and its source.
func (row *Row) thresholdCell() string {
	switch {
	case row.Exact:
		return "exact"
	case row.ThresholdFrom == "":
		return "-"
	case row.ThresholdAbs:
		return fmt.Sprintf("+%gpt (%s)", row.Threshold, row.ThresholdFrom)
	case row.ThresholdFloor > 0:
		return fmt.Sprintf("%s and +%gpt (%s)", formatPct(round4(row.Threshold)), row.ThresholdFloor, row.ThresholdFrom)
	}
	return fmt.Sprintf("%s (%s)", formatPct(round4(row.Threshold)), row.ThresholdFrom)
}

// table returns the header and the cells of every row, with the threshold
// column when showThresholds.
func (r *Report) table() ([]string, [][]string) {
	h := header
	show := r.showThresholds()
	if show {
		h = append(slices.Clone(header[:len(header)-1]), "threshold", header[len(header)-1])
	}
	rows := make([][]string, len(r.Rows))
	for i := range r.Rows {
		c := r.Rows[i].cells()
		if show {
			c = append(c[:len(c)-1:len(c)-1], r.Rows[i].thresholdCell(), c[len(c)-1])
		}
		rows[i] = c
	}
	return h, rows
}

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
	fmt.Fprintf(tw, "base: %s\nhead: %s\n", strings.Join(r.BaseFiles, ", "), strings.Join(r.HeadFiles, ", "))
	for _, l := range r.Info {
		fmt.Fprintln(tw, l)
	}
	fmt.Fprintln(tw)
	h, rows := r.table()
	fmt.Fprintln(tw, strings.Join(h, "\t"))
	for _, c := range rows {
		fmt.Fprintln(tw, strings.Join(c, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n")
	r.writeProfilesText(&b)
	for _, n := range r.Notes {
		b.WriteString("note: " + n + "\n")
	}
	b.WriteString(r.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes r as a Markdown section (for CI job summaries).
// Everything taken from the inputs is escaped (see mdCode and mdText):
// benchmark names and file names are code spans whose fence no name can
// close, other text has its Markdown and HTML characters escaped, and
// absolute paths are shown by their base name only.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", r.Summary())
	files := func(paths []string) string {
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = mdCode(mdPath(p))
		}
		return strings.Join(out, ", ")
	}
	fmt.Fprintf(&b, "base: %s, head: %s\n\n", files(r.BaseFiles), files(r.HeadFiles))
	for _, l := range r.Info {
		b.WriteString("- " + mdText(l) + "\n")
	}
	if len(r.Info) > 0 {
		b.WriteString("\n")
	}
	h, rows := r.table()
	b.WriteString("| " + strings.Join(h, " | ") + " |\n")
	b.WriteString("|---|---|" + strings.Repeat("--:|", len(h)-3) + "---|\n")
	for i, c := range rows {
		for j := range c {
			c[j] = mdText(c[j])
		}
		c[0] = mdCode(r.Rows[i].Name)
		switch r.Rows[i].Verdict {
		case Regressed, Missing, Underpowered, Incomplete, Noisy:
			c[len(c)-1] = "**" + c[len(c)-1] + "**"
		}
		b.WriteString("| " + strings.Join(c, " | ") + " |\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			b.WriteString("- note: " + mdText(n) + "\n")
		}
	}
	r.writeProfilesMarkdown(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

var profileHeader = []string{"function", "flat/op base", "flat/op head", "flat/op +", "cum/op base", "cum/op head"}

// profileUnit is the unit a sample type's values per op print with.
func profileUnit(sampleType string) string {
	switch sampleType {
	case SampleCPU:
		return "ns"
	case SampleAllocSpace:
		return "B"
	}
	return ""
}

func (f FuncCost) cells(unit string) []string {
	p := func(v float64) string { return formatValue(round4(v)) + unit }
	return []string{f.Func, p(f.BaseFlat), p(f.HeadFlat), "+" + p(f.FlatGrowth()), p(f.BaseCum), p(f.HeadCum)}
}

func (d *ProfileDiff) what() string {
	switch d.SampleType {
	case SampleCPU:
		return "CPU time per op"
	case SampleAllocSpace:
		return "bytes allocated per op"
	case SampleAllocObjects:
		return "objects allocated per op"
	case SampleInstructions:
		return "instructions per op, callgrind"
	}
	return d.SampleType + " per op"
}

func (d *ProfileDiff) title(name string) string {
	return fmt.Sprintf("where %s got slower (%s: functions whose own cost per op grew most, base -> head)", name, d.what())
}

func (r *Report) writeProfilesText(b *strings.Builder) {
	for i := range r.Profiles {
		d := &r.Profiles[i]
		b.WriteString(d.title(d.Benchmark) + ":\n")
		switch {
		case d.Err != "":
			b.WriteString("  no profile comparison: " + d.Err + "\n\n")
			continue
		case len(d.Funcs) == 0:
			b.WriteString("  no function's cost per op grew\n\n")
			continue
		}
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  "+strings.Join(profileHeader, "\t"))
		for _, f := range d.Funcs {
			fmt.Fprintln(tw, "  "+strings.Join(f.cells(profileUnit(d.SampleType)), "\t"))
		}
		tw.Flush()
		b.WriteString("\n")
	}
}

func (r *Report) writeProfilesMarkdown(b *strings.Builder) {
	for i := range r.Profiles {
		d := &r.Profiles[i]
		b.WriteString("\n" + d.title(mdCode(d.Benchmark)) + ":\n\n")
		switch {
		case d.Err != "":
			b.WriteString("no profile comparison: " + mdText(d.Err) + "\n")
			continue
		case len(d.Funcs) == 0:
			b.WriteString("no function's cost per op grew\n")
			continue
		}
		b.WriteString("| " + strings.Join(profileHeader, " | ") + " |\n|---|--:|--:|--:|--:|--:|\n")
		for _, f := range d.Funcs {
			c := f.cells(profileUnit(d.SampleType))
			c[0] = mdCode(c[0])
			b.WriteString("| " + strings.Join(c, " | ") + " |\n")
		}
	}
}

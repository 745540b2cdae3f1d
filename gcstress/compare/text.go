package compare

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/writegc/writegc/benchgate"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/inputfile"
	"github.com/writegc/writegc/internal/stat"
)

// Dirs compares the bench.txt of the results folders oldDir and newDir,
// and their settings as each folder's summary.json records them (a folder
// without one, or whose summary.json cannot be read, is compared on
// bench.txt's configuration lines, and the report says so).
// Errors: ErrBadOption for opts out of range; ErrBadInput, naming the
// folder, for a folder that is missing or not a folder, one without
// bench.txt (a folder written before bench.txt existed gets one from
// `gcstress report DIR`), a bench.txt Read refuses (too large,
// not a bench.txt), or two files with nothing in common.
func Dirs(oldDir, newDir string, opts Options) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	old, err := readDir("OLD", oldDir)
	if err != nil {
		return nil, err
	}
	new, err := readDir("NEW", newDir)
	if err != nil {
		return nil, err
	}
	return CompareSides(readSummary(old, oldDir), readSummary(new, newDir), opts)
}

// readSummary is dir's Side: its bench.txt f and its summary (plain or compressed), read
// under results.ReadSummary's limits (nil when there is none).
func readSummary(f *File, dir string) Side {
	side := Side{Bench: f}
	if !results.HasSummary(dir) {
		return side
	}
	side.Summary, side.SummaryErr = results.ReadSummary(dir)
	return side
}

// readDir reads dir's bench.txt; side names the argument in errors.
func readDir(side, dir string) (*File, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s %s is not a results folder", ErrBadInput, side, dir)
	}
	f, err := Read(filepath.Join(dir, FileName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s %s has no %s (a folder from before it existed gets one from `gcstress report %s`)",
			ErrBadInput, side, dir, FileName, dir)
	case err != nil:
		var me *benchgate.MalformedError
		if errors.As(err, &me) {
			return nil, fmt.Errorf("%w: %s: %w: %s", ErrBadInput, side, ErrBadFile, malformed(err, me))
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrBadInput, side, err)
	}
	return f, nil
}

// maxMalformed is how many malformed lines an error names.
const maxMalformed = 3

// malformed names the first malformed lines of a bench.txt in one line,
// each with its scenario when the line has one: "DIR/bench.txt:2:
// matrix/heap/100B objects/entry value NaN: want a finite number". The
// file is read again (under bench.txt's limit) for the names; the parser
// gives only line numbers.
func malformed(err error, me *benchgate.MalformedError) string {
	var parts []string
	if errors.Is(err, benchgate.ErrNoBenchmarks) {
		parts = append(parts, "no valid result line")
	}
	texts := map[string][]string{}
	for i, l := range me.Lines {
		if i == maxMalformed {
			parts = append(parts, fmt.Sprintf("and %d more malformed line(s)", len(me.Lines)-maxMalformed))
			break
		}
		if _, ok := texts[l.FileName]; !ok {
			data, _ := inputfile.ReadFile(l.FileName, MaxFileBytes)
			texts[l.FileName] = strings.Split(string(data), "\n")
		}
		scenario := ""
		if lines := texts[l.FileName]; l.Line >= 1 && l.Line <= len(lines) {
			if f := strings.Fields(lines[l.Line-1]); len(f) > 0 {
				if k, err := ParseName(f[0]); err == nil {
					scenario = k.String() + " "
				}
			}
		}
		parts = append(parts, fmt.Sprintf("%s:%d: %s%s", l.FileName, l.Line, scenario, l.Msg))
	}
	return strings.Join(parts, "; ")
}

// Message is the row in one line, as the command names a regression:
// "matrix/heap/100B objects/entry +100% (p=0.008)", or for an
// inconclusive row "matrix/heap/100B objects/entry +40% (n=1:
// inconclusive, the U test needs 4 runs a side)".
func (r Row) Message() string {
	name := r.Key.String() + " " + string(r.Unit)
	switch {
	case r.Missing && r.Only == "NEW":
		return name + ": missing in OLD (only NEW has it: the scenario did not run or failed in OLD)"
	case r.Missing:
		return name + ": missing in NEW (only OLD has it: the scenario did not run or failed in NEW)"
	}
	m := fmt.Sprintf("%s %s (%s)", name, pct(r.Delta), r.significance())
	if len(r.Differs) > 0 {
		m += " across different settings: " + strings.Join(r.Differs, ", ")
	}
	return m
}

// significance is "p=0.008", or for a row without a p-value its runs a
// side ("n=1", "n=1+3") and, when inconclusive, the runs that decide it.
func (r Row) significance() string {
	if r.Tested {
		return fmt.Sprintf("p=%.3f", r.P)
	}
	n := fmt.Sprintf("n=%d", r.Old.N)
	if r.Old.N != r.New.N {
		n = fmt.Sprintf("n=%d+%d", r.Old.N, r.New.N)
	}
	if r.Verdict == inconclusive {
		return n + ": inconclusive, the U test needs " + runsText(r.RunsNeeded) + " runs a side"
	}
	return n + ", no p-value"
}

// WriteText writes the report: the folders, the settings they differ in
// (before any figure: writeSettings), the table (with a "settings" column
// naming those each row was measured across, when any differ), its notes
// and one line per regressed, inconclusive or missing row. The first
// write error is returned.
func (r *Report) WriteText(w io.Writer) error {
	o := r.Options
	gate := make([]string, len(o.Gate))
	for i, u := range o.Gate {
		gate[i] = string(u)
	}
	strict := ""
	if o.Strict {
		strict = "; strict: missing and gated inconclusive rows fail"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "OLD: %s\nNEW: %s\n", escape.Terminal(r.Old), escape.Terminal(r.New))
	r.writeSettings(&b)
	fmt.Fprintf(&b, "alpha %g, threshold %g%%, intervals %g%%; gated: %s%s\n\n", o.Alpha, 100*o.Threshold, 100*Confidence, strings.Join(gate, ", "), strict)
	r.writeTable(&b)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nnote: %s", escape.Terminal(n))
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	regs, inc, miss := r.Regressions(), r.Inconclusives(), r.Missings()
	if len(regs)+len(inc)+len(miss) > 0 {
		b.WriteString("\n")
	}
	for _, rows := range []struct {
		v    benchgate.Verdict
		rows []Row
	}{{regressed, regs}, {inconclusive, inc}, {missingInNew, miss}} {
		for _, row := range rows.rows {
			fmt.Fprintf(&b, "%s: %s\n", Word(rows.v), escape.Terminal(row.Message()))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSettings writes what the runs' settings say before any figure:
// each setting that differs with the rows measured across it, what one
// side ran and the other did not, and whose settings are unknown; or that
// the settings are the same.
func (r *Report) writeSettings(b *strings.Builder) {
	esc := escape.Terminal
	switch {
	case len(r.Settings) > 0:
		fmt.Fprintf(b, "settings differ (a row measured across one judges the setting as much as the code):\n")
	case len(r.Ran) > 0:
		fmt.Fprintf(b, "settings: the same on the rows both sides have; the runs differ in what they ran:\n")
	}
	for _, s := range r.Settings {
		where := "every row"
		if s.Rows != nil {
			where = list(s.Rows)
		}
		fmt.Fprintf(b, "  %s  [%s]\n", esc(s.String()), esc(where))
	}
	for _, s := range r.Ran {
		fmt.Fprintf(b, "  %s: a row one side only has is missing\n", esc(s))
	}
	for _, s := range r.Unknown {
		fmt.Fprintf(b, "settings: %s\n", esc(s))
	}
	if len(r.Settings)+len(r.Ran)+len(r.Unknown) == 0 {
		b.WriteString("settings: the same on both sides (summary.json and bench.txt)\n")
	}
}

// writeTable writes the rows as a table; the "settings" column is there
// when any setting differs.
func (r *Report) writeTable(b *strings.Builder) {
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	head := "scenario\tfigure\told\tnew\tdelta\tinterval\tp\tgated\tverdict"
	if len(r.Settings) > 0 {
		head += "\tsettings"
	}
	fmt.Fprintln(tw, head)
	for _, row := range r.Rows {
		p, gated := "-", "no"
		if row.Tested {
			p = fmt.Sprintf("%.3f", row.P)
		} else if !row.Missing {
			p = "n/a"
		}
		if row.Gated {
			gated = "yes"
		}
		cells := []string{row.Key.String(), string(row.Unit), side(row.Old), side(row.New),
			pct(row.Delta), interval(row.DeltaLo, row.DeltaHi), p, gated, Word(row.Verdict)}
		if len(r.Settings) > 0 {
			across := "same"
			if len(row.Differs) > 0 {
				across = "differ: " + strings.Join(row.Differs, ", ")
			} else if row.Missing {
				across = "-"
			}
			cells = append(cells, across)
		}
		for i, c := range cells {
			cells[i] = escape.Terminal(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// side is "41.5 ± 3%", or "-" without values.
func side(c Centre) string {
	if c.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4g ± %s", c.Center, c.Range)
}

// pct is a relative change as a signed percentage.
func pct(d float64) string {
	switch {
	case math.IsNaN(d):
		return "-"
	case math.IsInf(d, 1):
		return "+∞%"
	case math.IsInf(d, -1):
		return "-∞%"
	case math.Abs(d) >= 1:
		return stat.SignedPercent(d, 0)
	}
	return stat.SignedPercent(d, 1)
}

// interval is "[-8.0%, +2.1%]", with ∞ for an unbounded end.
func interval(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	if math.IsInf(lo, 0) && math.IsInf(hi, 0) {
		return "∞"
	}
	return "[" + pct(lo) + ", " + pct(hi) + "]"
}

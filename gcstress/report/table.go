package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/workload"
)

// FormatTable is the terminal table (the default -format).
const FormatTable Name = "table"

var tableFormat = Format{Name: FormatTable, Terminal: WriteTable}

// kindsOf lists the kinds of the results, in order of first appearance.
func kindsOf(rs []results.Result) []string {
	var ks []string
	for _, r := range rs {
		if !slices.Contains(ks, r.Scenario.Kind) {
			ks = append(ks, r.Scenario.Kind)
		}
	}
	return ks
}

func group(rs []results.Result, g ...string) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if slices.Contains(g, r.Scenario.Group) {
			out = append(out, r)
		}
	}
	return out
}

// addendumTable is the Hypertable addendum's table: one row per value size
// and key count, one MB/s column per kind, health under each figure.
func addendumTable(rs []results.Result) (header []string, rows [][]string) {
	m := writeMatrix(rs) // a mix's throughput is its own table (readers.go)
	kinds := columnsOf(m)
	header = []string{"Value Size", "Key Count"}
	for _, k := range kinds {
		header = append(header, k+" MB/s")
	}
	type rk struct{ v, k int64 }
	var order []rk
	cells := map[rk]map[string]results.Result{}
	for _, r := range m {
		key := rk{r.Scenario.Value, r.Scenario.Keys}
		if cells[key] == nil {
			cells[key] = map[string]results.Result{}
			order = append(order, key)
		}
		cells[key][kindColumn(r.Scenario)] = r
	}
	for _, key := range order {
		row := []string{workload.FormatSize(key.v), keyCount(key.k)}
		for _, k := range kinds {
			r, ok := cells[key][k]
			if !ok {
				row = append(row, "-")
				continue
			}
			c := view.CellText(r)
			if r.Verdict.Class != results.Failed {
				c += " " + string(r.Verdict.Class)
			}
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	return header, rows
}

// failureTable shows the failure and stall scenarios side by side.
func failureTable(rs []results.Result) (header []string, rows [][]string) {
	header = []string{"Scenario", "Result", "Health", "Keys written", "Peak heap", "Peak RSS", "Limiter on", "Put p99", "Put p99.9", "Put max", "Writers blocked"}
	for _, r := range group(rs, results.SetFailure, results.SetCollapse, results.SetStall) {
		f := view.FiguresOf(r)
		res := view.CellText(r)
		if r.Verdict.Class != results.Failed {
			res += " MB/s"
		}
		rows = append(rows, []string{r.Scenario.RunLabel(), res, string(r.Verdict.Class),
			fmt.Sprintf("%s (%.0f%%)", commas(f.Keys), 100*r.Last.Progress), results.MiB(f.PeakHeap), results.MiB(f.PeakRSS),
			fmt.Sprintf("%.0f s", r.Verdict.LimiterOn), view.NS(f.LatP99), view.NS(f.LatP999), view.NS(f.LatMax), fmt.Sprintf("%.1f s", f.BlockedS)})
	}
	return header, rows
}

// gcTable is the GC table: one row per scenario.
func gcTable(rs []results.Result) (header []string, rows [][]string) {
	header = []string{"Scenario", "MB/s", "Cores", "Cycles", "GC CPU %", "Assist %", "Pause p50/p99/max", "Peak heap", "Peak RSS", "Frag (heap unused)", "Put p50/p99/p99.9", "Health"}
	for _, r := range rs {
		f := view.FiguresOf(r)
		rows = append(rows, []string{r.Scenario.RunLabel(), fmt.Sprintf("%.1f", f.MBps), fmt.Sprintf("%.2f", f.Cores), fmt.Sprint(f.Cycles),
			fmt.Sprintf("%.1f", f.GCPct), fmt.Sprintf("%.1f", f.AssistPct),
			fmt.Sprintf("%s/%s/%s", view.US(f.PauseP50), view.US(f.PauseP99), view.US(f.PMax)),
			results.MiB(f.PeakHeap), results.MiB(f.PeakRSS), results.MiB(f.Unused),
			fmt.Sprintf("%s/%s/%s", view.NS(f.LatP50), view.NS(f.LatP99), view.NS(f.LatP999)), string(r.Verdict.Class)})
	}
	return header, rows
}

// costNote says what the cost table's figures are; every format prints it
// under the table.
var costNote = "Per entry: what the engine holds per live entry: Go heap objects, live bytes and pointer-bearing bytes, " +
	"from readings after a forced GC before the engine was built and at the end of the load, and the bytes it reports holding off the Go heap " +
	"(EngineStats.OffHeapBytes: \"+ N off-heap\"), divided by the entries the engine holds " +
	"(\"engine\") or, when it reports none, the keys written (\"keys\"); heap plus off-heap bytes below one entry's key+value flag the entry count as inflated. " +
	"Per Put and per GB (10^9 B of key+value): over the windows after the warm-up; " +
	"GC CPU is the GC share's numerator (GC total minus idle-priority marking), CPU the process's user+system time; " +
	"Alloc is what the process allocated per Put (the garbage the collector reclaims). " +
	"Below what a run resolves: objects per entry under 0.01 read ~0, and the GC figures of a run whose windows completed " +
	fmt.Sprintf("fewer than %d GC cycles read %s.", results.MinCostCycles, fewCycles())

// costTable is the per-entry and per-Put cost of every scenario that has
// it (an end record with a footprint or a cost); no rows when none has.
// Figures below what the run resolves read as resolve.go says.
func costTable(rs []results.Result) (header []string, rows [][]string) {
	header = []string{"Scenario", "Objects/entry", "Bytes/entry", "Pointer B/entry", "Entries", "GC CPU ns/Put", "Assist ns/Put", "CPU s/GB", "GC CPU s/GB", "Assist s/GB", "GC cycles/GB", "Alloc B/Put", "Alloc objects/Put"}
	for _, r := range rs {
		e := r.End
		if e == nil || (e.Footprint == (results.Footprint{}) && e.Cost == (results.Cost{})) {
			continue
		}
		ent := "-"
		if e.Entries > 0 {
			ent = fmt.Sprintf("%s (%s)", commas(e.Entries), e.EntriesFrom)
		}
		rows = append(rows, []string{r.Scenario.RunLabel(), objectsCell(e.ObjectsPerEntry, e.Entries), bytesCell(e, r.Scenario.Value),
			perEntry(e.ScanPerEntry, e.Entries), ent, gcCell(e, e.GCCPUNsPerPut, "%.0f"), gcCell(e, e.AssistNsPerPut, "%.0f"),
			fmt.Sprintf("%.2f", e.CPUSPerGB), gcCell(e, e.GCCPUSPerGB, "%.2f"), gcCell(e, e.AssistCPUSPerGB, "%.2f"),
			gcCell(e, e.CyclesPerGB, "%.3g"), allocFigure(e.AllocBytesPerPut, e.Cost), allocFigure(e.AllocObjectsPerPut, e.Cost)})
	}
	return header, rows
}

// allocFigure prints an allocation per Put with three significant digits;
// "-" in a record written before the figure existed (no allocation at
// all is rare: the harness allocates a little).
func allocFigure(v float64, c results.Cost) string {
	if c.AllocBytesPerPut == 0 && c.AllocObjectsPerPut == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// perEntry prints a per-entry figure with three significant digits (small
// ones, such as a segment store's 0.004 objects, stay readable); "-"
// without entries.
func perEntry(v float64, entries int64) string {
	if entries == 0 {
		return "-"
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// WriteTable prints the terminal report: the addendum table, the failure
// scenarios, the GC table, the conclusions (conclusion.go), why each
// unhealthy scenario is classed so, and the thresholds. Names, notes and errors from engines and children have
// their control characters escaped (internal/escape).
func WriteTable(w io.Writer, sum *results.Summary) error {
	tx := escape.Terminal
	ew := &errWriter{w: w}
	if h := headline(sum, tx); h != "" {
		fmt.Fprintf(ew, "%s\n\n", h) // the line to act on first (headline.go)
	}
	fmt.Fprintf(ew, "gcstress: %s, GOEXPERIMENT %s, %s/%s, %d CPUs\n", tx(sum.GoVersion), tx(sum.GOEXPERIMENT), tx(sum.GOOS), tx(sum.GOARCH), sum.CPUs)
	if sum.GOMAXPROCS > 0 {
		fmt.Fprintf(ew, "machine: %s%s\n", tx(view.OrUnknown(sum.CPUModel)), view.LoadLine(sum))
	}
	if note := view.BusyNote(sum.Results); note != "" {
		fmt.Fprintln(ew, tx(note))
	}
	if sum.Interrupted {
		fmt.Fprintf(ew, "INTERRUPTED: the report covers the %d scenario(s) that ran.\n", len(sum.Results))
	}
	if p := openingParagraph(sum, tx); p != "" {
		fmt.Fprintf(ew, "\n%s\n", p)
	}
	writeResultTables(ew, sum.Results, sum.Capacity, tableHeadings{
		addendum: "\nRandom write throughput (key+value MB/s, MB = 10^6 B), health per scenario:\n",
		failure:  "\nFailure, collapse and stall scenarios (backpressure off unless the name says stall):\n",
		gc:       "\nGC per scenario:\n",
		cost:     "\nGC cost per entry, per Put and per GB written:\n",
		repeats:  "\nRepeated runs (-count): median [least to greatest]; gcstress compare judges two such runs:\n",
		openLoop: "\nOpen loop: target vs achieved rate, service time vs latency from intended start:\n",
		capacity: "\nCapacity: the highest open-loop rate at which the collector stays healthy (key+value MB/s):\n",
		envs:     "\nBuild environments side by side (-build-envs), with the heap's shape:\n",
		esc:      tx,
	})
	writeFrontier(ew, sum, "\nFrontier: GC CPU per GB against peak memory per GOGC x GOMEMLIMIT setting:\n", tx)
	writeMMUTable(ew, sum.Results, "\nThe collector over time, MMU and mark assists: %s\n", tx) // mmu.go
	writeNotes(ew, "\nNotes:\n", sum, tx)
	if cs := conclusions(sum, tx); len(cs) > 0 {
		fmt.Fprintf(ew, "\nConclusions:\n")
		for _, c := range cs {
			fmt.Fprintf(ew, "- %s\n", c)
		}
	}
	fmt.Fprintln(ew)
	for _, r := range sum.Results {
		if r.Verdict.Class != results.Healthy {
			fmt.Fprintf(ew, "%s: %s: %s\n", tx(r.Scenario.RunLabel()), tx(string(r.Verdict.Class)), tx(r.Verdict.Why))
		}
	}
	for _, r := range sum.Results {
		if r.Headline != "" {
			fmt.Fprintf(ew, "profile %s\n", tx(r.Headline))
		}
	}
	fmt.Fprintf(ew, "\nThresholds: %s.\n%s\n", sum.Rules, sum.SpanNote)
	return ew.err
}

// renderTable prints a pipe table (valid Markdown, readable in a terminal)
// with every cell escaped by esc first.
func renderTable(w io.Writer, header []string, rows [][]string, esc func(string) string) {
	header = escapeCells(header, esc)
	rows = slices.Clone(rows)
	for i, r := range rows {
		rows[i] = escapeCells(r, esc)
	}
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range cells {
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
}

func escapeCells(cells []string, esc func(string) string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = esc(c)
	}
	return out
}

// keyCount is a scenario's key count for a table: "400,000", or
// "unbounded" for a duration-first scenario (results.UnboundedKeys).
func keyCount(n int64) string {
	if n >= results.UnboundedKeys {
		return "unbounded"
	}
	return commas(n)
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// latencyNote says how Put latencies were sampled; scenario names go
// through esc.
func latencyNote(rs []results.Result, esc func(string) string) string {
	var parts []string
	seen := map[int]bool{}
	for _, r := range rs {
		n := r.Scenario.LatencyEvery
		if seen[n] {
			continue
		}
		seen[n] = true
		var names []string
		for _, r2 := range rs {
			if r2.Scenario.LatencyEvery == n {
				names = append(names, esc(r2.Scenario.Name))
			}
		}
		who := ""
		if len(seen) > 1 || len(names) < len(rs) {
			who = " (" + strings.Join(names, ", ") + ")"
		}
		switch n {
		case 0:
			parts = append(parts, "off"+who)
		case 1:
			parts = append(parts, "every Put timed"+who)
		default:
			parts = append(parts, fmt.Sprintf("one Put in %d timed, every %dth key, max over the timed Puts%s", n, n, who))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Put latencies (HdrHistogram, 3 significant digits): " + strings.Join(parts, "; ") + "."
}

// tableHeadings are the lines a format prints before each result table,
// and esc, what every cell and note goes through (escape.Terminal or
// escape.Markdown).
type tableHeadings struct {
	addendum, failure, gc, cost, repeats, openLoop, capacity, notePrefix string
	esc                                                                  func(string) string
	markdown                                                             bool   // report.md: sections are Markdown headings
	envs                                                                 string // before the build environments' table
}

// writeResultTables writes the addendum, failure and GC tables (those that
// apply) and the latency note, shared by the terminal and Markdown reports.
func writeResultTables(w io.Writer, rs []results.Result, capa []results.Capacity, hd tableHeadings) {
	if len(writeMatrix(rs)) > 0 {
		fmt.Fprint(w, hd.addendum)
		h, rows := addendumTable(rs)
		renderTable(w, h, rows, hd.esc)
	}
	if len(group(rs, results.SetFailure, results.SetCollapse, results.SetStall)) > 0 {
		fmt.Fprint(w, hd.failure)
		writeSetNotes(w, rs, hd.notePrefix, hd.esc)
		fmt.Fprintln(w)
		h, rows := failureTable(rs)
		renderTable(w, h, rows, hd.esc)
	}
	if h, rows := openLoopTable(rs); len(rows) > 0 {
		fmt.Fprint(w, hd.openLoop)
		renderTable(w, h, rows, hd.esc)
	}
	writeReaderTables(w, rs, hd.markdown, hd.esc) // readers.go
	if len(capa) > 0 {
		fmt.Fprint(w, hd.capacity)
		h, rows := capacityTable(capa)
		renderTable(w, h, rows, hd.esc)
		fmt.Fprintf(w, "\n%s", capacityNotes(capa, thresholdsOf(rs), hd.esc))
	}
	fmt.Fprint(w, hd.gc)
	h, rows := gcTable(rs)
	renderTable(w, h, rows, hd.esc)
	if h, rows := costTable(rs); len(rows) > 0 {
		fmt.Fprint(w, hd.cost)
		renderTable(w, h, rows, hd.esc)
		fmt.Fprintf(w, "\n%s\n", costNote)
	}
	if h, rows := repeatsTable(rs); len(rows) > 0 {
		fmt.Fprint(w, hd.repeats)
		renderTable(w, h, rows, hd.esc)
	}
	if h, rows := envTable(rs); len(rows) > 0 {
		fmt.Fprint(w, hd.envs)
		renderTable(w, h, rows, hd.esc)
		fmt.Fprintf(w, "\n%s\n", envNote)
	}
	if n := latencyNote(rs, hd.esc); n != "" {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	writeEngineNotes(w, rs, hd.esc)
}

// noteText prints an engine note: whole numbers in full, others with
// four significant digits.
func noteText(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// writeEngineNotes lists the figures NoteEngines reported after Close, one
// line per scenario that has any, keys sorted; nothing when none has.
// Names and keys go through esc.
func writeEngineNotes(w io.Writer, results []results.Result, esc func(string) string) {
	first := true
	for _, r := range results {
		if r.End == nil || len(r.End.Notes) == 0 {
			continue
		}
		if first {
			fmt.Fprint(w, "\nEngine notes (reported by the engine after Close):\n\n")
			first = false
		}
		keys := slices.Sorted(maps.Keys(r.End.Notes))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = esc(k) + " " + noteText(r.End.Notes[k])
		}
		fmt.Fprintf(w, "- %s: %s\n", esc(r.Scenario.RunLabel()), strings.Join(parts, ", "))
	}
}

// writeNotes writes heading and the summary's notes (results.Notes: the
// lines a rebuild skipped, each panicked child's panic line), one "- " line
// each through esc; nothing when there are none.
func writeNotes(w io.Writer, heading string, sum *results.Summary, esc func(string) string) {
	notes := results.Notes(sum)
	if len(notes) == 0 {
		return
	}
	fmt.Fprint(w, heading)
	for _, n := range notes {
		fmt.Fprintf(w, "- %s\n", esc(n))
	}
}

// thresholdsOf is the thresholds the results were classified with.
func thresholdsOf(rs []results.Result) results.Thresholds {
	if len(rs) > 0 {
		return rs[0].Scenario.Thresholds
	}
	return results.DefaultThresholds()
}

package gcstress

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/workload"
)

// figures are a scenario's whole-run numbers for the tables.
type figures struct {
	MBps                      float64 // key+value MB/s over the run, MB = 10^6 B
	Keys                      int64
	Seconds                   float64
	Cycles                    uint64
	GCPct, AssistPct          float64
	PauseP50, PauseP99, PMax  float64 // microseconds
	PeakHeap, PeakRSS, Unused uint64
	LatP50, LatP99, LatP999   int64
	LatMax, LatN              int64
	LatMean                   float64
	LatMin, LatP95            int64
	BlockedS                  float64
	Cores                     float64 // CPU cores the child used on average
	Flushes                   int64
}

func figuresOf(r Result) figures {
	var f figures
	l := r.Last
	if r.End != nil {
		l = *r.End
	}
	f.Keys, f.Seconds, f.Cycles, f.Flushes = l.Keys, l.T, l.Cycles, l.Flushes
	f.MBps = mbps(l.Bytes, l.T)
	f.GCPct, f.AssistPct = r.Verdict.GCPct, r.Verdict.AssistPct
	f.BlockedS = float64(l.BlockedNanos) / 1e9
	if r.End != nil && r.End.T > 0 {
		f.Cores = r.End.ProcCPU / r.End.T
	} else if l.T > 0 {
		var c float64
		for _, w := range r.Windows {
			c += w.ProcCPU
		}
		f.Cores = c / l.T
	}
	for _, w := range r.Windows {
		f.PeakHeap = max(f.PeakHeap, w.HeapObjects)
		f.PeakRSS = max(f.PeakRSS, w.RSS)
		f.Unused = max(f.Unused, w.HeapUnused)
		f.PauseP99 = max(f.PauseP99, w.PauseP99us)
		f.PMax = max(f.PMax, w.PauseMaxus)
		f.PauseP50 = max(f.PauseP50, w.PauseP50us)
		f.LatMax = max(f.LatMax, w.LatMax)
	}
	if e := r.End; e != nil {
		f.PeakHeap, f.PeakRSS = max(f.PeakHeap, e.PeakHeap), max(f.PeakRSS, e.PeakRSS)
		f.PauseP50, f.PauseP99, f.PMax = e.PauseP50us, e.PauseP99us, max(f.PMax, e.PauseMaxus)
		f.LatP50, f.LatP99, f.LatP999, f.LatMax, f.LatN = e.LatP50, e.LatP99, e.LatP999, max(f.LatMax, e.LatMax), e.LatN
		f.LatMean, f.LatMin, f.LatP95 = e.LatMean, e.LatMin, e.LatP95
	} else {
		// No end line (the child died): the worst window's latencies.
		for _, w := range r.Windows {
			f.LatP50, f.LatP99, f.LatP999 = max(f.LatP50, w.LatP50), max(f.LatP99, w.LatP99), max(f.LatP999, w.LatP999)
			f.LatN += w.LatN
		}
	}
	return f
}

// cellText is a scenario's cell in the addendum table: MB/s, or
// "failed at 60% (limiter on 12 s)" as the addendum reported HBase.
func cellText(r Result) string {
	f := figuresOf(r)
	v := r.Verdict
	if v.Class == Failed {
		var why []string
		switch {
		case r.Exit.RSSCap:
			why = append(why, "RSS cap")
		case r.Exit.Died:
			why = append(why, "died: "+r.Exit.Message)
		}
		if v.LimiterOn > 0 {
			why = append(why, fmt.Sprintf("limiter on %.0f s", v.LimiterOn))
		}
		s := fmt.Sprintf("failed at %.0f%%", 100*v.FailedAt)
		if len(why) > 0 {
			s += " (" + strings.Join(why, ", ") + ")"
		}
		return s
	}
	s := fmt.Sprintf("%.1f", f.MBps)
	switch {
	case r.Stopped == StopInterrupted:
		s += fmt.Sprintf(" (interrupted at %.0f%%)", 100*r.Last.Progress)
	case r.End != nil && r.End.Reason == StopDuration:
		s += fmt.Sprintf(" (%.0f%% in %.0f s)", 100*r.End.Progress, r.End.T)
	}
	return s
}

// kindsOf lists the kinds of the results, in order of first appearance.
func kindsOf(rs []Result) []string {
	var ks []string
	for _, r := range rs {
		if !slices.Contains(ks, r.Scenario.Kind) {
			ks = append(ks, r.Scenario.Kind)
		}
	}
	return ks
}

func group(rs []Result, g ...string) []Result {
	var out []Result
	for _, r := range rs {
		if slices.Contains(g, r.Scenario.Group) {
			out = append(out, r)
		}
	}
	return out
}

// addendumTable is the Hypertable addendum's table: one row per value size
// and key count, one MB/s column per kind, health under each figure.
func addendumTable(rs []Result) (header []string, rows [][]string) {
	m := group(rs, "matrix")
	kinds := kindsOf(m)
	header = []string{"Value Size", "Key Count"}
	for _, k := range kinds {
		header = append(header, k+" MB/s")
	}
	type rk struct{ v, k int64 }
	var order []rk
	cells := map[rk]map[string]Result{}
	for _, r := range m {
		key := rk{r.Scenario.Value, r.Scenario.Keys}
		if cells[key] == nil {
			cells[key] = map[string]Result{}
			order = append(order, key)
		}
		cells[key][r.Scenario.Kind] = r
	}
	for _, key := range order {
		row := []string{workload.FormatSize(key.v), commas(key.k)}
		for _, k := range kinds {
			r, ok := cells[key][k]
			if !ok {
				row = append(row, "-")
				continue
			}
			c := cellText(r)
			if r.Verdict.Class != Failed {
				c += " " + string(r.Verdict.Class)
			}
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	return header, rows
}

// failureTable shows the failure and stall scenarios side by side.
func failureTable(rs []Result) (header []string, rows [][]string) {
	header = []string{"Scenario", "Result", "Health", "Keys written", "Peak heap", "Peak RSS", "Limiter on", "Put p99", "Put p99.9", "Put max", "Writers blocked"}
	for _, r := range group(rs, SetFailure, SetCollapse, SetStall) {
		f := figuresOf(r)
		res := cellText(r)
		if r.Verdict.Class != Failed {
			res += " MB/s"
		}
		rows = append(rows, []string{r.Scenario.Name, res, string(r.Verdict.Class),
			fmt.Sprintf("%s (%.0f%%)", commas(f.Keys), 100*r.Last.Progress), mib(f.PeakHeap), mib(f.PeakRSS),
			fmt.Sprintf("%.0f s", r.Verdict.LimiterOn), ns(f.LatP99), ns(f.LatP999), ns(f.LatMax), fmt.Sprintf("%.1f s", f.BlockedS)})
	}
	return header, rows
}

// gcTable is the GC table: one row per scenario.
func gcTable(rs []Result) (header []string, rows [][]string) {
	header = []string{"Scenario", "MB/s", "Cores", "Cycles", "GC CPU %", "Assist %", "Pause p50/p99/max", "Peak heap", "Peak RSS", "Frag (heap unused)", "Put p50/p99/p99.9", "Health"}
	for _, r := range rs {
		f := figuresOf(r)
		rows = append(rows, []string{r.Scenario.Name, fmt.Sprintf("%.1f", f.MBps), fmt.Sprintf("%.2f", f.Cores), fmt.Sprint(f.Cycles),
			fmt.Sprintf("%.1f", f.GCPct), fmt.Sprintf("%.1f", f.AssistPct),
			fmt.Sprintf("%s/%s/%s", us(f.PauseP50), us(f.PauseP99), us(f.PMax)),
			mib(f.PeakHeap), mib(f.PeakRSS), mib(f.Unused),
			fmt.Sprintf("%s/%s/%s", ns(f.LatP50), ns(f.LatP99), ns(f.LatP999)), string(r.Verdict.Class)})
	}
	return header, rows
}

// WriteTable prints the terminal report: the addendum table, the failure
// scenarios, the GC table, why each unhealthy scenario is classed so, and
// the thresholds. Names, notes and errors from engines and children have
// their control characters escaped (internal/escape).
func WriteTable(w io.Writer, sum *Summary) error {
	tx := escape.Terminal
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "gcstress: %s, GOEXPERIMENT %s, %s/%s, %d CPUs\n", tx(sum.GoVersion), tx(sum.GOEXPERIMENT), tx(sum.GOOS), tx(sum.GOARCH), sum.CPUs)
	if sum.GOMAXPROCS > 0 {
		fmt.Fprintf(ew, "machine: %s%s\n", tx(orUnknown(sum.CPUModel)), machineLoad(sum))
	}
	if note := busyNote(sum.Results); note != "" {
		fmt.Fprintln(ew, tx(note))
	}
	if sum.Interrupted {
		fmt.Fprintf(ew, "INTERRUPTED: the report covers the %d scenario(s) that ran.\n", len(sum.Results))
	}
	writeResultTables(ew, sum.Results, sum.Capacity, tableHeadings{
		addendum: "\nRandom write throughput (key+value MB/s, MB = 10^6 B), health per scenario:\n",
		failure:  "\nFailure, collapse and stall scenarios (backpressure off unless the name says stall):\n",
		gc:       "\nGC per scenario:\n",
		openLoop: "\nOpen loop: target vs achieved rate, service time vs latency from intended start:\n",
		capacity: "\nCapacity: the highest open-loop rate at which the collector stays healthy (key+value MB/s):\n",
		esc:      tx,
	})
	fmt.Fprintln(ew)
	for _, r := range sum.Results {
		if r.Verdict.Class != Healthy {
			fmt.Fprintf(ew, "%s: %s: %s\n", tx(r.Scenario.Name), tx(string(r.Verdict.Class)), tx(r.Verdict.Why))
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

func sizeOrOff(n int64) string {
	if n == 0 {
		return "off"
	}
	return workload.FormatSize(n)
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

// ns formats nanoseconds compactly.
func ns(v int64) string {
	switch {
	case v <= 0:
		return "-"
	case v < 1_000:
		return fmt.Sprintf("%dns", v)
	case v < 1_000_000:
		return fmt.Sprintf("%.1fµs", float64(v)/1e3)
	case v < 1_000_000_000:
		return fmt.Sprintf("%.1fms", float64(v)/1e6)
	}
	return fmt.Sprintf("%.2fs", float64(v)/1e9)
}

// us formats microseconds compactly.
func us(v float64) string {
	if v <= 0 {
		return "-"
	}
	return ns(int64(v * 1e3))
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
func latencyNote(rs []Result, esc func(string) string) string {
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
	addendum, failure, gc, openLoop, capacity, notePrefix string
	esc                                                   func(string) string
}

// writeResultTables writes the addendum, failure and GC tables (those that
// apply) and the latency note, shared by the terminal and Markdown reports.
func writeResultTables(w io.Writer, results []Result, capa []Capacity, hd tableHeadings) {
	if len(group(results, "matrix")) > 0 {
		fmt.Fprint(w, hd.addendum)
		h, rows := addendumTable(results)
		renderTable(w, h, rows, hd.esc)
	}
	if len(group(results, SetFailure, SetCollapse, SetStall)) > 0 {
		fmt.Fprint(w, hd.failure)
		writeSetNotes(w, results, hd.notePrefix, hd.esc)
		fmt.Fprintln(w)
		h, rows := failureTable(results)
		renderTable(w, h, rows, hd.esc)
	}
	if h, rows := openLoopTable(results); len(rows) > 0 {
		fmt.Fprint(w, hd.openLoop)
		renderTable(w, h, rows, hd.esc)
	}
	if len(capa) > 0 {
		fmt.Fprint(w, hd.capacity)
		h, rows := capacityTable(capa)
		renderTable(w, h, rows, hd.esc)
		fmt.Fprintf(w, "\n%s", capacityNotes(capa, thresholdsOf(results), hd.esc))
	}
	fmt.Fprint(w, hd.gc)
	h, rows := gcTable(results)
	renderTable(w, h, rows, hd.esc)
	if n := latencyNote(results, hd.esc); n != "" {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	writeEngineNotes(w, results, hd.esc)
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
func writeEngineNotes(w io.Writer, results []Result, esc func(string) string) {
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
		fmt.Fprintf(w, "- %s: %s\n", esc(r.Scenario.Name), strings.Join(parts, ", "))
	}
}

// thresholdsOf is the thresholds the results were classified with.
func thresholdsOf(rs []Result) Thresholds {
	if len(rs) > 0 {
		return rs[0].Scenario.Thresholds
	}
	return DefaultThresholds()
}

package offheapprobe

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/writegc/writegc/internal/stat"
)

// Row is one round of one process in the summary: both kinds' fill times
// and the offheap fill's huge page counters.
type Row struct {
	Proc, Round int
	ArenaMs     float64
	OffHeapMs   float64
	// Ratio is offheap's fill time over arena's: above 1, offheap was
	// slower (2 is "half arena's speed").
	Ratio float64
	// Of the arena fill: the process's minor faults and system CPU time
	// (fresh or scavenged heap memory faulted in).
	ArenaMinFlt int64
	ArenaSysMs  float64
	// Of the offheap fill: system-wide THP faults that got a huge page and
	// that fell back to small pages, direct compaction and direct reclaim
	// stalls (allocstall_*, summed), the process's system CPU time, and
	// the huge page bytes of its chunks' mappings.
	THPAlloc, THPFallback, CompactStall, AllocStall int64
	OffHeapSysMs                                    float64
	OffHeapAnonHugeMB                               float64
	// ReportedGapMB is the free memory the guest handed back to its host
	// (free page reporting) between the end of this process's previous
	// fill and the start of the offheap fill, ReportedMB during it: memory
	// the host must fault in again when a fill touches it. 0 where the
	// kernel does not report free pages.
	ReportedGapMB, ReportedMB float64
}

// Summarize pairs each (proc, round)'s arena and offheap records, in
// ascending proc then round; a round missing a kind is left out.
func Summarize(recs []Record) []Row {
	type key struct{ proc, round int }
	byKey := map[key]*[2]*Record{}
	var keys []key
	for i := range recs {
		r := &recs[i]
		k := key{r.Proc, r.Round}
		p := byKey[k]
		if p == nil {
			p = new([2]*Record)
			byKey[k] = p
			keys = append(keys, k)
		}
		if r.Kind == KindArena {
			p[0] = r
		} else if r.Kind == KindOffHeap {
			p[1] = r
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.proc != b.proc {
			return a.proc - b.proc
		}
		return a.round - b.round
	})
	gap := reportedGaps(recs)
	var rows []Row
	for _, k := range keys {
		a, o := byKey[k][0], byKey[k][1]
		if a == nil || o == nil {
			continue
		}
		rows = append(rows, Row{
			Proc: k.proc, Round: k.round,
			ArenaMs: ms(a.FillNs), OffHeapMs: ms(o.FillNs), Ratio: float64(o.FillNs) / float64(a.FillNs),
			THPAlloc: o.Vmstat["thp_fault_alloc"], THPFallback: o.Vmstat["thp_fault_fallback"],
			CompactStall: o.Vmstat["compact_stall"], AllocStall: sumPrefix(o.Vmstat, "allocstall_"), OffHeapSysMs: ms(o.SysNs),
			ArenaMinFlt: a.MinFlt, ArenaSysMs: ms(a.SysNs),
			OffHeapAnonHugeMB: float64(o.Layout.AnonHugeKB) / 1024,
			ReportedGapMB:     float64(gap[o]) / 1024, ReportedMB: float64(o.Vmstat["page_reporting_reported_kib"]) / 1024,
		})
	}
	return rows
}

// reportedGaps is, per record, the KiB reported to the host between the
// end of the same process's previous record (in recs' order, which is the
// order the fills ran) and its start.
func reportedGaps(recs []Record) map[*Record]int64 {
	out := map[*Record]int64{}
	end := map[int]int64{} // proc: reported KiB at the end of its last fill
	for i := range recs {
		r := &recs[i]
		if r.ReportedKiBStart == 0 {
			continue
		}
		if e, ok := end[r.Proc]; ok {
			out[r] = r.ReportedKiBStart - e
		}
		end[r.Proc] = r.ReportedKiBStart + r.Vmstat["page_reporting_reported_kib"]
	}
	return out
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

func sumPrefix(m map[string]int64, prefix string) int64 {
	var n int64
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

// ProcRow is one process's offheap/arena time ratios over its rounds: the
// between-process spread is the bimodality.
type ProcRow struct {
	Proc, Rounds     int
	Median, Min, Max float64
	MedianArenaMs    float64
	MedianOffHeapMs  float64
}

// ByProc summarizes rows per process, in ascending proc.
func ByProc(rows []Row) []ProcRow {
	var out []ProcRow
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].Proc == rows[i].Proc {
			j++
		}
		var ratios, am, om []float64
		for _, r := range rows[i:j] {
			ratios, am, om = append(ratios, r.Ratio), append(am, r.ArenaMs), append(om, r.OffHeapMs)
		}
		out = append(out, ProcRow{Proc: rows[i].Proc, Rounds: j - i, Median: stat.Median(ratios),
			Min: slices.Min(ratios), Max: slices.Max(ratios), MedianArenaMs: stat.Median(am), MedianOffHeapMs: stat.Median(om)})
		i = j
	}
	return out
}

// WriteTable writes rows as an aligned text table to w, then, per
// process, the median, least and greatest ratio (ByProc).
func WriteTable(w io.Writer, rows []Row) error {
	if err := writeRounds(w, rows); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\nproc\trounds\tmedian arena ms\tmedian offheap ms\tmedian offheap/arena\tleast\tgreatest\t")
	for _, p := range ByProc(rows) {
		fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t\n", p.Proc, p.Rounds, p.MedianArenaMs, p.MedianOffHeapMs, p.Median, p.Min, p.Max)
	}
	return tw.Flush()
}

// writeRounds writes one line per round.
func writeRounds(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "proc\tround\tarena ms\toffheap ms\toffheap/arena (time)\tarena minflt\tarena sys ms\t"+
		"thp_fault_alloc\tthp_fault_fallback\tcompact_stall\tallocstall\toffheap sys ms\toffheap AnonHuge MB\treported before MB\treported during MB\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f\t%.2f\t%d\t%.1f\t%d\t%d\t%d\t%d\t%.1f\t%.0f\t%.0f\t%.0f\t\n", r.Proc, r.Round, r.ArenaMs, r.OffHeapMs,
			r.Ratio, r.ArenaMinFlt, r.ArenaSysMs, r.THPAlloc, r.THPFallback, r.CompactStall, r.AllocStall, r.OffHeapSysMs, r.OffHeapAnonHugeMB,
			r.ReportedGapMB, r.ReportedMB)
	}
	return tw.Flush()
}

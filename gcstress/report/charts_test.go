package report

import (
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

const mib = 1 << 20

// failureRun is a failure-set scenario of kind with n windows; heap object
// bytes are three times the live heap, so a chart drawing one cannot pass
// for the other.
func failureRun(group, kind string, n int) results.Result {
	r := results.Result{Scenario: results.Scenario{Name: group + "/" + kind, Group: group, Kind: kind, RSSCap: 200 * mib}}
	for i := 0; i < n; i++ {
		r.Windows = append(r.Windows, results.Sample{Type: results.SampleWindow, T: float64(i+1) * 0.25, MBps: 5,
			HeapLive: uint64(i+1) * mib, HeapObjects: 3 * uint64(i+1) * mib, HeapGoal: 64 * mib, MemLimit: 48 * mib,
			RSS: uint64(20+10*i) * mib})
	}
	return r
}

func failureRuns() []results.Result {
	heap := failureRun(results.SetFailure, "heap", 8)
	heap.Exit = results.Exit{RSSCap: true}
	heap.Verdict = results.Health{Class: results.Failed, FailedT: 2, Why: "resident memory passed the hard cap"}
	stall := failureRun(results.SetStall, "heap", 4)
	return []results.Result{heap, failureRun(results.SetFailure, "arena", 8), stall}
}

func legendOf(pn *panel, prefix string) (legendEntry, bool) {
	for _, e := range pn.legend {
		if strings.HasPrefix(e.label, prefix) {
			return e, true
		}
	}
	return legendEntry{}, false
}

func seriesOf(pn *panel, name string) (seriesRecord, bool) {
	for _, s := range pn.series {
		if s.name == name {
			return s, true
		}
	}
	return seriesRecord{}, false
}

// TestFailureChartRSSCapAndFailures: the failure chart's RSS panel draws
// each scenario's RSS, the hard cap as a labelled line named "RSS cap",
// and a marker where failure/heap failed, labelled with its class; every
// panel carries the marker.
func TestFailureChartRSSCapAndFailures(t *testing.T) {
	rs := failureRuns()
	panels := timelinePanels("failure", rs, true)
	if len(panels) != 4 {
		t.Fatalf("%d panels", len(panels))
	}
	rss := panels[2]
	if rss.Y.Label.Text != "RSS MiB" {
		t.Fatalf("RSS panel label %q", rss.Y.Label.Text)
	}
	for _, r := range rs {
		s, ok := seriesOf(rss, r.Scenario.Name)
		if !ok || len(s.xys) != len(r.Windows) || s.xys[1].Y != float64(r.Windows[1].RSS)/mib {
			t.Errorf("%s: RSS series %+v", r.Scenario.Name, s)
		}
	}
	capEntry, ok := legendOf(rss, "RSS cap")
	if !ok || len(capEntry.thumbs) != 1 {
		t.Fatalf("no RSS cap line in %+v", rss.legend)
	}
	if l, ok := capEntry.thumbs[0].(*level); !ok || l.y != 200 || !strings.HasPrefix(l.text, "RSS cap") {
		t.Errorf("RSS cap line %+v", capEntry.thumbs[0])
	}
	fail, ok := legendOf(rss, "failure/heap failed")
	if !ok || !strings.Contains(fail.label, "2.0 s") || !strings.Contains(fail.label, "RSS cap") {
		t.Fatalf("no failure marker for failure/heap in %+v", rss.legend)
	}
	if m, ok := fail.thumbs[0].(*marker); !ok || m.t != 2 || m.text != "failure/heap failed" || m.style.Color != view.KindColour("heap") {
		t.Errorf("failure marker %+v", fail.thumbs[0])
	}
	if _, ok := legendOf(rss, "failure/arena failed"); ok {
		t.Error("a scenario that did not fail is marked")
	}
	// Without the cap (a matrix timeline none of whose runs stopped at it): no cap line.
	if _, ok := legendOf(timelinePanels("values", rs, false)[2], "RSS cap"); ok {
		t.Error("RSS cap drawn where withCap is false")
	}
}

// TestHeapPanelDrawsHeapObjects: the heap panel draws heap object bytes
// (what the "heap above goal" rule compares with the goal), names them on
// its axis, and draws the goal.
func TestHeapPanelDrawsHeapObjects(t *testing.T) {
	rs := failureRuns()
	heap := timelinePanels("failure", rs, true)[1]
	if heap.Y.Label.Text != heapAxisLabel || !strings.Contains(heapAxisLabel, "heap object bytes") {
		t.Fatalf("heap axis %q", heap.Y.Label.Text)
	}
	w := rs[0].Windows[3]
	obj, ok := seriesOf(heap, "failure/heap")
	if !ok || obj.xys[3].Y != float64(w.HeapObjects)/mib {
		t.Errorf("heap line %+v, want heap objects %d MiB (live %d MiB)", obj.xys, w.HeapObjects/mib, w.HeapLive/mib)
	}
	goal, ok := seriesOf(heap, "failure/heap heap goal")
	if !ok || goal.xys[3].Y != float64(w.HeapGoal)/mib {
		t.Errorf("goal line %+v", goal)
	}
	if _, ok := legendOf(heap, "solid: heap object bytes"); !ok {
		t.Errorf("heap legend %+v", heap.legend)
	}
}

// TestChartColoursPerKind: every scenario's lines, in every panel of the
// timeline, throughput and capacity charts, are in view.KindColour of its
// kind; a second scenario of one kind (stall/heap beside failure/heap)
// keeps the colour and takes a glyph.
func TestChartColoursPerKind(t *testing.T) {
	rs := failureRuns()
	kindOf := map[string]string{}
	for _, r := range rs {
		kindOf[r.Scenario.Name] = r.Scenario.Kind
	}
	matrix := []results.Result{
		{Scenario: results.Scenario{Name: "offheap/10B", Group: results.SetMatrix, Kind: "offheap", Value: 10}, End: &results.Sample{T: 1, Bytes: 4e6}},
		{Scenario: results.Scenario{Name: "shardmap/10B", Group: results.SetMatrix, Kind: "shardmap", Value: 10}, End: &results.Sample{T: 1, Bytes: 2e6}},
	}
	for _, k := range []string{"offheap", "shardmap"} {
		kindOf[k] = k
	}
	cs := []results.Capacity{{Kind: "arena", Value: 100, SLO: 5 * time.Millisecond, Steps: []results.CapacityStep{{TargetMBps: 10, P99: 1e6, Healthy: true}, {TargetMBps: 20, P99: 9e6}}},
		{Kind: "heap", Value: 100, Steps: []results.CapacityStep{{TargetMBps: 10, P99: 2e6}}}}
	kindOf["arena 100B (sustains 0 MB/s)"], kindOf["heap 100B (sustains 0 MB/s)"] = "arena", "heap"
	panels := append(timelinePanels("failure", rs, true), throughputPlot(matrix))
	panels = append(panels, kneePanels(cs)...)
	for pi, pn := range panels {
		for _, s := range pn.series {
			kind, ok := kindOf[strings.TrimSuffix(strings.TrimSuffix(s.name, " heap goal"), " GOMEMLIMIT")]
			if !ok || s.colour != color.Color(view.KindColour(kind)) {
				t.Errorf("panel %d: %q drawn in %v, want %v (kind %q)", pi, s.name, s.colour, view.KindColour(kind), kind)
			}
		}
		for _, e := range pn.legend {
			if kind, ok := kindOf[e.label]; ok && e.colour != color.Color(view.KindColour(kind)) {
				t.Errorf("panel %d: legend %q in %v", pi, e.label, e.colour)
			}
		}
	}
	st := stylesOf([]string{"heap", "arena", "heap"}, true)
	if st[0].colour != st[2].colour || st[0].glyph != nil || st[2].glyph == nil {
		t.Errorf("styles %+v", st)
	}
}

// TestLegendsOutsidePlots: drawn, every panel's legend lies right of its
// plot (axes included), inside the image and within the panel's height;
// the plots' own legends (drawn on the data) stay empty.
func TestLegendsOutsidePlots(t *testing.T) {
	cs := []results.Capacity{{Kind: "arena", Value: 100, SLO: 5 * time.Millisecond, Steps: []results.CapacityStep{{TargetMBps: 10, P99: 1e6, Healthy: true}}}}
	matrix := []results.Result{{Scenario: results.Scenario{Name: "heap/10B", Group: results.SetMatrix, Kind: "heap", Value: 10}, End: &results.Sample{T: 1, Bytes: 4e6}}}
	for name, fig := range map[string]struct {
		panels []*panel
		w, h   vg.Length
	}{
		"timeline":   {timelinePanels("failure", failureRuns(), true), 12 * vg.Inch, 12 * vg.Inch},
		"throughput": {[]*panel{throughputPlot(matrix)}, 9 * vg.Inch, 5 * vg.Inch},
		"capacity":   {kneePanels(cs), 11 * vg.Inch, 8 * vg.Inch},
	} {
		c := draw.New(vgimg.New(fig.w, fig.h))
		areas := drawPanels(c, fig.panels)
		for i, a := range areas {
			if len(fig.panels[i].legend) == 0 {
				t.Errorf("%s panel %d: no legend", name, i)
				continue
			}
			if a.legend.Min.X < a.plot.Max.X || a.legend.Max.X > c.Max.X || a.legend.Min.Y < a.plot.Min.Y-1 || a.legend.Max.Y > a.plot.Max.Y+1 {
				t.Errorf("%s panel %d: legend %v overlaps plot %v or leaves the image %v", name, i, a.legend, a.plot, c.Rectangle)
			}
			if sz := fig.panels[i].Legend.Rectangle(c).Size(); sz.X != 0 || sz.Y != 0 {
				t.Errorf("%s panel %d: the plot's own legend (on the data) has entries", name, i)
			}
		}
	}
}

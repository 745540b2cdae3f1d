package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// publishedRun is the published frontier (results/frontier/run: heap,
// arena, offheap, btree and Pebble at 100 B in a 512 MiB container, 15 s
// points), with every window; its README names the commit that measured it.
const publishedRun = "../../../results/frontier/run"

// settledRun is the published run of heap and arena with the default
// -settle (results/frontier/settled).
const settledRun = "../../../results/frontier/settled"

// refinedRun is the first published run with a refine run (heap and
// arena, results/frontier/refined).
const refinedRun = "../../../results/frontier/refined"

// refine100Runs are the published runs whose refine and confirmation
// runs last 100 cycles (heap and arena): replayed,
// both kinds' recommendations are confirmed in each.
var refine100Runs = []string{"../../../results/frontier/refine-100", "../../../results/frontier/refine-100b"}

// replayFrontier re-measures every grid point of dir from its windows
// (Measure, with the run's warm-up) and returns them with the run's
// confirmation and refine results by kind and its summary.
func replayFrontier(t *testing.T, dir string) ([]results.FrontierPoint, map[string]results.Result, map[string]results.Result, *results.Summary) {
	t.Helper()
	sum, rs, _, err := results.ReadArchived(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pts []results.FrontierPoint
	conf, refine := map[string]results.Result{}, map[string]results.Result{}
	for _, r := range rs {
		switch n := r.Scenario.Name; {
		case strings.Contains(n, "/confirm/"):
			conf[r.Scenario.Kind] = r
		case strings.Contains(n, "/refine/"):
			refine[r.Scenario.Kind] = r
		case strings.Contains(n, "gogc="):
			pts = append(pts, Measure(r, sum.Thresholds.Warmup))
		}
	}
	return pts, conf, refine, sum
}

// TestReplayPublishedFrontier re-measures each published run (the first,
// of five kinds from empty stores, and the settled one of heap and arena): the points
// equal the committed figures; heap's steady GC CPU per GB falls at every
// step up in GOGC without a limit while its peak RSS rises (its own
// figure did not); no recommendation is a failed, unhealthy or
// over-container point. It logs each kind's points, pick and, at the
// run's old pick, the steady prediction against the confirmation run
// (results/frontier/README.md quotes it).
func TestReplayPublishedFrontier(t *testing.T) {
	for _, dir := range append([]string{publishedRun, settledRun, refinedRun}, refine100Runs...) {
		t.Run(filepath.Base(dir), func(t *testing.T) { replayPublished(t, dir) })
	}
}

func replayPublished(t *testing.T, dir string) {
	if _, err := os.Stat(filepath.Join(dir, "samples.jsonl.gz")); err != nil {
		t.Skipf("no published run: %v", err)
	}
	pts, conf, refine, sum := replayFrontier(t, dir)
	if sum.FrontierRun == nil {
		t.Fatal("no frontier_run in the summary")
	}
	if len(pts) != len(sum.Frontier) {
		t.Fatalf("%d points re-measured, %d published", len(pts), len(sum.Frontier))
	}
	for i, p := range pts {
		q := sum.Frontier[i]
		if p.Scenario != q.Scenario || fmt.Sprintf("%.6g", p.GCCPUSPerGB) != fmt.Sprintf("%.6g", q.GCCPUSPerGB) || p.PeakRSS != q.PeakRSS {
			t.Errorf("re-measured %s: %g s/GB, %d B; published %g, %d", p.Scenario, p.GCCPUSPerGB, p.PeakRSS, q.GCCPUSPerGB, q.PeakRSS)
		}
	}
	Steady(pts)
	MarkPareto(pts)
	if m, ok := Model(pts, "heap"); !ok || !m.GCFalls || !m.RSSRises {
		t.Errorf("heap model %+v: want the steady GC CPU per GB to fall and peak RSS to rise at every GOGC step", m)
	}
	l := Limits{Container: 512 << 20, Headroom: 0.1, SLO: 50 * time.Millisecond}
	for _, k := range kindsOf(pts) {
		rec := Recommend(pts, k, l)
		t.Logf("%s: %s", k, rec.Reason)
		idle := idleFits(pts, k, l)
		for i, p := range pts {
			if p.Kind == k && rec.Fits && p.GOGC == rec.GOGC && p.MemLimit == rec.MemLimit {
				if ok, why := l.fits(p); !ok && !slices.Contains(idle, &pts[i]) {
					t.Errorf("%s: recommended %s does not fit (nor is its collector idle): %s", k, SettingOf(p).Label(), why)
				}
			}
		}
		r, ok := conf[k]
		if !ok {
			continue
		}
		for _, old := range sum.Recommendation {
			if old.Kind != k {
				continue
			}
			for _, p := range pts {
				if p.Kind == k && p.GOGC == old.GOGC && p.MemLimit == old.MemLimit {
					old.PredictedGCCPUSPerGB, old.PredictedGCCPUSE, old.PredictedPeakRSS = figure(p), p.SteadySE, p.PeakRSS
				}
			}
			whole := Measure(r, sum.Thresholds.Warmup)
			o := Confirm(old, whole, l)
			t.Logf("%s at the run's pick %s against the grid's steady figure: %s", k, Setting{old.GOGC, old.MemLimit}.Label(), o.ConfirmNote)
			rr, ok := refine[k]
			if !ok {
				continue
			}
			// Against a run as long (the refine run, 100 cycles in
			// refine-100*): the like-for-like comparison the published
			// runs confirmed holds under Confirm's rule.
			ref := Measure(rr, sum.Thresholds.Warmup)
			old.PredictedGCCPUSPerGB, old.PredictedGCCPUSE, old.PredictedPeakRSS = ref.GCCPUSPerGB, pointSE(ref), ref.PeakRSS
			o = Confirm(old, whole, l)
			t.Logf("%s against its refine run: %s", k, o.ConfirmNote)
			if slices.Contains(refine100Runs, dir) && !o.Confirmed {
				t.Errorf("%s: not confirmed on replay against its refine run: %s", k, o.ConfirmNote)
			}
		}
	}
}

// kindsOf is the kinds of pts, in their first order.
func kindsOf(pts []results.FrontierPoint) []string {
	var ks []string
	for _, p := range pts {
		if !slices.Contains(ks, p.Kind) {
			ks = append(ks, p.Kind)
		}
	}
	return ks
}

// Package gchealthprom exports a gchealth.Monitor's state as Prometheus
// metrics, on github.com/prometheus/client_golang (kept out of package
// gchealth so that its users need not depend on it).
//
// Metrics (every series is present at every scrape, so a state or cause
// that stops holding drops to 0 rather than vanishing):
//
//	gchealth_state{state="healthy|elevated|degraded|failing"}  1 for the current state (held against improvement: Options.CalmWindows), 0 otherwise
//	gchealth_cause{cause="gc_cpu|assist|heap_over_goal|memlimit-spiral"}  1 for each cause that holds
//	gchealth_gc_cpu_ratio          GC CPU share of the CPU used (0..1), over the latest span
//	gchealth_assist_ratio          mark-assist share (0..1)
//	gchealth_heap_to_limit_ratio   live heap / GOMEMLIMIT (0 when GOMEMLIMIT is off)
//	gchealth_heap_to_goal_ratio    heap objects / heap goal
//	gchealth_limiter_engaged       1 when the GC CPU limiter engaged in the latest window
//	gchealth_pause_p99_seconds     the latest window's p99 stop-the-world pause
//	gchealth_cycles_per_second     GC cycles per second in the latest window
//	gchealth_transitions_total     state changes since the Monitor started (counter)
//
// A Collector reads Monitor.State once per scrape; it is safe for
// concurrent use and holds nothing else. examples/service/gchealth.rules.yml
// holds alerting rules on these metrics, tested with promtool.
package gchealthprom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/writegc/writegc/gchealth"
)

// Collector is a prometheus.Collector of one Monitor (NewCollector): safe
// for concurrent scrapes, it holds nothing but the Monitor and its
// descriptions, and lives as long as the registry holding it.
type Collector struct {
	m                                       *gchealth.Monitor
	state, cause, gc, assist, heapLimit     *prometheus.Desc
	heapGoal, limiter, pause, cycles, trans *prometheus.Desc
}

// NewCollector returns a collector of m's state; register it with a
// prometheus.Registerer. It stays valid after m.Close (the last state).
func NewCollector(m *gchealth.Monitor) prometheus.Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("gchealth_"+name, help, labels, nil)
	}
	return &Collector{m: m,
		state:     d("state", "1 for the collector's current health state, 0 for the others.", "state"),
		cause:     d("cause", "1 for each cause of the current state that holds, 0 for the others.", "cause"),
		gc:        d("gc_cpu_ratio", "GC CPU share of the CPU the process used, idle-priority marking left out (0..1)."),
		assist:    d("assist_ratio", "Mark-assist share of the CPU the process used (0..1)."),
		heapLimit: d("heap_to_limit_ratio", "Live heap over GOMEMLIMIT (0 when GOMEMLIMIT is off)."),
		heapGoal:  d("heap_to_goal_ratio", "Heap objects over the heap goal."),
		limiter:   d("limiter_engaged", "1 when the GC CPU limiter engaged in the latest window."),
		pause:     d("pause_p99_seconds", "99th-percentile stop-the-world pause of the latest window."),
		cycles:    d("cycles_per_second", "GC cycles completed per second in the latest window."),
		trans:     d("transitions_total", "Health state changes since the monitor started."),
	}
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.state, c.cause, c.gc, c.assist, c.heapLimit, c.heapGoal, c.limiter, c.pause, c.cycles, c.trans} {
		ch <- d
	}
}

// Collect sends the Monitor's state now.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st := c.m.State()
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	for _, s := range gchealth.States() {
		ch <- prometheus.MustNewConstMetric(c.state, prometheus.GaugeValue, b(s == st.State), string(s))
	}
	for _, k := range gchealth.Causes() {
		held := false
		for _, have := range st.Causes {
			held = held || have == k
		}
		ch <- prometheus.MustNewConstMetric(c.cause, prometheus.GaugeValue, b(held), string(k))
	}
	f := st.Figures
	g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	g(c.gc, f.GCCPURatio)
	g(c.assist, f.AssistRatio)
	g(c.heapLimit, f.HeapToLimitRatio)
	g(c.heapGoal, f.HeapToGoalRatio)
	g(c.limiter, b(f.LimiterEngaged))
	g(c.pause, f.PauseP99Seconds)
	g(c.cycles, f.CyclesPerSecond)
	ch <- prometheus.MustNewConstMetric(c.trans, prometheus.CounterValue, float64(st.Transitions))
}

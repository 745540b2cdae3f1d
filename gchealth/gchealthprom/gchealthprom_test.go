package gchealthprom

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/writegc/writegc/gchealth"
)

// TestCollector: the contract's metric names and labels, a healthy
// Monitor before its first window, and a registry that accepts it.
func TestCollector(t *testing.T) {
	m, err := gchealth.New(gchealth.Options{Window: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := NewCollector(m)
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP gchealth_state 1 for the collector's current health state, 0 for the others.
# TYPE gchealth_state gauge
gchealth_state{state="degraded"} 0
gchealth_state{state="elevated"} 0
gchealth_state{state="failing"} 0
gchealth_state{state="healthy"} 1
# HELP gchealth_cause 1 for each cause of the current state that holds, 0 for the others.
# TYPE gchealth_cause gauge
gchealth_cause{cause="assist"} 0
gchealth_cause{cause="gc_cpu"} 0
gchealth_cause{cause="heap_over_goal"} 0
gchealth_cause{cause="memlimit-spiral"} 0
# HELP gchealth_transitions_total Health state changes since the monitor started.
# TYPE gchealth_transitions_total counter
gchealth_transitions_total 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "gchealth_state", "gchealth_cause", "gchealth_transitions_total"); err != nil {
		t.Fatal(err)
	}
	n, err := testutil.GatherAndCount(reg)
	if err != nil || n != 4+4+8 {
		t.Fatalf("%d series, %v", n, err)
	}
	for _, name := range []string{"gchealth_gc_cpu_ratio", "gchealth_assist_ratio", "gchealth_heap_to_limit_ratio"} {
		if k, err := testutil.GatherAndCount(reg, name); err != nil || k != 1 {
			t.Errorf("%s: %d %v", name, k, err)
		}
	}
}

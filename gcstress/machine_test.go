package gcstress

import (
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/report"
	"github.com/writegc/writegc/gcstress/results"
)

func TestBusyNote(t *testing.T) {
	quiet := Result{Scenario: Scenario{Name: "arena/100B"}, Machine: results.Machine{OthersCores: 0.1, StealCores: 0.05}}
	busy := Result{Scenario: Scenario{Name: "heap/100B"}, Machine: results.Machine{OthersCores: 0.9, StealCores: 0.1}}
	if n := view.BusyNote([]Result{quiet}); n != "" {
		t.Errorf("quiet run noted busy: %q", n)
	}
	n := view.BusyNote([]Result{quiet, busy})
	if !strings.Contains(n, "heap/100B others 0.90 + steal 0.10") || strings.Contains(n, "arena/100B") {
		t.Errorf("busy note = %q, want heap/100B only, with its figures", n)
	}
}

// TestReportsNameTheMachine: both reports carry GOMAXPROCS, the load
// averages and the busy-machine warning.
func TestReportsNameTheMachine(t *testing.T) {
	sum := &Summary{CPUs: 2, GOMAXPROCS: 2, CPUModel: "Test CPU", LoadStart: [3]float64{0.31, 0.2, 0.1}, LoadEnd: [3]float64{1.5, 0.9, 0.4},
		Results: []Result{{Scenario: Scenario{Name: "heap/100B", Kind: "heap", Value: 100, Group: SetMatrix}, Machine: results.Machine{OthersCores: 0.9}}}}
	var tb, mb strings.Builder
	if err := report.WriteTable(&tb, sum); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteMarkdown(&mb, sum, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"table": tb.String(), "markdown": mb.String()} {
		for _, want := range []string{"GOMAXPROCS 2; load average 0.31 0.20 0.10 at start, 1.50 0.90 0.40 at the end", "Busy machine", "heap/100B others 0.90"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", name, want, out)
			}
		}
	}
}

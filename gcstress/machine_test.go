package gcstress

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/internal/view"
)

func TestParseCPUStat(t *testing.T) {
	st := parseCPUStat("cpu  1000 50 300 90000 20 10 5 40 0 0")
	if !st.ok {
		t.Fatal("valid line not parsed")
	}
	if want := (1000.0 + 50 + 300 + 10 + 5) / userHZ; st.busy != want {
		t.Errorf("busy = %v s, want %v", st.busy, want)
	}
	if st.steal != 0.4 {
		t.Errorf("steal = %v s, want 0.4", st.steal)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8", "cpu 1 2 3", "cpu 1 2 x 4 5 6 7 8"} {
		if parseCPUStat(bad).ok {
			t.Errorf("%q parsed as a cpu line", bad)
		}
	}
}

func TestBusyNote(t *testing.T) {
	quiet := Result{Scenario: Scenario{Name: "arena/100B"}, Machine: Machine{OthersCores: 0.1, StealCores: 0.05}}
	busy := Result{Scenario: Scenario{Name: "heap/100B"}, Machine: Machine{OthersCores: 0.9, StealCores: 0.1}}
	if n := view.BusyNote([]Result{quiet}); n != "" {
		t.Errorf("quiet run noted busy: %q", n)
	}
	n := view.BusyNote([]Result{quiet, busy})
	if !strings.Contains(n, "heap/100B others 0.90 + steal 0.10") || strings.Contains(n, "arena/100B") {
		t.Errorf("busy note = %q, want heap/100B only, with its figures", n)
	}
}

// TestMachineMeterSeesOtherProcesses: a busy loop in another process (not
// charged as the scenario's child) shows up as others. Only a lower bound is
// checked: other tests may run beside this one.
func TestMachineMeterSeesOtherProcesses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/stat")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	m := startMachineMeter()
	hog := exec.Command(sh, "-c", `end=$(( $(date +%s) + 2 )); while [ "$(date +%s)" -lt "$end" ]; do :; done`)
	if err := hog.Run(); err != nil {
		t.Fatal(err)
	}
	got := m.stop(0)
	if got.OthersCores < 0.2 {
		t.Errorf("a busy process for the whole interval: others %.2f cores, want at least 0.2", got.OthersCores)
	}
}

// TestReportsNameTheMachine: both reports carry GOMAXPROCS, the load
// averages and the busy-machine warning.
func TestReportsNameTheMachine(t *testing.T) {
	sum := &Summary{CPUs: 2, GOMAXPROCS: 2, CPUModel: "Test CPU", LoadStart: [3]float64{0.31, 0.2, 0.1}, LoadEnd: [3]float64{1.5, 0.9, 0.4},
		Results: []Result{{Scenario: Scenario{Name: "heap/100B", Kind: "heap", Value: 100, Group: SetMatrix}, Machine: Machine{OthersCores: 0.9}}}}
	var tb, mb strings.Builder
	if err := WriteTable(&tb, sum); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&mb, sum, nil); err != nil {
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

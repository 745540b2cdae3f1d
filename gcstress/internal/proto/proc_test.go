package proto

import (
	"os/exec"
	"runtime"
	"testing"
)

func TestParseStatm(t *testing.T) {
	if got := parseStatm([]byte("12345 678 90 1 0 2 0\n")); got != 678*pageSize {
		t.Fatalf("parseStatm = %d", got)
	}
	if parseStatm([]byte("garbage")) != 0 || ReadRSS() == 0 {
		t.Fatal("statm")
	}
	if n := testing.AllocsPerRun(10, func() { ReadRSS() }); n != 0 {
		t.Fatalf("readRSS allocates %v times", n)
	}
}

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
	m := StartMeter()
	hog := exec.Command(sh, "-c", `end=$(( $(date +%s) + 2 )); while [ "$(date +%s)" -lt "$end" ]; do :; done`)
	if err := hog.Run(); err != nil {
		t.Fatal(err)
	}
	got := m.Stop(0)
	if got.OthersCores < 0.2 {
		t.Errorf("a busy process for the whole interval: others %.2f cores, want at least 0.2", got.OthersCores)
	}
}

package history

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// envFile is benchFile with an `env:` line (benchgate run -base-env,
// -head-env) when env is not "".
func envFile(env, commit string, ns ...float64) []byte {
	b := benchFile(commit, time.Time{}, ns...)
	if env == "" {
		return b
	}
	return append([]byte("env: "+env+"\n"), b...)
}

// The same benchmark recorded under two environments (Green Tea and the
// classic collector) is two series, each apart from the series recorded
// without an env: line, whose key is the one it always had; a machine
// given as a label keeps the environment too.
func TestEnvSeriesApart(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		const plain = "goos=linux; goarch=amd64; cpu=Test CPU @ 2.0GHz; gomaxprocs=2"
		record(t, s, envFile("", "aaa111", 100, 101), Labels{Mode: ModeGate})
		record(t, s, envFile("GOEXPERIMENT=nogreenteagc", "aaa111", 120, 121), Labels{Mode: ModeGate})
		record(t, s, envFile("GOEXPERIMENT=nogreenteagc", "bbb222", 122, 123), Labels{Mode: ModeGate})
		record(t, s, envFile("GOTOOLCHAIN=go1.27.3", "aaa111", 90, 91), Labels{Mode: ModeGate})
		machines := map[string]int{}
		for _, se := range load(t, s, Query{Mode: ModeGate}) {
			if se.Unit == "ns/op" {
				machines[se.Machine] = len(se.Points)
			}
		}
		want := map[string]int{plain: 1, plain + "; env=GOEXPERIMENT=nogreenteagc": 2, plain + "; env=GOTOOLCHAIN=go1.27.3": 1}
		if len(machines) != len(want) {
			t.Fatalf("ns/op series by machine: %v, want %v", machines, want)
		}
		for m, n := range want {
			if machines[m] != n {
				t.Errorf("series %q: %d points, want %d (all: %v)", m, machines[m], n, machines)
			}
		}
	})
	r := prep(t, envFile("GOEXPERIMENT=nogreenteagc", "c", 1), Labels{Machine: "ci-runner-7"})
	if r.Labels.Machine != "ci-runner-7; env=GOEXPERIMENT=nogreenteagc" {
		t.Errorf("machine label with an env: line: %q", r.Labels.Machine)
	}
	mixed := append(envFile("A=1", "c", 1), envFile("A=2", "", 2)...)
	if _, err := Prepare(mixed, "mixed.txt", Labels{}, PrepareOptions{}); !errors.Is(err, ErrMixedMachines) || !strings.Contains(err.Error(), "env has 2 values") {
		t.Errorf("two env: lines: %v, want ErrMixedMachines naming env", err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-exp", "1"}, {"-exp", "18500"}, {"-exp", "3553", "-out", t.TempDir(), "-latencies", "x"}} {
		if rc := run(args); rc != 2 {
			t.Errorf("run(%q) = %d, want 2", args, rc)
		}
	}
}

// TestSmallRuns runs both experiments at a tiny size and checks the
// formats of what they write.
func TestSmallRuns(t *testing.T) {
	dir := t.TempDir()
	if rc := run([]string{"-exp", "18500", "-out", dir + "/a", "-rows", "500", "-runs", "2"}); rc != 0 {
		t.Fatalf("18500: exit %d", rc)
	}
	want(t, filepath.Join(dir, "a/raw/pe-tcp-test2.txt"), "direct Latency (us) : mean=", "autoflush Latency (us)", "async Latency (us)")
	want(t, filepath.Join(dir, "a/tables.md"), "| path | Test1 | Test2 | mean |", "99th latency test result (µs), transport=inproc", "Direction (transport=tcp)")
	if rc := run([]string{"-exp", "3553", "-out", dir + "/b", "-rows", "2000", "-runs", "1", "-requests", "32,64", "-latencies", "0,1ms"}); rc != 0 {
		t.Fatalf("3553: exit %d", rc)
	}
	want(t, filepath.Join(dir, "b/ycsb-tcp-latency=1ms.txt"), "[OVERALL], Throughput(ops/sec), ", "[MULTIREAD], 99thPercentileLatency(us), ",
		"32 Threads", "Total Avg Throughput: ", "Total Avg Latency(us): ", "[MULTIREAD], Operations, 64")
	want(t, filepath.Join(dir, "b/tables.md"), "| tcp | 0 | 16 | 32 |", "| tcp | 1ms | 32 | 64 |")
}

func want(t *testing.T, name string, subs ...string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range subs {
		if !strings.Contains(string(b), s) {
			t.Errorf("%s: missing %q", name, s)
		}
	}
}

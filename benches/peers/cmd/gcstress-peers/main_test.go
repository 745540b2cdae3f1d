package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

// summary is the part of summary.json these tests read.
type summary struct {
	Results []struct {
		Scenario struct{ Name string }
		Verdict  struct{ Class string }
		End      *struct {
			Keys  int64
			Notes map[string]float64 `json:"engine_notes"`
		}
	}
}

// TestPeerEnginesUnderGcstress runs a quick matrix scenario for every peer
// engine through the real child processes of the built binary: each row is
// in summary.json, classified, with all its keys written; the ristretto
// budget given on the parent's command line reached the child (its notes
// echo it) with the hit ratio and accepted writes, and so did fastcache's,
// otter's and shardmap's budgets; Pebble's notes say which allocator its
// manual memory used.
func TestPeerEnginesUnderGcstress(t *testing.T) {
	exe := testkit.Build(t, ".", "gcstress-peers")
	out := filepath.Join(t.TempDir(), "out")
	const keys = 20_000
	cmd := exec.Command(exe, "-kinds", "pebble,pebble-wal,badger,ristretto,fastcache,otter,shardmap", "-values", "100", "-keys", "20K",
		"-scenario", "matrix", "-memstore", "1MB", "-window", "250ms", "-ristretto-budget", "1MB",
		"-otter-budget", "1MB", "-shardmap-budget", "1MB", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	notes := map[string]map[string]float64{}
	for _, r := range sum.Results {
		if r.End == nil || r.End.Keys != keys {
			t.Errorf("%s: end %+v, want %d keys", r.Scenario.Name, r.End, keys)
			continue
		}
		rows[r.Scenario.Name] = r.Verdict.Class
		notes[r.Scenario.Name] = r.End.Notes
	}
	for _, name := range []string{"pebble/100B", "pebble-wal/100B", "badger/100B", "ristretto/100B", "fastcache/100B", "otter/100B", "shardmap/100B"} {
		switch rows[name] {
		// 20K keys usually end inside the warm-up (inconclusive: the user's
		// -keys is written exactly); a slow engine may run long enough for a
		// verdict.
		case "healthy", "elevated", "degraded", "failed", "inconclusive":
		default:
			t.Errorf("%s: class %q (rows %v)", name, rows[name], rows)
		}
	}
	rn := notes["ristretto/100B"]
	if rn["budget_bytes"] != 1<<20 {
		t.Errorf("ristretto notes %v: budget_bytes is not the -ristretto-budget given (1MB)", rn)
	}
	if _, ok := rn["hit_ratio"]; !ok || rn["puts"] != keys || rn["keys_evicted"] == 0 {
		t.Errorf("ristretto notes %v: want hit_ratio, %d puts and evictions under a 1MB budget", rn, keys)
	}
	// The cache budgets reached the children: fastcache at its default
	// (128 MiB), otter and shardmap at the 1MB given, under which they
	// evicted.
	for name, budget := range map[string]float64{"fastcache/100B": 128 << 20, "otter/100B": 1 << 20, "shardmap/100B": 1 << 20} {
		n := notes[name]
		if n["budget_bytes"] != budget || n["puts"] != keys || n["entries"] <= 0 {
			t.Errorf("%s notes %v: want budget_bytes %.0f, %d puts, entries held", name, n, budget, keys)
		}
		if name != "fastcache/100B" && n["evictions"] == 0 {
			t.Errorf("%s notes %v: no evictions under a 1MB budget", name, n)
		}
	}
	if _, ok := notes["pebble/100B"]["manual_cgo"]; !ok {
		t.Errorf("pebble notes %v lack manual_cgo", notes["pebble/100B"])
	}
	if md, _ := os.ReadFile(filepath.Join(out, "report.md")); !strings.Contains(string(md), "hit_ratio") {
		t.Errorf("report.md does not show ristretto's hit ratio")
	}
}

// TestCachesServeMixes: fastcache, otter and shardmap run a read-mostly
// mix (-mix b) through the real child processes: each row's end record has
// reads that found the preloaded records, updates, and its reads tied to
// the collector by the trace.
func TestCachesServeMixes(t *testing.T) {
	exe := testkit.Build(t, ".", "gcstress-peers")
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(exe, "-mix", "b", "-kinds", "fastcache,otter,shardmap", "-values", "100", "-keys", "20K",
		"-preload", "5K", "-scenario", "matrix", "-window", "250ms", "-latency-every", "1", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Results []struct {
			Scenario struct{ Kind string }
			End      *struct {
				Ops map[string]struct {
					Count, Misses int64
				}
				Attribution *struct{ Source string } `json:"read_attribution"`
			}
		}
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range sum.Results {
		e := r.End
		if e == nil || e.Ops["read"].Count == 0 || e.Ops["update"].Count == 0 || e.Attribution == nil {
			t.Errorf("%s: end %+v: want reads, updates and an attribution", r.Scenario.Kind, e)
			continue
		}
		// 5K preloaded records fit every budget: most reads hit.
		if rd := e.Ops["read"]; rd.Misses*2 > rd.Count {
			t.Errorf("%s: %d of %d reads missed", r.Scenario.Kind, rd.Misses, rd.Count)
		}
		seen[r.Scenario.Kind] = true
	}
	if len(seen) != 3 {
		t.Errorf("kinds with a mix end record: %v, want fastcache, otter and shardmap", seen)
	}
}

// TestBadEngineOption: a bad or missing engine option value is a usage
// error (exit 2) naming the flag, before any scenario runs; gcstress's own
// flags still reach gcstress (a bad one is its usage error).
func TestBadEngineOption(t *testing.T) {
	exe := testkit.Build(t, ".", "gcstress-peers")
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"-ristretto-budget", "lots", "-kinds", "ristretto"}, "-ristretto-budget"},
		{[]string{"--ristretto-budget=1KB"}, "-ristretto-budget"},
		{[]string{"-pebble-memtables", "1"}, "-pebble-memtables"},
		{[]string{"-kinds", "badger", "-badger-memtables"}, "-badger-memtables"},
		{[]string{"-kinds", "otter", "-otter-budget", "100KB"}, "-otter-budget"},
		{[]string{"-values", "nope"}, "-values"},
	} {
		cmd := exec.Command(exe, tc.args...)
		cmd.Dir = t.TempDir()
		b, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(b), tc.flag) {
			t.Errorf("%v: exit %d, want 2 naming %s:\n%s", tc.args, code, tc.flag, b)
		}
		if entries, _ := os.ReadDir(cmd.Dir); len(entries) != 0 {
			t.Errorf("%v: wrote %v before refusing", tc.args, entries)
		}
	}
}

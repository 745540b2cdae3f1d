package offheapprobe

import (
	"encoding/json"
	"errors"
	"runtime"
	"testing"

	"github.com/writegc/writegc/arena"
)

// TestRunSmoke runs one tiny round (2000 keys of 10 KB: 20 MB per kind) and
// checks that every field of both records is filled (the kernel's on Linux).
func TestRunSmoke(t *testing.T) {
	var streamed int
	recs, err := Run(Config{Rounds: 1, Keys: 2000, Proc: 3, OnRecord: func(Record) error { streamed++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || streamed != 2 || recs[0].Kind != KindArena || recs[1].Kind != KindOffHeap {
		t.Fatalf("got %d records (%d streamed), want arena then offheap", len(recs), streamed)
	}
	for _, r := range recs {
		checkRecord(t, r)
	}
	if o := recs[1].Layout; runtime.GOOS == "linux" && o.Aligned2M != o.Chunks {
		t.Errorf("offheap: %d of %d chunks 2 MiB-aligned, want all", o.Aligned2M, o.Chunks)
	}
	if _, err := json.Marshal(recs); err != nil {
		t.Fatal(err)
	}
}

func checkRecord(t *testing.T, r Record) {
	t.Helper()
	if r.Proc != 3 || r.Keys != 2000 || r.ValueSize != DefaultValueSize || r.HugePages != "advise" || !r.Prefault || !r.GCBefore || r.FreedOS || r.HeapReleasedMB < 0 ||
		r.FillNs <= 0 || r.MBps <= 0 || r.CloseNs <= 0 || r.GoVersion == "" {
		t.Errorf("%s: identity or timing missing: %+v", r.Kind, r)
	}
	if l := r.Layout; l.Chunks < 10 || l.ChunkBytes < 20<<20 || len(l.FirstAddrs) != DefaultMaxAddrs || l.LowAddr == "" || l.HighAddr == "" {
		t.Errorf("%s: chunk layout %+v", r.Kind, l)
	}
	if runtime.GOOS != "linux" {
		return
	}
	if !r.KernelCounters || r.UserNs+r.SysNs <= 0 || r.MinFlt < 0 || r.MajFlt < 0 || r.VolCtxSw < 0 || r.InvolCtxSw < 0 || r.Kernel == "" {
		t.Errorf("%s: process counters missing: %+v", r.Kind, r)
	}
	if r.FreePagesStart <= 0 {
		t.Errorf("%s: free_pages_start %d", r.Kind, r.FreePagesStart)
	}
	if _, ok := r.Vmstat["nr_free_pages"]; !ok { // a gauge: its delta may be negative
		t.Errorf("%s: vmstat has no nr_free_pages", r.Kind)
	}
	for _, name := range []string{"pgfault", "pgmajfault"} {
		if v, ok := r.Vmstat[name]; !ok || v < 0 {
			t.Errorf("%s: vmstat %s = %d, %v", r.Kind, name, v, ok)
		}
	}
	if r.THP.Enabled != "" && (r.THP.Defrag == "" || r.THP.PMDSize == "") {
		t.Errorf("%s: THP settings %+v", r.Kind, r.THP)
	}
	if l := r.Layout; l.Mappings == 0 || l.RssKB < 20<<10 || l.AnonHugeKB < 0 {
		t.Errorf("%s: mappings of the chunks %+v, want them resident", r.Kind, l)
	}
}

// TestRunPolicies checks that the offheap policy reaches the pools: never
// advises nohugepage, advise hugepage (where THP exists).
func TestRunPolicies(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapping flags are Linux-only")
	}
	for _, pol := range []arena.HugePagePolicy{arena.HugePagesAdvise, arena.HugePagesNever} {
		recs, err := Run(Config{Rounds: 1, Keys: 300, HugePages: pol, NoPrefault: true, FreeOSMemory: true, NoGC: true})
		if err != nil {
			t.Fatal(err)
		}
		o := recs[1].Layout
		if recs[1].Prefault || recs[1].HugePages != pol.String() || !recs[0].FreedOS || recs[0].GCBefore {
			t.Errorf("%v: record says %q prefault=%v", pol, recs[1].HugePages, recs[1].Prefault)
		}
		if o.Chunks != o.Aligned2M || o.Mappings == 0 {
			t.Fatalf("%v: layout %+v", pol, o)
		}
		if pol == arena.HugePagesNever && o.NoHuge != o.Mappings {
			t.Errorf("never: %d of %d mappings advised nohugepage", o.NoHuge, o.Mappings)
		}
		if pol == arena.HugePagesAdvise && recs[1].THP.Enabled != "never" && recs[1].THP.Enabled != "" && o.Advised != o.Mappings {
			t.Errorf("advise: %d of %d mappings advised hugepage", o.Advised, o.Mappings)
		}
	}
}

func TestConfigLimits(t *testing.T) {
	for _, c := range []Config{
		{Rounds: -1}, {Rounds: MaxRounds + 1}, {Keys: -1}, {Keys: MaxKeys + 1}, {ValueSize: -1},
		{ValueSize: 17 << 20}, {Keys: 10_000_000, ValueSize: 10 << 10}, {HugePages: arena.HugePagePolicy(7)},
	} {
		if _, err := Run(c); !errors.Is(err, ErrConfig) {
			t.Errorf("Run(%+v) err = %v, want ErrConfig", c, err)
		}
	}
}

func TestOnRecordErrorStops(t *testing.T) {
	stop := errors.New("stop")
	recs, err := Run(Config{Rounds: 3, Keys: 10, ValueSize: 10, OnRecord: func(Record) error { return stop }})
	if !errors.Is(err, stop) || len(recs) != 1 {
		t.Errorf("got %d records, err %v; want 1 and the hook's error", len(recs), err)
	}
}

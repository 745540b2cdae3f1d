package explain

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// stacks builds a profile whose samples have the given stacks (leaf first)
// and values; fn names are interned.
func buildProfile(t *testing.T, sampleTypes []*profile.ValueType, period *profile.ValueType, stacks [][]string, values [][]int64) *profile.Profile {
	t.Helper()
	p := &profile.Profile{SampleType: sampleTypes, PeriodType: period, Period: 1, DurationNanos: 1e9}
	fns := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	for i, st := range stacks {
		var ls []*profile.Location
		for _, name := range st {
			l := locs[name]
			if l == nil {
				f := &profile.Function{ID: uint64(len(fns) + 1), Name: name}
				fns[name] = f
				p.Function = append(p.Function, f)
				l = &profile.Location{ID: uint64(len(locs) + 1), Address: uint64(0x1000 + len(locs)), Line: []profile.Line{{Function: f}}}
				locs[name] = l
				p.Location = append(p.Location, l)
			}
			ls = append(ls, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: ls, Value: values[i]})
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeProfile(t *testing.T, p *profile.Profile, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

var cpuTypes = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}

const app = "github.com/writegc/writegc/memtable."

// TestCPUClassification checks every class with stacks from both the
// classic and the Green Tea collector, and assist attribution.
func TestCPUClassification(t *testing.T) {
	stacks := [][]string{
		// Green Tea assist paid by heapList.Put via newobject.
		{"internal/runtime/gc/scan.ScanSpanPacked", "runtime.scanSpan", "runtime.gcDrainN", "runtime.gcAssistAlloc1", "runtime.systemstack", "runtime.gcAssistAlloc.func1", "runtime.gcAssistAlloc", "runtime.deductAssistCredit", "runtime.mallocgc", "runtime.newobject", app + "(*heapList).Put", "main.main"},
		// Classic assist paid by a writer through bytes (stdlib skipped).
		{"runtime.scanobject", "runtime.gcDrainN", "runtime.gcAssistAlloc1", "runtime.gcAssistAlloc", "runtime.mallocgc", "runtime.growslice", "bytes.(*Buffer).grow", "bytes.(*Buffer).Write", app + "(*writer).Flush"},
		// Background worker, Green Tea and classic.
		{"runtime.tryDeferToSpanScan", "runtime.scanObject", "runtime.gcDrain", "runtime.gcDrainMarkWorkerDedicated", "runtime.gcBgMarkWorker.func2", "runtime.systemstack", "runtime.gcBgMarkWorker"},
		{"runtime.greyobject", "runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"},
		// Worker without scanning (queue handling).
		{"runtime.(*gcWork).tryGet", "runtime.gcDrain", "runtime.gcBgMarkWorker"},
		// Sweep inside allocation is sweep, not alloc.
		{"runtime.(*sweepLocked).sweep", "runtime.sweepone", "runtime.deductSweepCredit", "runtime.(*mcentral).cacheSpan", "runtime.mallocgc", "runtime.newobject", app + "(*heapList).Put"},
		{"runtime.bgsweep"},
		// Write barrier.
		{"runtime.wbBufFlush1", "runtime.wbBufFlush", "runtime.gcWriteBarrier2", app + "(*heapList).Put"},
		// Mark termination and unwindable GC.
		{"runtime.gcMarkTermination", "runtime.gcMarkDone", "runtime.gcBgMarkWorker"},
		{"runtime._GC"},
		// Allocation.
		{"runtime.nextFreeFast", "runtime.mallocgcSmallScanNoHeader", "runtime.mallocgc", "runtime.newobject", app + "(*heapList).Put"},
		// The program's own work.
		{app + "(*heapList).findSplice", app + "(*heapList).Put"},
		{"runtime.memmove", app + "(*arena).alloc"},
	}
	vals := []int64{30, 10, 20, 10, 5, 4, 2, 3, 1, 1, 6, 5, 3} // sum 100
	values := make([][]int64, len(vals))
	for i, v := range vals {
		values[i] = []int64{v, v * 1e7}
	}
	p := buildProfile(t, cpuTypes, &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, stacks, values)
	a, err := Explain(writeProfile(t, p, "x.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	c := a.CPU
	if c == nil {
		t.Fatalf("no CPU section; files %+v", a.Files)
	}
	want := map[CPUClass]float64{
		ClassAssist: 0.40, ClassMarkWorker: 0.35, ClassGCOther: 0.02, ClassSweep: 0.06,
		ClassWriteBarrier: 0.03, ClassAlloc: 0.06, ClassOther: 0.08,
	}
	for k, w := range want {
		if got := c.Class(k); math.Abs(got-w) > 1e-9 {
			t.Errorf("class %s = %.3f, want %.3f", k, got, w)
		}
	}
	check := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %.4f, want %.4f", name, got, want)
		}
	}
	check("GC", c.GC, 0.86)
	check("MetricsComparable", c.MetricsComparable, 0.77)
	check("Marking", c.Marking, 0.75/0.86)
	check("Scanning", c.Scanning, 0.70/0.86) // 30+10+20+10
	check("Alloc", c.Alloc, 0.06)
	if len(c.AssistPayers) != 2 || c.AssistPayers[0].Func != "memtable.(*heapList).Put" || c.AssistPayers[1].Func != "memtable.(*writer).Flush" {
		t.Errorf("assist payers = %+v", c.AssistPayers)
	}
	check("top payer share", c.AssistPayers[0].Share, 0.75)

	// With the standard library kept, bytes pays the second assist.
	a, err = ExplainWith(Options{KeepStdlib: true}, writeProfile(t, p, "x.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.CPU.AssistPayers[1].Func; got != "bytes.(*Buffer).grow" {
		t.Errorf("KeepStdlib payer = %q, want bytes.(*Buffer).grow", got)
	}
	// With memtable declared a library, and nothing else outside it, the
	// first non-runtime frame pays.
	a, err = ExplainWith(Options{Library: []string{"github.com/writegc/writegc/memtable"}}, writeProfile(t, p, "x.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.CPU.AssistPayers[0].Func; got != "main.main" {
		t.Errorf("Library payer = %q, want main.main", got)
	}

	m := 0.79
	a.MetricsGCCPU = &m
	var b bytes.Buffer
	if err := a.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"86.0% of CPU in GC, 87% of it marking", "profile 77.0%, runtime/metrics 79.0%, 2.0 points apart (agree within 5 points)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, b.String())
		}
	}
}

func TestAllocSites(t *testing.T) {
	types := []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}, {Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"}}
	p := buildProfile(t, types, &profile.ValueType{Type: "space", Unit: "bytes"}, [][]string{
		{"runtime.newobject", app + "(*heapList).Put", "main.main"},
		{"runtime.makeslice", "bytes.growSlice", "bytes.(*Buffer).grow", app + "(*heapList).Put"},
		{"runtime.makeslice", app + "newChunk", app + "(*arena).alloc"},
	}, [][]int64{{96, 96 * 64, 10, 640}, {2, 2 * 4096, 0, 0}, {2, 2 << 21, 2, 2 << 21}})
	p.DefaultSampleType = "alloc_space"
	a, err := Explain(writeProfile(t, p, "whatever.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Files[0].Type != TypeAllocs || a.Allocs == nil || a.Heap != nil {
		t.Fatalf("detected %+v, allocs %v heap %v", a.Files, a.Allocs != nil, a.Heap != nil)
	}
	if s := a.Allocs.ByObjects[0]; s.Func != "memtable.(*heapList).Put" || s.Value != 98 || math.Abs(s.Share-0.98) > 1e-9 {
		t.Errorf("top by objects = %+v", s)
	}
	if s := a.Allocs.ByBytes[0]; s.Func != "memtable.newChunk" {
		t.Errorf("top by bytes = %+v", s)
	}
	if !strings.Contains(a.Headline(), "98.0% of allocated objects come from memtable.(*heapList).Put") {
		t.Errorf("headline = %q", a.Headline())
	}
	// Without a default sample type it is a heap profile: both sections.
	p.DefaultSampleType = ""
	a, err = Explain(writeProfile(t, p, "h.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Files[0].Type != TypeHeap || a.Allocs == nil || a.Heap == nil || a.Heap.Objects != 12 {
		t.Fatalf("heap: %+v allocs %v heap %+v", a.Files, a.Allocs != nil, a.Heap)
	}
}

func TestWaitClasses(t *testing.T) {
	types := []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "time", Unit: "nanoseconds"}}
	p := buildProfile(t, types, &profile.ValueType{Type: "wallclock", Unit: "nanoseconds"}, [][]string{
		{"runtime.gopark", "runtime.chanrecv", "runtime.chanrecv1", app + "(*flusher).loop"},
		{"runtime.gopark", "runtime.goparkunlock", "runtime.semacquire1", "sync.runtime_SemacquireMutex", "internal/sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock", app + "(*heapList).Put"},
		{"runtime.gopark", "runtime.gcParkAssist", "runtime.gcAssistAlloc", "runtime.mallocgc", app + "(*heapList).Put"},
		{app + "(*heapList).findSplice", app + "(*heapList).Put"},
		{"runtime.gopark", "runtime.netpollblock", "internal/poll.runtime_pollWait", "internal/poll.(*pollDesc).wait", "internal/poll.(*FD).Read", "net.(*conn).Read", "github.com/writegc/writegc/writepath.(*tcpTransport).recv"},
		{"runtime.gopark", "runtime.selectgo", app + "(*flusher).loop"},
		{"syscall.Syscall", "syscall.write", "os.(*File).Write", "github.com/writegc/writegc/writepath.(*wal).Append"},
	}, [][]int64{{1, 40}, {1, 20}, {1, 10}, {1, 10}, {1, 10}, {1, 5}, {1, 5}})
	a, err := Explain(writeProfile(t, p, "fg.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	w := a.Wall
	if w == nil {
		t.Fatalf("not detected as fgprof: %+v", a.Files)
	}
	got := map[WaitClass]int64{}
	for _, c := range w.Classes {
		got[c.Class] = int64(c.Time)
	}
	want := map[WaitClass]int64{WaitChan: 40, WaitMutex: 20, WaitGCAssist: 10, WaitRunning: 10, WaitNetwork: 10, WaitSelect: 5, WaitSyscall: 5}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d (all %v)", k, got[k], v, got)
		}
	}
	if w.OffCPU != 90 || w.Sites[0].Func != "memtable.(*flusher).loop" || w.Sites[1].Func != "memtable.(*heapList).Put" || w.Sites[1].OffCPU != 30 {
		t.Errorf("off %d, sites %+v", w.OffCPU, w.Sites)
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/writegc/writegc/memtable.(*heapList).Put":                      "memtable.(*heapList).Put",
		"github.com/google/btree.(*node[go.shape.struct { a/b.k []uint8 }]).split": "btree.(*node[...]).split",
		"bytes.(*Buffer).grow": "bytes.(*Buffer).grow",
		"main.main":            "main.main",
	} {
		if got := shortName(in); got != want {
			t.Errorf("shortName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"bytes.Index": true, "encoding/json.Marshal": true, "main.main": false, "github.com/x/y.F": false, "runtime.mallocgc": true} {
		if got := isStdlib(in); got != want {
			t.Errorf("isStdlib(%q) = %v", in, got)
		}
	}
}

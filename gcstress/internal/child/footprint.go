package child

import (
	"runtime"
	"runtime/metrics"

	"github.com/writegc/writegc/gcstress/results"
)

// The runtime/metrics a footprint reads.
const (
	mObjects = "/gc/heap/objects:objects"
	mLive    = "/gc/heap/live:bytes"
	mScan    = "/gc/scan/heap:bytes"
)

// heapAfterGC forces a collection and reads the heap a Footprint is made
// of: objects, live bytes and the scannable (pointer-bearing) heap. It
// stops the world for a full cycle, so the child calls it only outside the
// measured windows: before the engine is built and after the last window.
func heapAfterGC() results.HeapReading {
	runtime.GC()
	ms := []metrics.Sample{{Name: mObjects}, {Name: mLive}, {Name: mScan}}
	metrics.Read(ms)
	var r results.HeapReading
	for i, p := range []*uint64{&r.Objects, &r.Live, &r.Scan} {
		if ms[i].Value.Kind() == metrics.KindUint64 {
			*p = ms[i].Value.Uint64()
		}
	}
	return r
}

// footprintTries bounds the readings footprint takes until the engine's
// figures hold still across its forced GC.
const footprintTries = 3

// footprint is the engine's heap per entry now against base: the entries
// the engine says it holds, else the keys written. The engine's figures
// are read before and after the forced GC; when a flush moved them in
// between, the reading is taken again (at most footprintTries times), so
// that the heap and the entries it is divided by describe one state; the
// off-heap bytes per entry are that snapshot's. It returns the snapshot
// the footprint used: the end record's every engine figure comes from it.
func footprint(base results.HeapReading, eng interface{ Stats() EngineStats }, keys int64) (EngineStats, results.Footprint) {
	var st EngineStats
	var at results.HeapReading
	for range footprintTries {
		before := eng.Stats()
		at = heapAfterGC()
		if st = eng.Stats(); st == before {
			break
		}
	}
	if st.Entries > 0 {
		return st, results.NewFootprint(base, at, st.Entries, results.EntriesEngine).WithOffHeap(st.OffHeapBytes)
	}
	return st, results.NewFootprint(base, at, keys, results.EntriesKeys).WithOffHeap(st.OffHeapBytes)
}

// impossibleFootprint says whether fp holds fewer bytes per entry, Go
// heap and off-heap together, than one entry's key and value
// (results.Inflated, results.Footprint.Impossible): the entry count
// overstates what the engine holds. Every engine is judged alike.
func impossibleFootprint(fp results.Footprint, spec results.Scenario) bool {
	return results.Inflated(fp, spec.Value)
}

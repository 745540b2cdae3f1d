package gcstress

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

// footprint is the engine's heap per entry now against base: the entries
// the engine says it holds, else the keys written.
func footprint(base results.HeapReading, st EngineStats, keys int64) results.Footprint {
	at := heapAfterGC()
	if st.Entries > 0 {
		return results.NewFootprint(base, at, st.Entries, results.EntriesEngine)
	}
	return results.NewFootprint(base, at, keys, results.EntriesKeys)
}

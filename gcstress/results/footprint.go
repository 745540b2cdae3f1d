package results

// EntriesFrom says where a Footprint's entry count came from
// (Footprint.EntriesFrom). The values are JSON strings and do not change.
type EntriesFrom string

// Entry count sources.
const (
	// EntriesEngine: the engine reported the entries it holds
	// (EngineStats.Entries; writegc's kinds: the entries of the active and
	// unflushed memtables).
	EntriesEngine EntriesFrom = "engine"
	// EntriesKeys: the engine reports none; the keys written stand in (an
	// engine that dropped or flushed entries then reads cheaper per entry
	// than it is).
	EntriesKeys EntriesFrom = "keys"
)

// Footprint is what an engine holds on the Go heap per live entry, from two
// readings each taken right after runtime.GC(): a baseline before the
// engine is built and one at the end of the load (outside the measured
// windows), divided by the entries the engine holds at that moment.
// Objects are /gc/heap/objects:objects, bytes /gc/heap/live:bytes and the
// pointer-bearing bytes /gc/scan/heap:bytes (the scannable heap the last
// cycle saw). A negative difference (the harness freed more than the
// engine holds) reads 0. All zero when the child could not measure it (no
// entries). A plain value; its JSON keys sit flat in the end record.
type Footprint struct {
	ObjectsPerEntry float64 `json:"objects_per_entry,omitempty"`
	BytesPerEntry   float64 `json:"bytes_per_entry,omitempty"`
	ScanPerEntry    float64 `json:"scan_bytes_per_entry,omitempty"` // pointer-bearing heap bytes per entry
	// OffHeapPerEntry is what the engine holds outside the Go heap
	// (EngineStats.OffHeapBytes, from the same Stats call as Entries) per
	// entry: mmap'd chunks, cgo allocations; 0 when it reports none.
	OffHeapPerEntry float64     `json:"offheap_bytes_per_entry,omitempty"`
	Entries         int64       `json:"entries,omitempty"`
	EntriesFrom     EntriesFrom `json:"entries_from,omitempty"`
	// Impossible: fewer bytes per entry, Go heap and off-heap together
	// (Inflated), than one entry's key and value: the entry count
	// overstates what the engine holds (the reports flag it, naming it).
	// Records written before off-heap bytes counted flagged engines that
	// keep their data off the heap; the reports judge those again.
	Impossible bool `json:"footprint_impossible,omitempty"`
}

// WithOffHeap is fp with the engine's offHeap bytes per entry
// (unchanged without entries or off-heap bytes).
func (fp Footprint) WithOffHeap(offHeap int64) Footprint {
	if fp.Entries > 0 && offHeap > 0 {
		fp.OffHeapPerEntry = float64(offHeap) / float64(fp.Entries)
	}
	return fp
}

// Inflated says whether fp's entries hold fewer bytes each, on the Go heap
// (BytesPerEntry) and off it (OffHeapPerEntry) together, than one entry's
// key and value of value bytes: the entry count overstates what the engine
// holds. The one check of every engine, writegc's offheap kind included
// (it reports its mapped chunks as off-heap bytes); false without entries
// or without a heap or off-heap reading.
func Inflated(fp Footprint, value int64) bool {
	total := fp.BytesPerEntry + fp.OffHeapPerEntry
	if fp.Entries < 1 || total <= 0 {
		return false
	}
	return total < float64(int64(KeySize)+value)
}

// MinCostCycles is the fewest GC cycles the windows of a run's cost
// (Cost.SteadyCycles) must complete for its GC CPU figures (per Put, per
// GB, cycles per GB) to count: the runtime's CPU counters advance only
// when a cycle ends, so with fewer a figure is whatever one cycle left.
// The frontier's rule for its points.
const MinCostCycles = FrontierMinCycles

// HeapReading is one reading of the heap a Footprint is made from.
type HeapReading struct {
	Objects, Live, Scan uint64
}

// NewFootprint is the footprint between base and at for entries entries
// (zero Footprint when entries < 1).
func NewFootprint(base, at HeapReading, entries int64, from EntriesFrom) Footprint {
	if entries < 1 {
		return Footprint{}
	}
	per := func(a, b uint64) float64 {
		if b <= a {
			return 0
		}
		return float64(b-a) / float64(entries)
	}
	return Footprint{ObjectsPerEntry: per(base.Objects, at.Objects), BytesPerEntry: per(base.Live, at.Live),
		ScanPerEntry: per(base.Scan, at.Scan), Entries: entries, EntriesFrom: from}
}

// Cost is what the collector and the process cost per Put and per GB
// (10^9 B of key+value) written, over the windows that ended after the
// warm-up (the whole run when none did). CPU is the process's user+system
// time (getrusage, every thread). GC CPU starts as the table's GC share's
// numerator (gcmetrics: GC total minus idle-priority marking, which runs
// only on otherwise idle CPUs), but the runtime's /cpu/classes counters
// are P-time, wall time a P spent in a class, which keeps running while the
// OS has taken the thread off its CPU for another process; on a busy
// machine they overstate CPU (a GC figure above the process's whole CPU
// time was seen beside one busy loop). So GC and assist CPU are scaled by
// OnCPU: the process's CPU time over the runtime's non-idle P-time, at
// most 1, i.e. the share of its P-time the process really ran, taken as
// the same for the collector as for the rest. Quiet, OnCPU is about 1 and
// the figures are the runtime's; busy, all three stay CPU time. A plain
// value; its JSON keys sit flat in the end record.
type Cost struct {
	GCCPUNsPerPut   float64 `json:"gc_cpu_ns_per_put,omitempty"`
	AssistNsPerPut  float64 `json:"assist_ns_per_put,omitempty"`
	CPUSPerGB       float64 `json:"cpu_s_per_gb,omitempty"`
	GCCPUSPerGB     float64 `json:"gc_cpu_s_per_gb,omitempty"`
	AssistCPUSPerGB float64 `json:"assist_cpu_s_per_gb,omitempty"`
	OnCPU           float64 `json:"on_cpu,omitempty"` // the scale GC and assist took (0: none known, unscaled)
	// AllocBytesPerPut and AllocObjectsPerPut are what the process
	// allocated per Put over the same windows (/gc/heap/allocs:bytes and
	// :objects; the harness's own share is small): the work the collector
	// has to reclaim, beside what stays live (Footprint).
	AllocBytesPerPut   float64 `json:"alloc_bytes_per_put,omitempty"`
	AllocObjectsPerPut float64 `json:"alloc_objects_per_put,omitempty"`
	// CyclesPerGB is the GC cycles completed per GB written over the same
	// windows: set by how fast the heap grows to its goal, not by CPU time,
	// so the machine's other load should not move it the way it moves GC
	// CPU-s per GB (see BusyCostNote); a short run holds too few cycles.
	CyclesPerGB float64 `json:"gc_cycles_per_gb,omitempty"`
	// SteadyCycles is the GC cycles those windows completed (0 in records
	// written before it was; the end record's whole-run cycles bound it
	// there): fewer than MinCostCycles and the GC CPU figures do not count.
	SteadyCycles uint64 `json:"steady_gc_cycles,omitempty"`
}

// BusyCostNote says which cost figures to read from a run on a busy
// machine, and why.
const BusyCostNote = "Beside other load, GC CPU-s per GB does not hold (the runtime counts a P's time while the OS has taken its thread away, " +
	"and scaling it by the process's CPU share assumes the collector lost CPU as the writers did; " +
	"its dedicated workers do not): read CPU-s per GB (getrusage), which the neighbours do not move, and GC cycles per GB " +
	"(set by how fast the heap grows, not by CPU time; a short run holds too few cycles for it)."

// WithCycles is c with the GC cycles per GB of cycles cycles over nbytes
// bytes written (unchanged when nbytes is 0).
func (c Cost) WithCycles(cycles uint64, nbytes int64) Cost {
	if nbytes > 0 {
		c.CyclesPerGB, c.SteadyCycles = float64(cycles)/(float64(nbytes)/1e9), cycles
	}
	return c
}

// WithAllocs is c with the allocation figures of puts Puts that
// allocated nbytes bytes in objs objects (unchanged when puts is 0).
func (c Cost) WithAllocs(puts int64, nbytes, objs uint64) Cost {
	if puts > 0 {
		c.AllocBytesPerPut, c.AllocObjectsPerPut = float64(nbytes)/float64(puts), float64(objs)/float64(puts)
	}
	return c
}

// NewCost is the cost of puts Puts writing nbytes bytes that took gc and
// assist GC P-seconds of pTime non-idle P-seconds (the runtime's counters)
// and proc process CPU-seconds (zero fields where puts or nbytes is 0; GC
// and assist unscaled when pTime or proc is 0).
func NewCost(puts, nbytes int64, gc, assist, proc, pTime float64) Cost {
	var c Cost
	if pTime > 0 && proc > 0 {
		c.OnCPU = min(1, proc/pTime)
		gc, assist = gc*c.OnCPU, assist*c.OnCPU
	}
	if puts > 0 {
		c.GCCPUNsPerPut, c.AssistNsPerPut = gc*1e9/float64(puts), assist*1e9/float64(puts)
	}
	if nbytes > 0 {
		gb := float64(nbytes) / 1e9
		c.CPUSPerGB, c.GCCPUSPerGB, c.AssistCPUSPerGB = proc/gb, gc/gb, assist/gb
	}
	return c
}

// EntryFootprint is the end record's Footprint with its off-heap bytes
// per entry, which a record written before they were in the footprint
// gets from its offheap_bytes (the same Stats call as its entries).
func (s *Sample) EntryFootprint() Footprint {
	fp := s.Footprint
	if fp.OffHeapPerEntry == 0 {
		fp = fp.WithOffHeap(s.OffHeapBytes)
	}
	return fp
}

// CostCycles is the GC cycles the end record's cost rests on: its
// SteadyCycles, or in a record written before those were (one whose cost
// shows a cycle, GC cycles or GC CPU per GB, though its SteadyCycles is
// 0) the whole run's cycles, which bound them.
func (s *Sample) CostCycles() uint64 {
	switch {
	case s.SteadyCycles > 0:
		return s.SteadyCycles
	case s.CyclesPerGB > 0 || s.GCCPUSPerGB > 0:
		return s.Cycles
	}
	return 0
}

// CostResolved says whether the end record's GC CPU figures count: its
// cost rests on at least MinCostCycles GC cycles.
func (s *Sample) CostResolved() bool {
	return s.Cost != (Cost{}) && s.CostCycles() >= MinCostCycles
}

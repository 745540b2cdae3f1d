package gcmetrics

import "math"

// CPU is the collector's CPU accounting over an interval, in cpu-seconds,
// and the one place the CPU shares are defined (see the package doc). It
// is a plain value; its JSON form is what explain's metrics.json stores.
type CPU struct {
	// CPUUsed is the CPU the process used: total minus idle. It includes
	// idle-priority mark work.
	CPUUsed float64 `json:"cpu_used"`
	// GCCPU is GC work that competed with the program: GC total minus
	// idle-priority mark work.
	GCCPU float64 `json:"gc_cpu"`
	// Assist is mark work charged to allocating goroutines.
	Assist float64 `json:"gc_assist"`
	// Dedicated is the work of dedicated mark workers.
	Dedicated float64 `json:"gc_dedicated"`
	// IdleMark is idle-priority mark work, left out of GCCPU.
	IdleMark float64 `json:"gc_idle_mark"`
	// Cycles is the number of GC cycles that completed in the interval.
	Cycles uint64 `json:"gc_cycles"`
}

// CPUBetween returns the CPU accounting from a to b (b the later reading).
func CPUBetween(a, b Snapshot) CPU {
	return CPU{
		CPUUsed:   (b.CPUTotal - b.CPUIdle) - (a.CPUTotal - a.CPUIdle),
		GCCPU:     (b.GCTotal - b.GCIdle) - (a.GCTotal - a.GCIdle),
		Assist:    b.GCAssist - a.GCAssist,
		Dedicated: b.GCDedic - a.GCDedic,
		IdleMark:  b.GCIdle - a.GCIdle,
		Cycles:    b.Cycles - a.Cycles,
	}
}

// GCCPUPercent is GC CPU as a percentage of the CPU the process used; 0
// when it used none, or when no GC cycle ended in the interval.
func (c CPU) GCCPUPercent() float64 { return pct(c.GCCPU, c.CPUUsed) }

// AssistPercent is mark-assist CPU as a percentage of the CPU the process
// used; 0 when it used none.
func (c CPU) AssistPercent() float64 { return pct(c.Assist, c.CPUUsed) }

// Counted reports whether the interval has CPU accounting to share out,
// that is whether the counters recorded any CPU used in it; they advance
// only when a GC cycle ends, so an interval without one has none. The
// shares of an uncounted interval are 0 and mean "unknown", not "free".
func (c CPU) Counted() bool { return c.CPUUsed > 0 }

// Add returns the accounting of two adjacent intervals taken together, so
// the shares of a longer span are ratios of sums, never means of shares.
func (c CPU) Add(o CPU) CPU {
	return CPU{
		CPUUsed:   c.CPUUsed + o.CPUUsed,
		GCCPU:     c.GCCPU + o.GCCPU,
		Assist:    c.Assist + o.Assist,
		Dedicated: c.Dedicated + o.Dedicated,
		IdleMark:  c.IdleMark + o.IdleMark,
		Cycles:    c.Cycles + o.Cycles,
	}
}

func pct(x, total float64) float64 {
	if total <= 0 {
		return 0
	}
	return 100 * x / total
}

// Delta is what happened between two snapshots: the CPU accounting (its
// fields and methods promoted), the pauses and the allocations. It is a
// plain value; Pauses may share its Buckets with the later Snapshot.
type Delta struct {
	CPU
	Pauses    Histogram // pauses that happened in the interval
	AllocB    uint64    // bytes allocated
	AllocObjs uint64    // objects allocated
}

// Sub returns the delta from a to b (b later).
func Sub(a, b Snapshot) Delta {
	var d Delta
	SubInto(a, b, &d)
	return d
}

// SubInto is Sub into dst, overwriting every field: the pause counts go
// into dst.Pauses.Counts, grown only when too short, so a sampler that
// reuses one Delta allocates nothing once it has held a difference. When
// a and b have histograms of different shapes (a is the zero Snapshot),
// the pauses are b's, copied.
func SubInto(a, b Snapshot, dst *Delta) {
	counts := dst.Pauses.Counts[:0]
	*dst = Delta{
		CPU:       CPUBetween(a, b),
		AllocB:    b.AllocBytes - a.AllocBytes,
		AllocObjs: b.AllocObjects - a.AllocObjects,
	}
	if len(a.Pauses.Counts) == len(b.Pauses.Counts) {
		for i := range b.Pauses.Counts {
			counts = append(counts, b.Pauses.Counts[i]-a.Pauses.Counts[i])
		}
	} else {
		counts = append(counts, b.Pauses.Counts...)
	}
	dst.Pauses = Histogram{Buckets: b.Pauses.Buckets, Counts: counts}
}

// PauseP99 is the interval's 99th-percentile stop-the-world pause, in
// seconds (a bucket upper bound; 0 without pauses).
func (d Delta) PauseP99() float64 { return d.Pauses.Quantile(0.99) }

// Histogram is a copy of a runtime/metrics Float64Histogram. Its outer
// bounds may be infinite, so it has no JSON form.
type Histogram struct {
	Counts  []uint64
	Buckets []float64 // len(Counts)+1 boundaries
}

// Count returns the number of observations in h.
func (h Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile returns the upper bound of the bucket holding quantile q (0..1),
// in the histogram's unit; 0 for an empty histogram. An infinite upper bound
// is replaced by the bucket's lower bound.
func (h Histogram) Quantile(q float64) float64 {
	n := h.Count()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	if rank == 0 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			return h.upper(i)
		}
	}
	return h.Buckets[len(h.Buckets)-1]
}

// Max returns the upper bound of the highest non-empty bucket (0 if empty).
func (h Histogram) Max() float64 {
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] > 0 {
			return h.upper(i)
		}
	}
	return 0
}

func (h Histogram) upper(i int) float64 {
	if hi := h.Buckets[i+1]; !math.IsInf(hi, 1) {
		return hi
	}
	return h.Buckets[i]
}

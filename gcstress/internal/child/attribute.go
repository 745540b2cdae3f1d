package child

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Attribution is the reads split by the collector's phases: latency
// histograms (nanoseconds, from intended start) of the reads whose
// interval overlapped a mark phase and of the others, and the slow reads
// (at or above the p99 of all of them, and not the median's value) that overlapped mark, a pause, an assist,
// or any of the three. A plain value.
type Attribution struct {
	InMark, Outside *hdrhistogram.Histogram
	Reads           int64
	SlowNs          int64 // the threshold: p99 of every read
	Slow            int64 // reads above SlowNs
	SlowInMark      int64
	SlowInPause     int64
	SlowInAssist    int64
	SlowInGC        int64 // in mark, a pause or an assist
	AllInMark       int64
	// Test compares the in-mark reads with the others (Compare); Tested
	// is false when a side had fewer than MinTestReads reads.
	Test   Test
	Tested bool
}

// Pct is n as a percentage of d (0 when d is 0).
func Pct(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// Attribute classifies every op against p, recording latencies into
// histograms built by newHist, and tests the in-mark latencies against
// the others (Compare). Its slow threshold is the p99 of all ops'
// latencies (End-Start).
func Attribute(p *Phases, ops []Op, newHist func() *hdrhistogram.Histogram) Attribution {
	a := Attribution{InMark: newHist(), Outside: newHist(), Reads: int64(len(ops))}
	all := newHist()
	for _, op := range ops {
		_ = all.RecordValue(max(op.End-op.Start, 1))
	}
	a.SlowNs = all.ValueAtQuantile(99)
	p50 := all.ValueAtQuantile(50)
	var inLat, outLat []float64
	for _, op := range ops {
		lat := max(op.End-op.Start, 1)
		o := p.Classify(op)
		if o&InMark != 0 {
			a.AllInMark++
			_ = a.InMark.RecordValue(lat)
			inLat = append(inLat, float64(lat))
		} else {
			_ = a.Outside.RecordValue(lat)
			outLat = append(outLat, float64(lat))
		}
		// At or above the p99, unless that is the bulk's own value (a
		// run whose reads all take one bucket's time has no slow ones).
		if (lat >= a.SlowNs || all.ValuesAreEquivalent(lat, a.SlowNs)) && !all.ValuesAreEquivalent(lat, p50) {
			a.Slow++
			a.SlowInMark += b2i(o&InMark != 0)
			a.SlowInPause += b2i(o&InPause != 0)
			a.SlowInAssist += b2i(o&InAssist != 0)
			a.SlowInGC += b2i(o != 0)
		}
	}
	a.Test, a.Tested = Compare(inLat, outLat)
	return a
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

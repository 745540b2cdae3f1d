package gcmetrics

import (
	"runtime"
	"testing"
)

type node struct {
	next *node
	_    [80]byte
}

type blob [64 << 10]byte

var (
	keepNodes []*node
	keepBlobs []*blob
)

// A heap of small pointerful objects scans about what it holds and shows
// them in the 128 B band; large pointer-free objects add live bytes the
// collector does not scan.
func TestReadShape(t *testing.T) {
	keepNodes = make([]*node, 100_000)
	var prev *node
	for i := range keepNodes {
		keepNodes[i] = &node{next: prev}
		prev = keepNodes[i]
	}
	runtime.GC()
	small := ReadShape()
	if small.ScanPerLive() < 0.3 {
		t.Errorf("pointerful heap: scan per live %.2f, want near 1 (%+v)", small.ScanPerLive(), small)
	}
	if len(small.Mix) != len(SizeBands) || small.Mix[1].Objects < 100_000 {
		t.Fatalf("mix %+v: want at least 100000 objects up to 128 B", small.Mix)
	}
	keepBlobs = make([]*blob, 400)
	for i := range keepBlobs {
		keepBlobs[i] = new(blob)
	}
	runtime.GC()
	big := ReadShape()
	if big.ScanPerLive() >= small.ScanPerLive()/2 {
		t.Errorf("with 25 MiB of noscan blobs: scan per live %.2f, want well under %.2f", big.ScanPerLive(), small.ScanPerLive())
	}
	if last := big.Mix[len(big.Mix)-1]; last.Objects < 400 || last.Bytes < 400*(64<<10) {
		t.Errorf("large band %+v: want the 400 blobs", last)
	}
	if big.MeanObject() <= small.MeanObject() {
		t.Errorf("mean object %.0f B, want above %.0f", big.MeanObject(), small.MeanObject())
	}
	runtime.KeepAlive(keepNodes)
	keepNodes, keepBlobs = nil, nil
}

func TestMarkWallPerCycle(t *testing.T) {
	a := Snapshot{GCTotal: 1, Cycles: 10}
	b := Snapshot{GCTotal: 3, GCIdle: 0.5, GCAssist: 0.5, GCPause: 0, Cycles: 12}
	// 1 cpu-s of background marking over 2 cycles at 0.25*4 = 1 worker.
	if got := MarkWallPerCycle(a, b, 4); got != 0.5 {
		t.Errorf("MarkWallPerCycle = %v, want 0.5", got)
	}
	if got := MarkWallPerCycle(a, a, 4); got != 0 {
		t.Errorf("no cycle: %v, want 0", got)
	}
}

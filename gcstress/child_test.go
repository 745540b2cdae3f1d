package gcstress

import (
	"errors"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestStopCauseFirstWins: the first reason is kept; a Put error is kept
// even when another reason came first.
func TestStopCauseFirstWins(t *testing.T) {
	var c stopCause
	c.set(results.StopDuration)
	c.fail(errors.New("boom"))
	c.set(results.StopKeys)
	if r, err := c.get(); r != results.StopDuration || err == nil || err.Error() != "boom" {
		t.Fatalf("got %q %v", r, err)
	}
	var d stopCause
	d.fail(errors.New("x"))
	d.fail(errors.New("y"))
	if r, err := d.get(); r != results.StopError || err.Error() != "x" {
		t.Fatalf("got %q %v", r, err)
	}
}

// win is a synthetic window line (as results' classifier tests build them).
func win(t float64, cycles uint64, cpu, gc, assist, mbps float64) Sample {
	return Sample{Type: results.SampleWindow, T: t, Dur: 1, WinCycles: cycles, CPUUsed: cpu, GCCPU: gc, Assist: assist, MBps: mbps,
		HeapGoal: 100 << 20, HeapObjects: 50 << 20, HeapLive: 40 << 20}
}

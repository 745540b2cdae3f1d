package gcstress

import "github.com/writegc/writegc/gcstress/results"

// win is a synthetic window line (as results' classifier tests build them).
func win(t float64, cycles uint64, cpu, gc, assist, mbps float64) Sample {
	return Sample{Type: results.SampleWindow, T: t, Dur: 1, WinCycles: cycles, CPUUsed: cpu, GCCPU: gc, Assist: assist, MBps: mbps,
		HeapGoal: 100 << 20, HeapObjects: 50 << 20, HeapLive: 40 << 20}
}

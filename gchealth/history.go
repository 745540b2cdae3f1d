package gchealth

import "time"

// point is one window as the page charts it (about 40 bytes).
type point struct {
	t                   int64 // unix milliseconds at the window's end
	rank                int8
	gc, assist          float32 // %
	heapLimit, heapGoal float32 // %
	pauseP99us          float32
}

// history is a ring of the last len(buf) windows; the Monitor's mutex
// guards it. Adding allocates nothing.
type history struct {
	buf  []point
	next int
	n    int
}

func newHistory(n int) history { return history{buf: make([]point, n)} }

func (h *history) add(at time.Time, v *verdict) {
	f := &v.fig
	h.buf[h.next] = point{t: at.UnixMilli(), rank: int8(v.state.Rank()),
		gc: float32(100 * f.GCCPURatio), assist: float32(100 * f.AssistRatio),
		heapLimit: float32(100 * f.HeapToLimitRatio), heapGoal: float32(100 * f.HeapToGoalRatio),
		pauseP99us: float32(f.PauseP99Seconds * 1e6)}
	h.next = (h.next + 1) % len(h.buf)
	h.n = min(h.n+1, len(h.buf))
}

// points returns the windows held, oldest first (a copy).
func (h *history) points() []point {
	out := make([]point, 0, h.n)
	start := (h.next - h.n + len(h.buf)) % len(h.buf)
	for i := range h.n {
		out = append(out, h.buf[(start+i)%len(h.buf)])
	}
	return out
}

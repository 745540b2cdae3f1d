package child

import (
	"slices"
	"sort"
	"time"
)

// MMUPoint is the minimum mutator utilization for windows of one length:
// the least share of the CPU the program's own goroutines had in any
// window of that length, a fraction in [0, 1].
type MMUPoint struct {
	Window time.Duration
	Util   float64
}

// WorstWindow is one of the windows with the least mutator utilization:
// its start on the child's clock (as Span), its length and its
// utilization.
type WorstWindow struct {
	Start  time.Duration
	Window time.Duration
	Util   float64
}

// DefaultMMUWindows are the windows an MMU curve is drawn at: 100 µs to
// 1 s in 1-2-5 steps, so 1, 10 and 100 ms are among them.
var DefaultMMUWindows = []time.Duration{
	100 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second,
}

// maxWorst bounds WorstWindows' n: the search keeps every chosen window
// and compares each candidate with all of them.
const maxWorst = 100

// MMU is the minimum mutator utilization at each window under flags, nil
// when the trace had no utilization data (a Phases not from Parse, a
// trace without GOMAXPROCS, or one past the log's limits). A window
// longer than the trace gives the whole trace's mean; one of 0 or less
// gives 0. Safe for concurrent use.
func (p *Phases) MMU(flags UtilFlags, windows []time.Duration) []MMUPoint {
	cs := p.curves(flags)
	if cs == nil {
		return nil
	}
	out := make([]MMUPoint, 0, len(windows))
	for _, w := range windows {
		m := 1.0
		if w <= 0 {
			m = 0
		}
		for i := 0; i < len(cs) && w > 0 && m > 0; i++ {
			cs[i].each(w, func(_ int64, _ time.Duration, mu float64) bool {
				m = min(m, mu)
				return m > 0
			})
		}
		out = append(out, MMUPoint{Window: w, Util: m})
	}
	return out
}

// WorstWindows is up to n disjoint windows of the given length with the
// least mutator utilization under flags, worst first; nil without
// utilization data. A window longer than the trace is the whole trace
// (Window says the length used). Safe for concurrent use.
func (p *Phases) WorstWindows(flags UtilFlags, window time.Duration, n int) []WorstWindow {
	cs := p.curves(flags)
	if cs == nil || window <= 0 || n <= 0 {
		return nil
	}
	n = min(n, maxWorst)
	var worst []WorstWindow // Start in trace time until the end
	for i := range cs {
		cs[i].each(window, func(x int64, w time.Duration, mu float64) bool {
			worst = keepWorst(worst, WorstWindow{Start: time.Duration(x), Window: w, Util: mu}, n)
			return true
		})
	}
	slices.SortFunc(worst, func(a, b WorstWindow) int {
		if a.Util != b.Util {
			if a.Util < b.Util {
				return -1
			}
			return 1
		}
		return cmpInt(int64(a.Start), int64(b.Start))
	})
	for i := range worst {
		worst[i].Start = time.Duration(p.util.clock(int64(worst[i].Start)))
	}
	return worst
}

// keepWorst adds c to the n worst disjoint windows unless a window it
// overlaps is as bad; the ones it overlaps and beats go.
func keepWorst(worst []WorstWindow, c WorstWindow, n int) []WorstWindow {
	if len(worst) == n && c.Util >= worst[worstMax(worst)].Util {
		return worst
	}
	for _, o := range worst {
		if overlapsWindow(o, c) && o.Util <= c.Util {
			return worst
		}
	}
	worst = slices.DeleteFunc(worst, func(o WorstWindow) bool { return overlapsWindow(o, c) })
	worst = append(worst, c)
	if len(worst) > n {
		worst = slices.Delete(worst, worstMax(worst), worstMax(worst)+1)
	}
	return worst
}

func overlapsWindow(a, b WorstWindow) bool {
	return a.Start < b.Start+b.Window && b.Start < a.Start+a.Window
}

// worstMax is the index of the least bad window.
func worstMax(worst []WorstWindow) int {
	j := 0
	for i := range worst {
		if worst[i].Util > worst[j].Util {
			j = i
		}
	}
	return j
}

// curve is one utilization series with its running integral: sums[i] is
// the utilization's integral (in ns) from the first point to point i.
type curve struct {
	pts  []point
	sums []float64
}

// curves is flags' utilization as curves, leaving out series that span
// no time; nil without data.
func (p *Phases) curves(flags UtilFlags) []curve {
	if p == nil || p.util == nil {
		return nil
	}
	var cs []curve
	for _, s := range p.util.utilization(flags) {
		if len(s) < 2 || s[len(s)-1].t <= s[0].t {
			continue
		}
		cs = append(cs, newCurve(s))
	}
	return cs
}

func newCurve(s []point) curve {
	c := curve{pts: s, sums: make([]float64, len(s))}
	for i := 1; i < len(s); i++ {
		c.sums[i] = c.sums[i-1] + s[i-1].u*float64(s[i].t-s[i-1].t)
	}
	return c
}

// integrator walks a curve's integral at non-decreasing times.
type integrator struct {
	c   *curve
	pos int // the last point at or before the time asked
}

func (in *integrator) at(x int64) float64 {
	p := in.c.pts
	if in.pos+8 < len(p) && p[in.pos+8].t <= x {
		// Far ahead: search instead of walking.
		in.pos += sort.Search(len(p)-in.pos, func(i int) bool { return p[in.pos+i].t > x }) - 1
	}
	for in.pos+1 < len(p) && p[in.pos+1].t <= x {
		in.pos++
	}
	return in.c.sums[in.pos] + p[in.pos].u*float64(x-p[in.pos].t)
}

// each calls f with the mean utilization of every window of length w
// (at most the curve's span) whose edge meets a change of utilization,
// in order of start, until f returns false. The mean of a window is
// linear in its start between such windows, so the least is among them.
func (c *curve) each(w time.Duration, f func(start int64, w time.Duration, mu float64) bool) {
	p := c.pts
	t0, t1 := p[0].t, p[len(p)-1].t
	w = min(w, time.Duration(t1-t0))
	last := t1 - int64(w)
	left, right := integrator{c: c}, integrator{c: c}
	i, j := 0, 0 // next change at the left edge; next at the right edge
	for x := t0; ; {
		mu := (right.at(x+int64(w)) - left.at(x)) / float64(w)
		if !f(x, w, min(max(mu, 0), 1)) || x >= last {
			return
		}
		for i < len(p) && p[i].t <= x {
			i++
		}
		for j < len(p) && p[j].t-int64(w) <= x {
			j++
		}
		next := last
		if i < len(p) {
			next = min(next, p[i].t)
		}
		if j < len(p) {
			next = min(next, p[j].t-int64(w))
		}
		x = next
	}
}

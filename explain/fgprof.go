package explain

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// WaitClass says what a goroutine was doing in a wall-clock sample.
type WaitClass string

// Wait classes. All but WaitRunning are "off CPU" in this package's words;
// WaitGCAssist is on CPU but doing the collector's work, not the program's.
const (
	WaitRunning   WaitClass = "running" // on CPU or runnable
	WaitGCAssist  WaitClass = "GC assist"
	WaitGC        WaitClass = "runtime.GC"
	WaitMutex     WaitClass = "mutex"
	WaitCond      WaitClass = "cond wait"
	WaitWaitGroup WaitClass = "waitgroup"
	WaitChan      WaitClass = "channel"
	WaitSelect    WaitClass = "select"
	WaitNetwork   WaitClass = "network"
	WaitSyscall   WaitClass = "syscall"
	WaitSleep     WaitClass = "sleep"
	WaitOther     WaitClass = "other wait"
)

// waitPatterns decide a sample's class: GC assist and runtime.GC anywhere
// in the stack first, then the first frame from the leaf that matches a
// specific pattern, then the generic parking functions (WaitOther).
var waitPatterns = []struct {
	prefix string
	class  WaitClass
}{
	{"sync.(*Mutex).", WaitMutex},
	{"sync.(*RWMutex).", WaitMutex},
	{"internal/sync.(*Mutex).", WaitMutex},
	{"sync.runtime_SemacquireMutex", WaitMutex},
	{"sync.runtime_SemacquireRWMutex", WaitMutex},
	{"runtime.lock2", WaitMutex},
	{"sync.(*Cond).Wait", WaitCond},
	{"sync.runtime_notifyListWait", WaitCond},
	{"sync.(*WaitGroup).Wait", WaitWaitGroup},
	{"runtime.chanrecv", WaitChan},
	{"runtime.chansend", WaitChan},
	{"runtime.selectgo", WaitSelect},
	{"runtime.block", WaitSelect},
	{"internal/poll.runtime_pollWait", WaitNetwork},
	{"runtime.netpollblock", WaitNetwork},
	{"internal/poll.(*FD).", WaitNetwork},
	{"time.Sleep", WaitSleep},
	{"runtime.timeSleep", WaitSleep},
	{"syscall.Syscall", WaitSyscall},
	{"syscall.RawSyscall", WaitSyscall},
	{"syscall.syscall", WaitSyscall},
	{"internal/runtime/syscall.", WaitSyscall},
	{"golang.org/x/sys/unix.Syscall", WaitSyscall},
	{"runtime.entersyscall", WaitSyscall},
	{"runtime.gopark", WaitOther},
	{"runtime.goparkunlock", WaitOther},
	{"runtime.semacquire", WaitOther},
}

func waitClass(fs []string) WaitClass {
	for _, f := range fs {
		if strings.HasPrefix(f, "runtime.gcAssistAlloc") || strings.HasPrefix(f, "runtime.gcParkAssist") {
			return WaitGCAssist
		}
		if f == "runtime.GC" {
			return WaitGC
		}
	}
	// Specific classes first over the whole stack (the leaf of a parked
	// goroutine is always gopark), then the generic ones.
	for _, generic := range []bool{false, true} {
		for _, f := range fs {
			for _, p := range waitPatterns {
				if (p.class == WaitOther) == generic && strings.HasPrefix(f, p.prefix) {
					return p.class
				}
			}
		}
	}
	return WaitRunning
}

// WaitShare is one wait class's part of a wall-clock total.
type WaitShare struct {
	Class WaitClass
	Time  time.Duration
	// Share is Time over the total the share is of, from 0 to 1.
	Share float64
}

// WaitSite is one of the program's functions and where its goroutines'
// wall-clock time went.
type WaitSite struct {
	Func string
	// Wall is all sampled wall-clock time attributed to Func; OffCPU the
	// part not WaitRunning.
	Wall, OffCPU time.Duration
	// Classes break OffCPU down, largest first (shares of OffCPU).
	Classes []WaitShare
}

// WallAccount explains an fgprof wall-clock profile: where goroutines
// spent time off CPU, and which of the program's functions were waiting.
type WallAccount struct {
	File string
	// Wall is the summed sampled goroutine time (goroutines x seconds);
	// Duration the profile's own wall duration.
	Wall, Duration time.Duration
	// OffCPU is the part of Wall not running (including GC assists).
	OffCPU time.Duration
	// Classes break Wall down by wait class, largest first (shares of Wall).
	Classes []WaitShare
	// Sites are the top functions by off-CPU time.
	Sites []WaitSite
}

func analyzeWall(path string, p *profile.Profile, opts Options) (*WallAccount, error) {
	vi := valueIndex(p, "time")
	if vi < 0 {
		vi = len(p.SampleType) - 1
	}
	attr := opts.attributor()
	acc := &WallAccount{File: path, Duration: time.Duration(p.DurationNanos)}
	byClass := map[WaitClass]int64{}
	type siteTally struct {
		wall, off int64
		classes   map[WaitClass]int64
	}
	sites := map[string]*siteTally{}
	var wall, off int64
	for _, s := range p.Sample {
		if vi >= len(s.Value) {
			return nil, fmt.Errorf("explain: %s: %w: sample with %d values, want %d", path, ErrCorrupt, len(s.Value), len(p.SampleType))
		}
		v := s.Value[vi]
		fs := frames(s)
		c := waitClass(fs)
		byClass[c] += v
		wall += v
		site := attr.pick(fs)
		st := sites[site]
		if st == nil {
			st = &siteTally{classes: map[WaitClass]int64{}}
			sites[site] = st
		}
		st.wall += v
		if c != WaitRunning {
			off += v
			st.off += v
			st.classes[c] += v
		}
	}
	if wall <= 0 {
		return nil, fmt.Errorf("explain: %s: %w: wall-clock profile has no sampled time", path, ErrEmpty)
	}
	acc.Wall, acc.OffCPU = time.Duration(wall), time.Duration(off)
	acc.Classes = waitShares(byClass, wall)
	for f, st := range sites {
		if st.off <= 0 {
			continue
		}
		acc.Sites = append(acc.Sites, WaitSite{Func: shortName(f), Wall: time.Duration(st.wall), OffCPU: time.Duration(st.off), Classes: waitShares(st.classes, st.off)})
	}
	slices.SortFunc(acc.Sites, func(a, b WaitSite) int {
		if c := cmp.Compare(b.OffCPU, a.OffCPU); c != 0 {
			return c
		}
		return strings.Compare(a.Func, b.Func)
	})
	if len(acc.Sites) > opts.top() {
		acc.Sites = acc.Sites[:opts.top()]
	}
	return acc, nil
}

func waitShares(m map[WaitClass]int64, total int64) []WaitShare {
	out := make([]WaitShare, 0, len(m))
	for c, v := range m {
		if v > 0 {
			out = append(out, WaitShare{Class: c, Time: time.Duration(v), Share: float64(v) / float64(total)})
		}
	}
	slices.SortFunc(out, func(a, b WaitShare) int {
		if c := cmp.Compare(b.Time, a.Time); c != 0 {
			return c
		}
		return strings.Compare(string(a.Class), string(b.Class))
	})
	return out
}

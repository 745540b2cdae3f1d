package gcstress

import (
	"fmt"
	"sync"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/internal/workload"
)

// HostMemory is the memory the run's caps are checked against
// (Config.Host): the smaller of the machine's memory and its cgroup's
// limit. A plain value; Bytes 0 is unknown (off Linux), and then no cap is
// checked and the RSS cap's default is DefaultRSSCap.
type HostMemory struct {
	Bytes  int64
	Cgroup bool // Bytes is the cgroup's memory limit, below the machine's memory
}

// String names the figure as an error cites it: "this machine's 23.5 GiB
// of memory", "the cgroup's memory limit of 4.0 GiB".
func (h HostMemory) String() string {
	if h.Cgroup {
		return "the cgroup's memory limit of " + gibText(h.Bytes)
	}
	return "this machine's " + gibText(h.Bytes) + " of memory"
}

// gibText is b in GiB with one decimal.
func gibText(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

// machineMemory reads the host once a process: it does not change under a
// run.
var machineMemory = sync.OnceValue(func() HostMemory {
	m := proto.MachineMemory()
	return HostMemory{Bytes: m.Bytes, Cgroup: m.Cgroup}
})

// MachineMemory is this process's HostMemory: the machine's memory or its
// cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes), whichever is
// smaller; zero off Linux.
func MachineMemory() HostMemory { return machineMemory() }

// DefaultRSSCapShare is the largest share of the host's memory the default
// RSS cap takes: the rest is the parent's, the page cache's and the other
// processes', so that a leaking engine is stopped by the cap, not by the
// kernel's OOM killer or a CI runner's.
const DefaultRSSCapShare = 0.75

// DefaultRSSCapFor is Config.RSSCap's default on host h: DefaultRSSCap, at
// most DefaultRSSCapShare of h (DefaultRSSCap when h is unknown).
func DefaultRSSCapFor(h HostMemory) int64 {
	if h.Bytes <= 0 {
		return DefaultRSSCap
	}
	return min(DefaultRSSCap, int64(DefaultRSSCapShare*float64(h.Bytes))>>20<<20)
}

// host is the memory the caps are checked against: Host when set, else
// MachineMemory.
func (c *Config) host() HostMemory {
	if c.Host.Bytes > 0 {
		return c.Host
	}
	return MachineMemory()
}

// validateHost refuses a hard memory cap of a scenario set that runs
// above the host's memory: a cap the machine cannot reach never fires,
// and the kernel's OOM killer (or the CI runner's) stops the run instead.
func (c *Config) validateHost() error {
	h := c.host()
	if h.Bytes <= 0 {
		return nil
	}
	for _, capx := range []struct {
		flag string
		v    int64
		runs bool
	}{
		{"rss-cap", c.RSSCap, true},
		{"fail-rss-cap", c.FailRSSCap, c.wants(SetFailure) || c.wants(SetStall)},
		{"collapse-rss-cap", c.CollapseRSSCap, c.wants(SetCollapse)},
		{"container", c.Frontier.Container, c.wants(SetFrontier)},
	} {
		if capx.runs && capx.v > h.Bytes {
			return usageErr(capx.flag, "%s exceeds %s: give at most that (a cap the machine cannot reach never fires)", workload.FormatSize(capx.v), h)
		}
	}
	return nil
}

//go:build !linux

package offheapprobe

// kernelCounters is false outside Linux: no getrusage fault counters the
// probe trusts, no /proc/vmstat, no smaps, no THP. Its twin is sys_linux.go.
const kernelCounters = false

// The functions below are sys_linux.go's with nothing to read: zero
// usage, no vmstat, no mappings, no THP settings.
type usage struct {
	userNs, sysNs, minflt, majflt, nvcsw, nivcsw int64
}

func (u usage) sub(b usage) usage { return usage{} }

func readUsage() (usage, error) { return usage{}, nil }

func readVmstat() (map[string]int64, error) { return nil, nil }

func readSmaps() ([]Mapping, error) { return nil, nil }

func readTHP() THPSettings { return THPSettings{} }

func kernelRelease() string { return "" }

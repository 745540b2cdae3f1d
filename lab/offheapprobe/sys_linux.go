package offheapprobe

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// kernelCounters is true where the counters below are real. Its twin in
// sys_other.go says false.
const kernelCounters = true

// usage is the part of getrusage(RUSAGE_SELF) the probe records.
type usage struct {
	userNs, sysNs, minflt, majflt, nvcsw, nivcsw int64
}

func (u usage) sub(b usage) usage {
	return usage{u.userNs - b.userNs, u.sysNs - b.sysNs, u.minflt - b.minflt, u.majflt - b.majflt, u.nvcsw - b.nvcsw, u.nivcsw - b.nivcsw}
}

// readUsage returns the process's resource usage (every thread).
func readUsage() (usage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return usage{}, fmt.Errorf("offheapprobe: getrusage: %w", err)
	}
	return usage{
		userNs: ru.Utime.Nano(), sysNs: ru.Stime.Nano(),
		minflt: ru.Minflt, majflt: ru.Majflt, nvcsw: ru.Nvcsw, nivcsw: ru.Nivcsw,
	}, nil
}

// readVmstat parses /proc/vmstat.
func readVmstat() (map[string]int64, error) {
	f, err := os.Open("/proc/vmstat")
	if err != nil {
		return nil, fmt.Errorf("offheapprobe: %w", err)
	}
	defer f.Close()
	m, err := ParseVmstat(f)
	if err != nil {
		return nil, err
	}
	addPageReporting(m)
	return m, nil
}

// pageReportingDir holds the free page reporting counters of a guest whose
// balloon device reports free memory to its host (virtio-balloon's
// VIRTIO_BALLOON_F_REPORTING): blocks of 2^page_reporting_order pages the
// kernel freed are handed back to the host, which unmaps them; the next
// touch of such a page faults on the host. Absent elsewhere.
const pageReportingDir = "/sys/module/page_reporting/parameters/"

// addPageReporting adds the guest's free page reporting counters to m as
// page_reporting_reported_kib and page_reporting_passes, where the kernel
// has them (they are cumulative, so records hold deltas as for vmstat).
func addPageReporting(m map[string]int64) {
	for _, name := range []string{"reported_kib", "passes"} {
		b, err := readSmall(pageReportingDir + name)
		if err != nil {
			continue
		}
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			m["page_reporting_"+name] = v
		}
	}
}

// readSmaps parses /proc/self/smaps.
func readSmaps() ([]Mapping, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, fmt.Errorf("offheapprobe: %w", err)
	}
	defer f.Close()
	return ParseSmaps(f)
}

const thpDir = "/sys/kernel/mm/transparent_hugepage/"

// readTHP reads the transparent huge page settings; a setting that cannot
// be read is left empty (a kernel without THP has none of them).
func readTHP() THPSettings {
	choice := func(name string) string {
		b, err := readSmall(thpDir + name)
		if err != nil {
			return ""
		}
		s, err := ParseTHPChoice(b)
		if err != nil {
			return ""
		}
		return s
	}
	t := THPSettings{Enabled: choice("enabled"), Defrag: choice("defrag"), Shmem: choice("shmem_enabled")}
	if b, err := readSmall(thpDir + "khugepaged/defrag"); err == nil {
		t.KhugepagedDefrag = string(bytes.TrimSpace(b))
	}
	if b, err := readSmall(thpDir + "hpage_pmd_size"); err == nil {
		t.PMDSize = string(bytes.TrimSpace(b))
	}
	return t
}

// readSmall reads at most 4 KiB of a sysfs file.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, err := f.Read(b)
	if n == 0 && err != nil {
		return nil, err
	}
	return b[:n], nil
}

// kernelRelease is uname -r.
func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

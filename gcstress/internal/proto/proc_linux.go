package proto

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// What gcstress reads of the machine and its processes on Linux: /proc
// (CPU counters, load averages, resident memory, CPU model and memory
// size), getrusage, and the child's process attributes. proc_other.go
// has the twins for other systems, which read nothing (the harness runs
// there but its memory caps and machine figures are Linux-only).

// ChildSysProcAttr puts a child in a process group of its own (Ctrl-C
// reaches the parent only, which stops the child itself) and has the
// kernel kill it if the parent dies.
func ChildSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Supported says whether this system gives what the harness measures
// (memory caps, machine load): Linux only.
const Supported = true

// readCPUStat reads the first ("cpu ") line of /proc/stat: busy is user +
// nice + system + irq + softirq (guest time is already inside user).
func readCPUStat() cpuStat {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return cpuStat{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return cpuStat{}
	}
	return parseCPUStat(sc.Text())
}

// SelfCPU is the CPU time this process has used (user + system).
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// LoadAvg reads the 1-, 5- and 15-minute load averages (zero off Linux).
func LoadAvg() [3]float64 {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	f := strings.Fields(string(b))
	for i := 0; i < 3 && i < len(f); i++ {
		l[i], _ = strconv.ParseFloat(f[i], 64)
	}
	return l
}

// ProcCPU returns this process's user+system CPU time in seconds.
func ProcCPU() float64 { return SelfCPU().Seconds() }

// ReadRSS returns this process's resident memory from /proc/self/statm
// (0 where there is no /proc). It reads into a fixed buffer through one
// open file, so the watchdog's 50 ms polling allocates nothing.
func ReadRSS() uint64 {
	selfStatm.Lock()
	defer selfStatm.Unlock()
	if selfStatm.f == nil {
		f, err := os.Open("/proc/self/statm")
		if err != nil {
			return 0
		}
		selfStatm.f = f
	}
	n, err := selfStatm.f.ReadAt(selfStatm.buf[:], 0)
	if n == 0 && err != nil {
		return 0
	}
	return parseStatm(selfStatm.buf[:n])
}

var selfStatm struct {
	sync.Mutex
	f   *os.File
	buf [128]byte
}

// ReadPidRSS returns another process's resident memory.
func ReadPidRSS(pid int) uint64 { return readStatm("/proc/" + strconv.Itoa(pid) + "/statm") }

func readStatm(path string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return parseStatm(b)
}

// machine reads the CPU model and total memory from /proc (Linux).
func Machine() (string, uint64) {
	var model string
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return model, memTotal()
}

// memTotal reads the machine's memory from /proc/meminfo; 0 when it
// cannot.
func memTotal() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb uint64
		if n, _ := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); n == 1 && kb < 1<<53 {
			return kb << 10
		}
	}
	return 0
}

// MachineMemory is what this process may use: the smaller of the
// machine's memory (/proc/meminfo) and its cgroup's memory limit (v2
// memory.max, v1 memory.limit_in_bytes, along the path to the root).
func MachineMemory() Memory {
	self := readLimited("/proc/self/cgroup", maxSelfCgroup)
	return memoryOf(int64(memTotal()), self, func(p string) []byte { return readLimited(p, MaxCgroupFile+1) })
}

// readLimited reads at most n bytes of file p; nil when it cannot be read.
func readLimited(p string, n int64) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil
	}
	return b
}

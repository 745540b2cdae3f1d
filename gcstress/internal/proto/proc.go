// Package proto is what gcstress's parent and child processes share: the
// child's stream protocol (childproto.go: Stream, StopCause), the operation
// mixes both sides name (mix.go: Mix, Presets), and what gcstress reads of
// the machine and of its processes (this file). Each file's doc states its
// invariants; it imports only results of gcstress's packages.
//
// The machine and processes:
// the machine-wide CPU counters (a Meter gives a scenario's results.Machine:
// what other processes and steal took meanwhile), load averages, resident
// memory (/proc/PID/statm), this process's CPU time (getrusage), the CPU
// model and memory size, and the attributes a child process starts with
// (its own process group, killed when the parent dies).
//
// Invariants: the readers are Linux's (proc_linux.go); proc_other.go's
// twins read nothing and return zero, and Supported says which, so the
// harness builds everywhere and says at run time that its measurements
// are Linux-only. ReadRSS allocates nothing (the child polls it every
// 50 ms) and is safe for concurrent use; a reading that fails is zero.
package proto

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// userHZ is the unit of /proc/stat's counters: USER_HZ, 100 on every Linux
// architecture's user ABI.
const userHZ = 100

// cpuStat is one reading of the machine-wide CPU counters, in seconds
// summed over all CPUs.
type cpuStat struct {
	busy, steal float64
	ok          bool
}

func parseCPUStat(line string) cpuStat {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuStat{}
	}
	var v [8]float64
	for i := range v {
		n, err := strconv.ParseUint(f[i+1], 10, 64)
		if err != nil {
			return cpuStat{}
		}
		v[i] = float64(n) / userHZ
	}
	// user nice system idle iowait irq softirq steal
	return cpuStat{busy: v[0] + v[1] + v[2] + v[5] + v[6], steal: v[7], ok: true}
}

// Meter measures one scenario's Machine: start before the child
// starts, stop after it was reaped with the child's own CPU time.
type Meter struct {
	t0   time.Time
	st0  cpuStat
	self time.Duration
}

func StartMeter() Meter {
	return Meter{t0: time.Now(), st0: readCPUStat(), self: SelfCPU()}
}

func (m Meter) Stop(child time.Duration) results.Machine {
	st1 := readCPUStat()
	wall := time.Since(m.t0).Seconds()
	if !m.st0.ok || !st1.ok || wall <= 0 {
		return results.Machine{}
	}
	ours := (child + SelfCPU() - m.self).Seconds()
	return results.Machine{
		OthersCores: max(st1.busy-m.st0.busy-ours, 0) / wall,
		StealCores:  max(st1.steal-m.st0.steal, 0) / wall,
	}
}

var pageSize = uint64(os.Getpagesize())

// parseStatm returns the resident size (second field, in pages) in bytes,
// without allocating.
func parseStatm(b []byte) uint64 {
	i := bytes.IndexByte(b, ' ')
	if i < 0 {
		return 0
	}
	var n uint64
	digits := 0
	for _, c := range b[i+1:] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + uint64(c-'0')
		digits++
	}
	if digits == 0 {
		return 0
	}
	return n * pageSize
}

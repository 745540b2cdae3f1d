package gcstress

import (
	"strconv"
	"strings"
	"time"
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

// machineMeter measures one scenario's Machine: start before the child
// starts, stop after it was reaped with the child's own CPU time.
type machineMeter struct {
	t0   time.Time
	st0  cpuStat
	self time.Duration
}

func startMachineMeter() machineMeter {
	return machineMeter{t0: time.Now(), st0: readCPUStat(), self: selfCPU()}
}

func (m machineMeter) stop(child time.Duration) Machine {
	st1 := readCPUStat()
	wall := time.Since(m.t0).Seconds()
	if !m.st0.ok || !st1.ok || wall <= 0 {
		return Machine{}
	}
	ours := (child + selfCPU() - m.self).Seconds()
	return Machine{
		OthersCores: max(st1.busy-m.st0.busy-ours, 0) / wall,
		StealCores:  max(st1.steal-m.st0.steal, 0) / wall,
	}
}

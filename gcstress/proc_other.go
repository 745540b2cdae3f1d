//go:build !linux

package gcstress

import (
	"syscall"
	"time"
)

// The twins of proc_linux.go for systems without /proc: every reading is
// zero (unknown), so the package builds and its pure parts work, but a run
// has no memory cap enforcement by the parent, no RSS and no machine load.

// childSysProcAttr sets nothing off Linux.
func childSysProcAttr() *syscall.SysProcAttr { return nil }

// ProcSupported says whether this system gives what the harness measures
// (memory caps, machine load): Linux only.
const ProcSupported = false

func readCPUStat() cpuStat      { return cpuStat{} }
func selfCPU() time.Duration    { return 0 }
func loadAvg() [3]float64       { return [3]float64{} }
func procCPU() float64          { return 0 }
func readRSS() uint64           { return 0 }
func readPidRSS(pid int) uint64 { return 0 }
func machine() (string, uint64) { return "", 0 }

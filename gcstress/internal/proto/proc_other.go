//go:build !linux

package proto

import (
	"syscall"
	"time"
)

// The twins of proc_linux.go for systems without /proc: every reading is
// zero (unknown), so the package builds and its pure parts work, but a run
// has no memory cap enforcement by the parent, no RSS and no machine load.

// ChildSysProcAttr sets nothing off Linux.
func ChildSysProcAttr() *syscall.SysProcAttr { return nil }

// Supported says whether this system gives what the harness measures
// (memory caps, machine load): Linux only.
const Supported = false

func readCPUStat() cpuStat      { return cpuStat{} }
func SelfCPU() time.Duration    { return 0 }
func LoadAvg() [3]float64       { return [3]float64{} }
func ProcCPU() float64          { return 0 }
func ReadRSS() uint64           { return 0 }
func ReadPidRSS(pid int) uint64 { return 0 }
func Machine() (string, uint64) { return "", 0 }
func memTotal() uint64          { return 0 }

// MachineMemory is unknown off Linux: no cap is checked against it.
func MachineMemory() Memory { return Memory{} }

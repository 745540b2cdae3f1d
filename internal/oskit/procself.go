package oskit

import (
	"bytes"
	"os"
	"strconv"
)

// MinorFaults returns the process's minor page faults so far (field 10 of
// /proc/self/stat), or ok false where that file does not exist.
func MinorFaults() (n uint64, ok bool) { return read("/proc/self/stat", ParseMinorFaults) }

// ParseMinorFaults returns the minflt field of a /proc/PID/stat line.
// Field 2 (the command) is in parentheses and may hold spaces: fields are
// counted after the last ')', where field 3 (state) has index 0, so minflt
// (field 10) has index 7.
func ParseMinorFaults(stat []byte) (n uint64, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 8 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(f[7]), 10, 64)
	return n, err == nil
}

// RSS returns the process's resident set in bytes (VmRSS of
// /proc/self/status), or ok false where that file does not exist.
func RSS() (n int64, ok bool) { return read("/proc/self/status", ParseRSS) }

// read parses the file at path with parse; ok is false where it cannot be
// read.
func read[T any](path string, parse func([]byte) (T, bool)) (v T, ok bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return v, false
	}
	return parse(raw)
}

// ParseRSS returns the VmRSS line of a /proc/PID/status file, in bytes.
func ParseRSS(status []byte) (n int64, ok bool) {
	for line := range bytes.Lines(status) {
		rest, found := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !found {
			continue
		}
		kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
		if err != nil || kb < 0 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

package explain

import (
	"fmt"
	"strings"
)

// Profiles is a set of profile kinds a Capture records. It is a small value
// type, safe to copy and share.
type Profiles uint16

// The kinds, one bit each.
const (
	ProfileCPU Profiles = 1 << iota
	ProfileHeap
	ProfileAllocs
	ProfileFgprof
	ProfileTrace
	ProfileMutex
	ProfileBlock

	// ProfileAll is every kind.
	ProfileAll = ProfileCPU | ProfileHeap | ProfileAllocs | ProfileFgprof | ProfileTrace | ProfileMutex | ProfileBlock
)

var profileNames = []struct {
	k    Profiles
	name string
	file string
}{
	{ProfileCPU, "cpu", "cpu.pprof"},
	{ProfileHeap, "heap", "heap.pprof"},
	{ProfileAllocs, "allocs", "allocs.pprof"},
	{ProfileFgprof, "fgprof", "fgprof.pprof"},
	{ProfileTrace, "trace", "trace.out"},
	{ProfileMutex, "mutex", "mutex.pprof"},
	{ProfileBlock, "block", "block.pprof"},
}

// ParseProfiles parses a comma-separated list such as
// "cpu,heap,allocs,fgprof,trace,mutex,block". "all" means every kind;
// "" and "none" mean no kind. Names are case-insensitive and may repeat.
// An unknown name is an error wrapping ErrUnknownProfile that names it and
// lists the known ones.
func ParseProfiles(s string) (Profiles, error) {
	var k Profiles
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		switch f {
		case "", "none":
			continue
		case "all":
			k |= ProfileAll
			continue
		}
		found := false
		for _, kn := range profileNames {
			if kn.name == f {
				k |= kn.k
				found = true
			}
		}
		if !found {
			names := make([]string, len(profileNames))
			for i, kn := range profileNames {
				names[i] = kn.name
			}
			return 0, fmt.Errorf("%w %q (known: %s, all)", ErrUnknownProfile, f, strings.Join(names, ", "))
		}
	}
	return k, nil
}

// Has reports whether every kind in o is in k.
func (k Profiles) Has(o Profiles) bool { return k&o == o && o != 0 }

// String lists the kinds in canonical order, comma-separated ("" for none).
func (k Profiles) String() string {
	var names []string
	for _, kn := range profileNames {
		if k&kn.k != 0 {
			names = append(names, kn.name)
		}
	}
	return strings.Join(names, ",")
}

// Files returns the file names Capture writes for k, in canonical order
// (metrics.json, written with cpu, is not included).
func (k Profiles) Files() []string {
	var out []string
	for _, kn := range profileNames {
		if k&kn.k != 0 {
			out = append(out, kn.file)
		}
	}
	return out
}

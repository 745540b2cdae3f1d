package explain

import (
	"fmt"
	"strings"
)

// Kinds is a set of profile kinds a Capture records. It is a small value
// type, safe to copy and share.
type Kinds uint16

// The kinds, one bit each.
const (
	KindCPU Kinds = 1 << iota
	KindHeap
	KindAllocs
	KindFgprof
	KindTrace
	KindMutex
	KindBlock

	// KindAll is every kind.
	KindAll = KindCPU | KindHeap | KindAllocs | KindFgprof | KindTrace | KindMutex | KindBlock
)

var kindNames = []struct {
	k    Kinds
	name string
	file string
}{
	{KindCPU, "cpu", "cpu.pprof"},
	{KindHeap, "heap", "heap.pprof"},
	{KindAllocs, "allocs", "allocs.pprof"},
	{KindFgprof, "fgprof", "fgprof.pprof"},
	{KindTrace, "trace", "trace.out"},
	{KindMutex, "mutex", "mutex.pprof"},
	{KindBlock, "block", "block.pprof"},
}

// ParseKinds parses a comma-separated list such as
// "cpu,heap,allocs,fgprof,trace,mutex,block". "all" means every kind;
// "" and "none" mean no kind. Names are case-insensitive and may repeat.
// An unknown name is an error wrapping ErrUnknownKind that names it and
// lists the known ones.
func ParseKinds(s string) (Kinds, error) {
	var k Kinds
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		switch f {
		case "", "none":
			continue
		case "all":
			k |= KindAll
			continue
		}
		found := false
		for _, kn := range kindNames {
			if kn.name == f {
				k |= kn.k
				found = true
			}
		}
		if !found {
			names := make([]string, len(kindNames))
			for i, kn := range kindNames {
				names[i] = kn.name
			}
			return 0, fmt.Errorf("%w %q (known: %s, all)", ErrUnknownKind, f, strings.Join(names, ", "))
		}
	}
	return k, nil
}

// Has reports whether every kind in o is in k.
func (k Kinds) Has(o Kinds) bool { return k&o == o && o != 0 }

// String lists the kinds in canonical order, comma-separated ("" for none).
func (k Kinds) String() string {
	var names []string
	for _, kn := range kindNames {
		if k&kn.k != 0 {
			names = append(names, kn.name)
		}
	}
	return strings.Join(names, ",")
}

// Files returns the file names Capture writes for k, in canonical order
// (metrics.json, written with cpu, is not included).
func (k Kinds) Files() []string {
	var out []string
	for _, kn := range kindNames {
		if k&kn.k != 0 {
			out = append(out, kn.file)
		}
	}
	return out
}

// bench.txt's schema (benchtxt.go, read.go, write.go, mmu.go, readers.go):
// the file of a gcstress results folder that holds each scenario run's figures in the Go benchmark
// format (golang.org/design/14313-benchmark-format), so that benchstat,
// benchgate and `gcstress compare` read them: its name, its benchmark
// names, its units and their better direction, its writer (Write) and its
// reader (Read).
//
// A file looks like this:
//
//	goos: linux
//	goarch: amd64
//	cpu: AMD EPYC 7B13
//	goversion: go1.26.0
//	commit: 0123abcd
//	gcstress-count: 3
//	Unit MB/s better=higher assume=nothing
//	Unit gc-cpu-ns/put better=lower assume=nothing
//	...
//
//	BenchmarkGCStress/set=matrix/kind=heap/value=100 	 2000000	 41.5 MB/s	 412 gc-cpu-ns/put	 2.01 objects/entry	 350000 pause-p99-ns
//	BenchmarkGCStress/set=capacity/kind=heap/value=100 	 1	 27.3 sustainable-MB/s
//
// Invariants:
//   - These files alone spell the file's name (FileName), its benchmark
//     names (Key.Name, ParseName) and its units (the Unit constants);
//     every other package uses these.
//   - One result line per scenario run (each repeat of -count its own
//     line) whose load ended normally (the end record says every key was
//     written or the run-time cap passed, and the parent did not stop it)
//     after at least one Put: a run that failed, died or was interrupted
//     has no figures here. Its name is BenchmarkGCStress/set=<the
//     scenario's group>/kind=<kind>/value=<value bytes>, unique within a
//     round; with a build environment (-build-envs) the name ends in
//     /env=<its name>; its iteration count is the Puts (keys written); its values are
//     MB/s, gc-cpu-ns/put, pause-p99-ns and, when the child measured the
//     engine's footprint, objects/entry; a traced run adds mmu-1ms,
//     mmu-10ms, mmu-100ms and its assist shares (mmu.go), a mix its
//     operations' latencies (readers.go).
//   - Capacity steps have no line (their rates differ from run to run);
//     each capacity search has one, set=capacity, with its
//     sustainable-MB/s and an iteration count of 1.
//   - Every unit is declared with `Unit NAME better=higher|lower
//     assume=nothing` lines, so readers know its direction and compare it
//     without assuming a distribution. Every value written is finite and
//     non-negative (a figure that is not is left off its line).
//   - Every unit has one entry in the unit registry: its place
//     on a line, its direction (Unit.Better) and its absolute floor
//     (Unit.Floor), the smallest difference of two figures that a
//     comparison counts.
//   - Configuration lines: goos, goarch, cpu, goversion, commit (when the
//     build knows it) and gcstress-count (the rounds the file holds); their
//     values are single lines of printable text.
//   - Read checks its limits before it allocates for the input: a file of
//     more than MaxFileBytes or with a line of more than MaxLineBytes is
//     refused (ErrTooLarge), and so is anything that is not a bench.txt
//     (ErrBadFile: no result line, a malformed line, a benchmark name this
//     package did not write).
//
// Everything here is a plain function or value; a File is read-only once
// Read returned it and may then be shared between goroutines.

package compare

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
	"github.com/writegc/writegc/internal/workload"
)

// FileName is bench.txt's name in a results folder.
const FileName = "bench.txt"

// Unit is a unit of bench.txt, as written on its lines. The values do not
// change.
type Unit string

// The units of bench.txt.
const (
	// MBps is the run's key+value MB/s (10^6 B/s).
	MBps Unit = "MB/s"
	// GCCPUNsPerPut is the collector's CPU per Put, in ns (the end
	// record's gc_cpu_ns_per_put).
	GCCPUNsPerPut Unit = "gc-cpu-ns/put"
	// ObjectsPerEntry is the heap objects the engine holds per live entry
	// (the end record's objects_per_entry).
	ObjectsPerEntry Unit = "objects/entry"
	// PauseP99Ns is the run's 99th-percentile stop-the-world pause, in ns.
	PauseP99Ns Unit = "pause-p99-ns"
	// SustainableMBps is a capacity search's sustainable MB/s.
	SustainableMBps Unit = "sustainable-MB/s"
)

// Direction says which way a unit improves: internal/stat's Direction, the one
// benchgate and its history database use too.
type Direction = stat.Direction

// Directions.
const (
	Unknown = stat.UnknownDirection // a unit this package does not know
	Lower   = stat.Lower            // less is better
	Higher  = stat.Higher           // more is better
)

// units is the one registry of bench.txt's units: in the order a line
// holds them, each with its direction and its floor (Unit.Floor).
var units = []struct {
	unit   Unit
	better Direction
	floor  float64
}{
	// A tenth of a MB/s: the rates gcstress measures are tens to hundreds
	// of MB/s, so the floor binds only on a run that measured ~nothing.
	{MBps, Higher, 0.1},
	// One ns of collector CPU per Put: engines that keep the heap small
	// measure fractions of one, which move with the collector's own
	// background work, not with the engine.
	{GCCPUNsPerPut, Lower, 1},
	// One heap object per hundred entries: the off-heap engines hold
	// 0.001 to 0.005 (their index's few objects over all entries), and a
	// change among such figures (+39% on 0.0012, +Inf% from 0) is not a
	// change in what the collector marks per entry.
	{ObjectsPerEntry, Lower, 0.01},
	// One microsecond: the p99 pauses measured are a hundred microseconds
	// to milliseconds (runtime/metrics' histogram buckets), so the floor
	// binds only when both sides barely paused.
	{PauseP99Ns, Lower, 1000},
	{SustainableMBps, Higher, 0.1},
	// Mixed workloads (readers.go): latency per operation type and of the
	// reads in and outside mark, from intended start; a microsecond's
	// floor, as the pauses'.
	{ReadP99Ns, Lower, 1000}, {ReadP999Ns, Lower, 1000},
	{UpdateP99Ns, Lower, 1000}, {UpdateP999Ns, Lower, 1000},
	{InsertP99Ns, Lower, 1000}, {InsertP999Ns, Lower, 1000},
	{ScanP99Ns, Lower, 1000}, {ScanP999Ns, Lower, 1000},
	{RMWP99Ns, Lower, 1000}, {RMWP999Ns, Lower, 1000},
	{ReadInMarkP99Ns, Lower, 1000}, {ReadOutsideMarkP99Ns, Lower, 1000},
	// A traced run (mmu.go): the MMU's floor is a point of utilization,
	// the assist share's a percentage point.
	{MMU1ms, Higher, 0.01}, {MMU10ms, Higher, 0.01}, {MMU100ms, Higher, 0.01},
	{AssistShareSlowPct, Lower, 1}, {ReadAssistShareSlowPct, Lower, 1},
}

// Units lists the units of bench.txt in the order a line holds them.
func Units() []Unit {
	out := make([]Unit, len(units))
	for i, u := range units {
		out[i] = u.unit
	}
	return out
}

// Better is u's direction; Unknown for a unit that is not bench.txt's.
func (u Unit) Better() Direction {
	for _, x := range units {
		if x.unit == u {
			return x.better
		}
	}
	return Unknown
}

// Floor is u's absolute floor, in u: two figures closer than it are the
// same figure, whatever their ratio (near zero a ratio is noise: 0.0012
// to 0.0017 objects/entry is +39%). It is positive for every unit of
// bench.txt, 0 for a unit that is not bench.txt's.
func (u Unit) Floor() float64 {
	for _, x := range units {
		if x.unit == u {
			return x.floor
		}
	}
	return 0
}

// Errors of Read and ParseName.
var (
	// ErrBadFile: the input is not a bench.txt (no result line, a
	// malformed line, a name this package did not write).
	ErrBadFile = errors.New("not a gcstress bench.txt")
	// ErrTooLarge: the file or one of its lines is over Read's limits.
	ErrTooLarge = errors.New("bench.txt over the size limits")
)

// Key is the scenario a line measures: its group (results.SetMatrix,
// SetFailure, ..., SetCapacity), kind and value size in bytes. A plain
// value, comparable.
type Key struct {
	Set   string
	Kind  string
	Value int64
	// Env is the build environment's name (results.Scenario.BuildEnv,
	// -build-envs); "" without one, and the name then has no env part.
	Env string
}

// KeyOf is the Key of scenario s. A mixed workload's set is MixSet(its
// mix), so its lines never compare with the write-only matrix's.
func KeyOf(s results.Scenario) Key {
	if s.Mixed() {
		return Key{Set: MixSet(s.Mix), Kind: s.Kind, Value: s.Value, Env: s.BuildEnv}
	}
	return Key{Set: s.Group, Kind: s.Kind, Value: s.Value, Env: s.BuildEnv}
}

// Prefix begins every benchmark name of bench.txt.
const Prefix = "BenchmarkGCStress"

// Name is k's benchmark name: Prefix/set=SET/kind=KIND/value=BYTES, and
// /env=NAME after it when k has a build environment.
func (k Key) Name() string {
	n := fmt.Sprintf("%s/set=%s/kind=%s/value=%d", Prefix, k.Set, k.Kind, k.Value)
	if k.Env != "" {
		n += "/env=" + k.Env
	}
	return n
}

// String is k as a reader names the scenario: SET/KIND/VALUE, the value
// size as the reports write it (matrix/heap/100B).
func (k Key) String() string {
	s := k.Set + "/" + k.Kind + "/" + workload.FormatSize(k.Value)
	if k.Env != "" {
		s += "/env=" + k.Env
	}
	return s
}

// ParseName parses a benchmark name Key.Name wrote; anything else is an
// error wrapping ErrBadFile.
func ParseName(name string) (Key, error) {
	bad := func(why string) (Key, error) {
		return Key{}, fmt.Errorf("%w: benchmark %q: %s", ErrBadFile, name, why)
	}
	parts := strings.Split(name, "/")
	if (len(parts) != 4 && len(parts) != 5) || parts[0] != Prefix {
		return bad("want " + Prefix + "/set=S/kind=K/value=N[/env=E]")
	}
	var k Key
	if len(parts) == 5 {
		v, ok := strings.CutPrefix(parts[4], "env=")
		if !ok || !validPart(v) {
			return bad("want env=... as part 4")
		}
		k.Env = v
	}
	for i, key := range []string{"set", "kind", "value"} {
		v, ok := strings.CutPrefix(parts[i+1], key+"=")
		if !ok || !validPart(v) {
			return bad("want " + key + "=... as part " + strconv.Itoa(i+1))
		}
		switch key {
		case "set":
			k.Set = v
		case "kind":
			k.Kind = v
		default:
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return bad("value is not a byte count")
			}
			k.Value = n
		}
	}
	return k, nil
}

// validPart: a name part of at most 64 bytes of [a-z0-9._-] (the kind
// names' rule; sets and byte counts are narrower).
func validPart(v string) bool {
	if v == "" || len(v) > 64 {
		return false
	}
	for _, c := range []byte(v) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

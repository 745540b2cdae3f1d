// The operation mixes (-mix): presets after YCSB's
// core workloads A to F, plus w, the write-only load every scenario ran
// before mixes existed. A Mix is a ratio of operation types; Pick turns a
// uniform draw into one of them.
//
// Invariants:
//   - A preset's ratios sum to 1, and they are the documented ones (see
//     Presets); nothing else builds a Mix.
//   - Mix w is write-only and needs neither a Getter nor a Scanner nor
//     preloaded records: the child runs its original Put loop for it, so
//     a run without -mix is exactly what it was.
//   - Every other mix reads records a preload phase inserted first, so it
//     needs at least one preloaded record (NeedsPreload).

package proto

import (
	"errors"
	"fmt"
	"strings"
)

// Name is a mix's name, the -mix flag's value and summary.json's
// scenario.mix. The values do not change.
type Name string

// The presets.
const (
	A Name = "a" // update heavy: 50% read, 50% update
	B Name = "b" // read mostly: 95% read, 5% update
	C Name = "c" // read only: 100% read of the preloaded records
	D Name = "d" // read latest: 95% read (keydist latest by YCSB), 5% insert
	E Name = "e" // short ranges: 95% scan of 1 to MaxScanLen records, 5% insert
	F Name = "f" // read-modify-write: 50% read, 50% read-modify-write
	W Name = "w" // write only: every operation an insert (the default)
)

// Op is one operation type of a mix. Its String is the key of the end
// record's ops map (end.ops.read, ...), and does not change.
type Op uint8

// Operation types.
const (
	Read   Op = iota // Get of a chosen record
	Update           // Put over a chosen record
	Insert           // Put of a new record (the next index)
	Scan             // Scan of 1..MaxScanLen records from a chosen record's key
	RMW              // Get then Put of the same chosen record, timed together
	NumOps
)

var opNames = [NumOps]string{"read", "update", "insert", "scan", "rmw"}

func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("op%d", uint8(o))
}

// Ops lists every operation type, in Op order.
func Ops() []Op { return []Op{Read, Update, Insert, Scan, RMW} }

// MaxScanLen is the longest scan of mix e (YCSB's maxscanlength); a scan's
// length is uniform in [1, MaxScanLen].
const MaxScanLen = 100

// DefaultPreload is the records a mix that reads preloads when -preload is
// not given: 100K, about 12 MB of key+value at 100 B values.
const DefaultPreload = 100_000

// Mix is one preset: the share of each Op (summing to 1). A plain value.
type Mix struct {
	Name  Name
	Share [NumOps]float64
}

// ErrUnknown is a mix name that is no preset.
var ErrUnknown = errors.New("unknown mix")

// Presets lists the mixes in flag order.
func Presets() []Mix {
	return []Mix{
		{A, [NumOps]float64{Read: 0.5, Update: 0.5}},
		{B, [NumOps]float64{Read: 0.95, Update: 0.05}},
		{C, [NumOps]float64{Read: 1}},
		{D, [NumOps]float64{Read: 0.95, Insert: 0.05}},
		{E, [NumOps]float64{Scan: 0.95, Insert: 0.05}},
		{F, [NumOps]float64{Read: 0.5, RMW: 0.5}},
		{W, [NumOps]float64{Insert: 1}},
	}
}

// Names is the presets' names joined with "|", for usage text.
func Names() string {
	var b []string
	for _, m := range Presets() {
		b = append(b, string(m.Name))
	}
	return strings.Join(b, "|")
}

// Parse finds a preset by name; "" is W.
func Parse(s string) (Mix, error) {
	if s == "" {
		s = string(W)
	}
	for _, m := range Presets() {
		if string(m.Name) == s {
			return m, nil
		}
	}
	return Mix{}, fmt.Errorf("%w %q (known: %s)", ErrUnknown, s, Names())
}

// Describe is the mix's ratios in words: "95% read, 5% update".
func (m Mix) Describe() string {
	var parts []string
	for _, o := range Ops() {
		if m.Share[o] > 0 {
			parts = append(parts, fmt.Sprintf("%g%% %s", 100*m.Share[o], o))
		}
	}
	return strings.Join(parts, ", ")
}

// WriteOnly says whether the mix is w: the original Put loop.
func (m Mix) WriteOnly() bool { return m.Name == W }

// NeedsGet says whether the mix reads single records (a Getter).
func (m Mix) NeedsGet() bool { return m.Share[Read] > 0 || m.Share[RMW] > 0 }

// NeedsScan says whether the mix scans (a Scanner).
func (m Mix) NeedsScan() bool { return m.Share[Scan] > 0 }

// NeedsPreload says whether the mix reads records that must exist first.
func (m Mix) NeedsPreload() bool { return !m.WriteOnly() }

// Pick maps u, uniform in [0, 1), to an operation by the mix's shares.
func (m Mix) Pick(u float64) Op {
	for _, o := range Ops() {
		if u < m.Share[o] {
			return o
		}
		u -= m.Share[o]
	}
	// Rounding left u at or just above the last share: the last op with one.
	for o := NumOps - 1; ; o-- {
		if m.Share[o] > 0 {
			return o
		}
	}
}

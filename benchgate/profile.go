package benchgate

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"
)

// DefaultProfileTop is how many functions a ProfileDiff lists.
const DefaultProfileTop = 8

// Profile sample types DiffProfileFiles compares.
const (
	SampleCPU          = "cpu"           // CPU time, nanoseconds
	SampleAllocSpace   = "alloc_space"   // bytes allocated
	SampleAllocObjects = "alloc_objects" // objects allocated
)

// ProfileFiles are the profiles Run captured of one regressed benchmark:
// the base's and the head's CPU profile and allocation profile (paths; ""
// when not captured), and the op count each side's profiling run printed.
type ProfileFiles struct {
	Benchmark        string
	BaseCPU, HeadCPU string
	BaseMem, HeadMem string
	BaseOps, HeadOps int64
}

// FuncCost is one function's cost per op in base and head, in the sample
// type's unit per op (ns/op for CPU, B/op, objects/op): flat (samples whose
// innermost frame is the function) and cum (samples with the function
// anywhere on the stack), each the profile's value divided by the op count
// of its run. It is a plain value.
type FuncCost struct {
	Func               string
	BaseFlat, HeadFlat float64
	BaseCum, HeadCum   float64
}

// FlatGrowth is the rise of the flat cost per op from base to head.
func (f FuncCost) FlatGrowth() float64 { return f.HeadFlat - f.BaseFlat }

// CumGrowth is the rise of the cum cost per op from base to head.
func (f FuncCost) CumGrowth() float64 { return f.HeadCum - f.BaseCum }

// ProfileDiff says where a regressed benchmark got slower: the functions
// whose cost per op grew most from base to head. It is a plain value.
type ProfileDiff struct {
	Benchmark  string
	SampleType string // SampleCPU, SampleAllocSpace or SampleAllocObjects
	Funcs      []FuncCost
	// Err says why there is no comparison (a profile missing or unreadable).
	Err string
}

// bookkeeping lists the functions DiffProfiles leaves out of its ranking:
// the profiler's own work, the testing harness, and the scheduler's and
// thread/goroutine set-up. A name matches an entry ending in "." or "*" by
// prefix, any other exactly. The garbage collector's work
// (runtime.gcBgMarkWorker, gcAssistAlloc, mallocgc, ...) is not
// bookkeeping: it is part of what a write costs.
var bookkeeping = []string{
	"runtime/pprof.", "testing.",
	"runtime.(*gQueue).", "runtime.(*gList).", "runtime.schedule", "runtime.findRunnable",
	"runtime.findrunnable", "runtime.park_m", "runtime.mcall", "runtime.mstart*",
	"runtime.goexit*", "runtime.gopark", "runtime.goready", "runtime.ready",
	"runtime.runq*", "runtime.globrunq*", "runtime.stealWork", "runtime.checkTimers",
	"runtime.netpoll*", "runtime.notesleep", "runtime.notewakeup", "runtime.futex*",
	"runtime.stopm", "runtime.startm", "runtime.wakep", "runtime.handoffp",
	"runtime.sysmon", "runtime.usleep", "runtime.osyield", "runtime.malg",
	"runtime.newproc*", "runtime.allocm", "runtime.newm*", "runtime.main",
	"runtime.doInit*", "runtime.gcenable", "runtime._System", "runtime._ExternalCode",
}

// sharedBookkeeping lists what the profiler uses but a benchmark may too
// (compression): left out only when both profiles have it, so a head that
// starts compressing is still named.
var sharedBookkeeping = []string{"compress/flate.", "compress/gzip."}

// isBookkeeping reports whether name is on the bookkeeping list.
func isBookkeeping(name string) bool { return matchAny(name, bookkeeping) }

// matchAny reports whether name matches an entry of list (see bookkeeping).
func matchAny(name string, list []string) bool {
	for _, b := range list {
		switch {
		case strings.HasSuffix(b, "*"):
			if strings.HasPrefix(name, b[:len(b)-1]) {
				return true
			}
		case strings.HasSuffix(b, "."):
			if strings.HasPrefix(name, b) {
				return true
			}
		case name == b:
			return true
		}
	}
	return false
}

// minGrowth is the smallest rise per op a row needs for each sample type:
// an allocation made less than once in a hundred ops is set-up, not the op.
var minGrowth = map[string]float64{SampleAllocSpace: 1, SampleAllocObjects: 0.01}

// DiffProfiles compares the cost per op of sampleType ("cpu",
// "alloc_space", "alloc_objects", any sample type the profiles have) per
// function: each profile's values divided by the op count of its run
// (baseOps, headOps, both > 0). It returns the top functions whose flat or
// cum cost per op grew, ranked by the growth of flat cost per op (what the
// function itself spends), then of cum cost, then by name; so a function
// that got slower is named even when its share of the profile stayed the
// same. Left out: samples with a runtime/pprof frame (the profiler's own
// work and allocations), functions on the bookkeeping list (the testing
// harness, the scheduler, thread and goroutine set-up), compress/flate and
// compress/gzip when both sides have them (the profiler compresses its
// output), and rises below a noise floor: two CPU samples' worth per op
// (2 x the profile's period / headOps) for CPU time, 1 B/op and 0.01
// objects/op for allocations.
func DiffProfiles(base, head *profile.Profile, sampleType string, baseOps, headOps int64, top int) ([]FuncCost, error) {
	if baseOps <= 0 || headOps <= 0 {
		return nil, fmt.Errorf("no op count for the profiles (base %d, head %d)", baseOps, headOps)
	}
	bs, err := costs(base, sampleType, baseOps)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	hs, err := costs(head, sampleType, headOps)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	floor := minGrowth[sampleType]
	if sampleType == SampleCPU && head.PeriodType != nil && head.PeriodType.Type == SampleCPU && head.Period > 0 {
		floor = 2 * float64(head.Period) / float64(headOps) // two CPU samples: less is sampling noise
	}
	var out []FuncCost
	for name, h := range hs {
		b, inBase := bs[name]
		if isBookkeeping(name) || (inBase && matchAny(name, sharedBookkeeping)) {
			continue
		}
		f := FuncCost{Func: name, BaseFlat: b[0], HeadFlat: h[0], BaseCum: b[1], HeadCum: h[1]}
		if (f.FlatGrowth() > 0 && f.FlatGrowth() >= floor) || (f.CumGrowth() > 0 && f.CumGrowth() >= floor) {
			out = append(out, f)
		}
	}
	sortFuncCosts(out)
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out, nil
}

// costs returns, per function name, its flat and cum value of sampleType
// per op, leaving out the profiler's own samples.
func costs(p *profile.Profile, sampleType string, ops int64) (map[string][2]float64, error) {
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == sampleType {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("no sample type %q in the profile", sampleType)
	}
	sums := map[string][2]int64{}
	for _, s := range p.Sample {
		if profilerSample(s) {
			continue
		}
		v := s.Value[idx]
		seen := map[string]bool{}
		for i, loc := range s.Location {
			for j, line := range loc.Line {
				name := funcName(line)
				c := sums[name]
				if i == 0 && j == 0 {
					c[0] += v
				}
				if !seen[name] {
					seen[name] = true
					c[1] += v
				}
				sums[name] = c
			}
		}
	}
	out := make(map[string][2]float64, len(sums))
	for name, c := range sums {
		out[name] = [2]float64{float64(c[0]) / float64(ops), float64(c[1]) / float64(ops)}
	}
	return out, nil
}

func funcName(l profile.Line) string {
	if l.Function == nil {
		return "?"
	}
	return l.Function.Name
}

// profilerSample reports whether a sample has a runtime/pprof frame: the
// profiler writing (and compressing) its profile, not the benchmark.
func profilerSample(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if strings.HasPrefix(funcName(l), "runtime/pprof.") {
				return true
			}
		}
	}
	return false
}

// DiffProfileFiles reads the profiles Run captured and compares each pair
// (CPU time by "cpu"; bytes and objects allocated by "alloc_space" and
// "alloc_objects" of the allocation profile), top functions each, per op of
// each side's profiling run. A pair that cannot be read yields a
// ProfileDiff with Err set (naming files by their base name only), not an
// error: the profiles explain a regression, they do not decide it.
func DiffProfileFiles(files []ProfileFiles, top int) []ProfileDiff {
	var out []ProfileDiff
	for _, f := range files {
		for _, pair := range []struct{ typ, base, head string }{
			{SampleCPU, f.BaseCPU, f.HeadCPU}, {SampleAllocSpace, f.BaseMem, f.HeadMem}, {SampleAllocObjects, f.BaseMem, f.HeadMem},
		} {
			d := ProfileDiff{Benchmark: f.Benchmark, SampleType: pair.typ}
			funcs, err := diffFiles(pair.base, pair.head, pair.typ, f.BaseOps, f.HeadOps, top)
			if err != nil {
				d.Err = err.Error()
			}
			d.Funcs = funcs
			out = append(out, d)
		}
	}
	return out
}

var errNotCaptured = errors.New("not captured")

func diffFiles(basePath, headPath, typ string, baseOps, headOps int64, top int) ([]FuncCost, error) {
	if basePath == "" || headPath == "" {
		return nil, errNotCaptured
	}
	b, err := readProfile(basePath)
	if err != nil {
		return nil, err
	}
	h, err := readProfile(headPath)
	if err != nil {
		return nil, err
	}
	return DiffProfiles(b, h, typ, baseOps, headOps, top)
}

// MaxProfileBytes bounds a profile readProfile reads (a pprof file is
// gzipped protobuf: a benchmark's CPU or allocation profile is well under a
// few MiB).
const MaxProfileBytes = 256 << 20

func readProfile(path string) (*profile.Profile, error) {
	f, err := openInput(path, MaxProfileBytes)
	if err != nil {
		if errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: cannot open", filepath.Base(path))
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return p, nil
}

// sampleUnit is the benchmark unit that measures what a sample type
// counts: B/op for bytes allocated, allocs/op for objects ("" for others).
func sampleUnit(sampleType string) string {
	switch sampleType {
	case SampleAllocSpace:
		return "B/op"
	case SampleAllocObjects:
		return "allocs/op"
	}
	return ""
}

// AddProfiles adds the profile comparisons to the report, leaving out an
// allocation comparison (bytes or objects allocated) of a benchmark whose
// own row of that unit (B/op, allocs/op) did not grow: the profiles sample
// allocations, and a benchmark whose B/op read 0 -> 0 must not be said to
// have got slower in bytes allocated. A benchmark without such a row (run
// without -benchmem) keeps its comparison; CPU and other sample types are
// always kept.
func (r *Report) AddProfiles(diffs ...ProfileDiff) {
	for _, d := range diffs {
		if unit := sampleUnit(d.SampleType); unit != "" {
			if row := r.row(Key{d.Benchmark, unit}); row != nil && !r.grew(row) {
				continue
			}
		}
		r.Profiles = append(r.Profiles, d)
	}
}

// row returns the report's row of k, or nil.
func (r *Report) row(k Key) *Row {
	for i := range r.Rows {
		if r.Rows[i].Key == k {
			return &r.Rows[i]
		}
	}
	return nil
}

// grew reports whether a row's head value rose from its base value: any
// rise of an exact row, a significant one (p < Alpha) of a timed row.
func (r *Report) grew(row *Row) bool {
	return row.Head > row.Base && (row.Exact || row.P < r.Options.Alpha)
}

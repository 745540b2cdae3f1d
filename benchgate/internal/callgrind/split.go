package callgrind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The functions of the testing package whose entries split one process's
// counts into its benchmarks' calls (MeasureLeaves). Each call of a
// benchmark function is one testing.(*B).runN: runtime.GC, then resetRaces
// (which, below the root, enters the parent's checkRaces), then ResetTimer,
// the benchmark function (whose own ResetTimer, if it calls one, ends its
// set-up), StopTimer and the cleanups, then checkRaces in runN's deferred
// function.
const (
	triggerReset = "testing.(*common).resetRaces"
	triggerCheck = "testing.(*common).checkRaces"
	triggerTimer = "testing.(*B).ResetTimer"
)

// MaxParts bounds the dump files one MeasureLeaves run may leave (a leaf
// makes five, each parent three): past it the run is ErrTooLarge.
const MaxParts = 1 << 14

// ErrNoSplit: a MeasureLeaves run whose dumps do not split into two calls of
// each leaf, in the order its result lines name them (a benchmark that
// drives its own op count with b.Loop makes one call; a testing package
// whose internals differ makes none). The caller measures each leaf with
// MeasureFuncs instead.
var ErrNoSplit = errors.New("callgrind: the run's dumps do not split into its benchmarks' calls")

// MeasureLeaves measures every leaf benchmark that the -test.bench pattern
// bench selects in bin in one callgrind run, at n+1 ops: the testing
// package calls each leaf's function at N=1 (its probe) and then at N=n+1,
// and dumps at the entries of the functions above split the counts per
// call. A leaf's figures are the difference of its two calls' timed parts
// (from its last ResetTimer to the end of the call) over the n ops between
// them: set-up before ResetTimer, runtime.GC and the testing package's
// bookkeeping fall outside the parts, and what the two calls share (timer
// reads, a metric report) cancels. leaves are the names bench selects, in
// the order the benchmark prints them; the result is keyed by them.
//
// A run that printed other leaves, or whose dumps do not give two calls of
// each with the same number of ResetTimer parts, is ErrNoSplit; a run that
// failed is ErrBadRun, as Measure's.
func (r Runner) MeasureLeaves(ctx context.Context, bin, bench string, leaves []string, n int) (map[string]Measurement, error) {
	if n < 1 {
		return nil, fmt.Errorf("callgrind: op count %d: want at least 1", n)
	}
	dir, err := os.MkdirTemp(r.TmpDir, "callgrind-split-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	opts := []string{"--callgrind-out-file=" + filepath.Join(dir, "out")}
	for _, fn := range []string{triggerReset, triggerCheck, triggerTimer} {
		opts = append(opts, "--dump-before="+fn)
	}
	stdout, err := r.valgrind(ctx, bin, bench, n+1, opts, "-test.bench="+bench, "-test.benchtime="+strconv.Itoa(n+1)+"x")
	if err != nil {
		return nil, err
	}
	want := make([]string, len(leaves))
	for i, l := range leaves {
		want[i] = TrimProcs(l)
	}
	if got := resultNames(stdout); !slices.Equal(got, want) {
		return nil, fmt.Errorf("%w: the run printed %q, want %q", ErrNoSplit, got, want)
	}
	parts, err := readParts(dir, r.Inlines)
	if err != nil {
		return nil, err
	}
	return pairCalls(callsOf(parts), leaves, n)
}

// readParts reads the numbered dump files out.1, out.2, ... of dir in
// order, each bounded as ParseProfile bounds it; the file of the program's
// end (out, unnumbered) is not needed.
func readParts(dir string, inl *Inlines) ([]*Profile, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	ents, err := d.ReadDir(MaxParts + 2) // the parts, the end's file, and one to see the limit passed
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(ents) > MaxParts+1 {
		return nil, fmt.Errorf("%w: over %d dump files", ErrTooLarge, MaxParts)
	}
	var nums []int
	for _, e := range ents {
		if v, ok := strings.CutPrefix(e.Name(), "out."); ok {
			if k, err := strconv.Atoi(v); err == nil && e.Type().IsRegular() {
				nums = append(nums, k)
			}
		}
	}
	slices.Sort(nums)
	parts := make([]*Profile, 0, len(nums))
	for _, k := range nums {
		p, err := readProfile(filepath.Join(dir, "out."+strconv.Itoa(k)), inl)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// readProfile reads one callgrind output file (ParseProfileInlined with
// inl); an error names the file.
func readProfile(path string, inl *Inlines) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ParseProfileInlined(f, inl)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return p, nil
}

// call is one leaf call found in the dumps: its timed part and how many
// ResetTimer parts came before it.
type call struct {
	timed  *Profile
	timers int
}

// callsOf finds the leaf calls in a run's parts, in order. A call starts
// with the part ended by checkRaces right after the one ended by resetRaces
// (resetRaces entering the parent's checkRaces), goes on through parts
// ended by ResetTimer (runN's own, then the benchmark's), and ends with a
// part ended by checkRaces (runN's deferred one): that last part is its
// timed part. A start followed by another resetRaces is a parent's call
// (its children run inside it) and is not one.
func callsOf(parts []*Profile) []call {
	var calls []call
	for i := 1; i < len(parts); i++ {
		if parts[i].Trigger != triggerCheck || parts[i-1].Trigger != triggerReset {
			continue
		}
		j := i + 1
		for j < len(parts) && parts[j].Trigger == triggerTimer {
			j++
		}
		if j < len(parts) && j > i+1 && parts[j].Trigger == triggerCheck {
			calls = append(calls, call{timed: parts[j], timers: j - i - 1})
			i = j
		}
	}
	return calls
}

// pairCalls takes two calls per leaf, the probe (1 op) then the measured
// call (n+1 ops), and returns each leaf's per-op figures over the n ops
// between them.
func pairCalls(calls []call, leaves []string, n int) (map[string]Measurement, error) {
	if len(calls) != 2*len(leaves) {
		return nil, fmt.Errorf("%w: %d calls found for %d leaves (want 2 each)", ErrNoSplit, len(calls), len(leaves))
	}
	out := make(map[string]Measurement, len(leaves))
	for i, leaf := range leaves {
		lo, hi := calls[2*i], calls[2*i+1]
		if lo.timers != hi.timers {
			return nil, fmt.Errorf("%w: %s: its calls have %d and %d ResetTimer parts", ErrNoSplit, leaf, lo.timers, hi.timers)
		}
		per, err := Diff(lo.timed.Counts, hi.timed.Counts, 1, n+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", leaf, err)
		}
		funcs, err := FuncDiff(lo.timed, hi.timed, 1, n+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", leaf, err)
		}
		out[leaf] = Measurement{PerOp: per, Funcs: funcs}
	}
	return out, nil
}

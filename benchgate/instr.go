package benchgate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writegc/writegc/benchgate/internal/callgrind"
)

// Measure says how Run measures the benchmarks.
type Measure string

// Measures.
const (
	// MeasureWall runs the benchmark binaries natively and keeps what they
	// print (ns/op and every other unit): the default ("" means it too).
	MeasureWall Measure = "wall"
	// MeasureInstructions runs each leaf benchmark under valgrind's callgrind
	// tool with cache simulation at a fixed op count and records the per-op
	// units UnitInstructions, UnitD1Misses, UnitLLMisses and UnitEstCycles
	// (see InstructionUnits).
	MeasureInstructions Measure = "instructions"
)

// ParseMeasure reads a -measure value: "wall" or "instructions".
func ParseMeasure(s string) (Measure, error) {
	switch m := Measure(s); m {
	case MeasureWall, MeasureInstructions:
		return m, nil
	}
	return "", fmt.Errorf("%w: measure %q: want %s or %s", errBadOption, s, MeasureWall, MeasureInstructions)
}

// The per-op units of MeasureInstructions, as written in base.txt and
// head.txt.
const (
	UnitInstructions = callgrind.UnitInstructions // instructions executed
	UnitD1Misses     = callgrind.UnitD1Misses     // first-level data-cache misses, reads and writes
	UnitLLMisses     = callgrind.UnitLLMisses     // last-level misses, instruction and data
	// UnitEstCycles is Ir + 10·(I1mr + D1mr + D1mw) + 100·(ILmr + DLmr + DLmw):
	// one cycle an instruction, ten a first-level miss, a hundred a
	// last-level miss (callgrind's own weights).
	UnitEstCycles = callgrind.UnitEstCycles
)

// InstructionUnits are the documented default gates of the instruction
// units: the one place they are set. Run writes them into both outputs as
// `Unit NAME better=lower gate=...` metadata lines, leaving out any key the
// RunConfig.Preamble already sets for that unit (so a -units file overrides
// them), and Compare applies them like any unit's gate= (which takes
// precedence over a calibrated thresholds file).
//
// Why these amounts. At a fixed op count and GOMAXPROCS=1, what varies
// between runs is the runtime's work whose cost does not grow with the op
// count and whose timing depends on the clock: a GC cycle that starts in one
// of the two runs and not in the other, the scavenger returning memory. A
// larger op count dilutes it. Measured here: a 14,000-instruction compute
// loop at 2,000 ops (28 million instructions in the difference) within a
// 0.3% range over ten runs; the synthetic benchmark (1,100 instructions an
// op, a 2 MiB chunk per call) within 2% at 20,000 ops and 0.17% at 200,000;
// allocation-heavy loops vary by about 1-2% (GC pacing). The gate set puts
// over 100 million instructions into each difference. 1% for
// instructions/op is above the noise of such counts, and with p < Alpha
// needed as well a 2% change is caught. est-cycles/op adds the miss counts
// weighted 10 and 100 and carries their noise: 2% (writegc's Alloc line, an
// A/A run of identical commits: instructions +0.44%, est-cycles +1.18%). Miss counts come from
// a cache model fed a heap whose layout varies with the same pacing, and a
// count near zero per op (a compute loop's 0.1 misses) moves by tens of
// percent from run to run: 5% and at least half a miss per op, so that one
// added miss per op is caught and noise on a tiny count is not.
var InstructionUnits = []struct{ Unit, Gate string }{
	{UnitInstructions, "1%"},
	{UnitEstCycles, "2%"},
	{UnitD1Misses, "5%,0.5pt"},
	{UnitLLMisses, "5%,0.5pt"},
}

// DefaultInstructionOps is the op count of instruction mode for a target
// without a fixed count (Nx) of its own or in RunConfig.Benchtime.
const DefaultInstructionOps = 1000

// DefaultInstructionCount is the number of rounds that suits instruction
// mode (the CLI's default there): with full separation the U test reaches
// p = 2/C(10,5) ≈ 0.008 < 0.01 at five rounds a side.
const DefaultInstructionCount = 5

// MaxJobs bounds RunConfig.Jobs.
const MaxJobs = 64

// instrOps is the op count of one instruction-mode measurement: the
// target's fixed count, else RunConfig's, else DefaultInstructionOps. A
// duration is refused by validate.
func instrOps(targetBT, cfgBT string) int {
	for _, bt := range []string{targetBT, cfgBT} {
		if n, ok := strings.CutSuffix(bt, "x"); ok && bt != "" {
			if v, err := strconv.Atoi(n); err == nil {
				return v
			}
		}
	}
	return DefaultInstructionOps
}

// checkInstrBenchtime refuses a duration benchtime in instruction mode: the
// op count must be the same on both sides and in every round, and a duration
// under valgrind (tens of times slower) would run a handful of ops.
func checkInstrBenchtime(what, bt string) error {
	if bt == "" || strings.HasSuffix(bt, "x") {
		return nil
	}
	return fmt.Errorf("%w: %s %q: instruction mode needs a fixed op count (Nx), not a duration", errBadOption, what, bt)
}

// instrJobs is the number of callgrind runs Run lets run at once.
func (c RunConfig) instrJobs() int {
	if c.Jobs > 0 {
		return c.Jobs
	}
	return max(1, min(2, runtime.GOMAXPROCS(0)))
}

// instrPreamble returns the `Unit` lines of InstructionUnits that preamble
// does not already set, key by key.
func instrPreamble(preamble string) string {
	set := map[string]bool{} // unit + "\x00" + key
	for _, line := range strings.Split(preamble, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "Unit" {
			continue
		}
		for _, kv := range f[2:] {
			if k, _, ok := strings.Cut(kv, "="); ok {
				set[f[1]+"\x00"+k] = true
			}
		}
	}
	var b strings.Builder
	for _, u := range InstructionUnits {
		var kvs []string
		if !set[u.Unit+"\x00better"] {
			kvs = append(kvs, "better=lower")
		}
		if !set[u.Unit+"\x00gate"] {
			kvs = append(kvs, "gate="+u.Gate)
		}
		if len(kvs) > 0 {
			fmt.Fprintf(&b, "Unit %s %s\n", u.Unit, strings.Join(kvs, " "))
		}
	}
	return b.String()
}

// valgrindVersion is the first line of `valgrind --version`, or "".
func valgrindVersion(ctx context.Context, vg string) string {
	if vg == "" {
		vg = "valgrind"
	}
	out, err := execOut(ctx, vg, "--version")
	if err != nil {
		return ""
	}
	return firstLine(strings.TrimSpace(out))
}

// configLines keeps the goos, goarch, pkg and cpu lines a listing run prints
// (at most a few KiB), for instruction mode's outputs.
type configLines struct{ buf bytes.Buffer }

func (c *configLines) Write(p []byte) (int, error) {
	c.buf.Write(p)
	if c.buf.Len() > 64<<10 { // keep the head only: the config lines come first
		c.buf.Truncate(64 << 10)
	}
	return len(p), nil
}

func (c *configLines) String() string {
	var b strings.Builder
	for _, line := range strings.Split(c.buf.String(), "\n") {
		for _, k := range []string{"goos:", "goarch:", "pkg:", "cpu:"} {
			if strings.HasPrefix(line, k) {
				b.WriteString(line + "\n")
			}
		}
	}
	return b.String()
}

// listLeaves runs every binary of s natively once (-test.benchtime 1x, the
// instruction mode's environment) and records its leaf benchmarks (the names
// of its result lines) and the configuration lines it printed.
func (s *side) listLeaves(ctx context.Context, cfg RunConfig) error {
	args := []string{"-test.run", "^$", "-test.count", "1", "-test.timeout", cfg.Timeout.String(), "-test.benchtime", "1x"}
	for _, k := range s.order {
		b := s.bins[k]
		lb := *b
		lb.benchtime = "" // the listing runs one op, whatever the target's count
		var conf configLines
		lines, err := lb.run(ctx, cfg, args, append(slices.Clone(s.binEnv(b)), callgrind.Env...), &conf)
		if err != nil {
			return fmt.Errorf("%s: listing the benchmarks: %w", s.name, err)
		}
		b.leaves = b.leaves[:0]
		for _, l := range lines {
			b.leaves = append(b.leaves, l.name)
		}
		b.config = conf.String()
	}
	return nil
}

// instrTask is one round's callgrind measurement of one binary of a side:
// every leaf in one run (callgrind.Runner.MeasureLeaves), or, where that
// does not split, each leaf in two runs of its own (MeasureFuncs).
type instrTask struct {
	s     *side
	b     *binary
	inl   *callgrind.Inlines // b's inlined calls, for the per-function counts; nil for none
	n     int                // the op count measured (the difference of two calls or runs)
	res   map[string]callgrind.PerOp
	funcs map[string]map[string]callgrind.FuncPerOp
	runs  int    // callgrind processes it ran
	note  string // why the one-run measurement fell back, if it did
}

// runInstrRounds is runRounds for MeasureInstructions: it lists the leaves,
// then in each round measures every binary of both sides under callgrind, at
// most instrJobs at once (the counts do not depend on timing, so base and
// head may share the machine), and writes one result line per leaf and side.
func runInstrRounds(ctx context.Context, cfg RunConfig, res *RunResult, tmp string, base, head *side) error {
	for _, s := range []*side{base, head} {
		if err := s.listLeaves(ctx, cfg); err != nil {
			return err
		}
	}
	order := orderedKeys(base, head)
	res.instrFuncs = newInstrFuncs()
	if err := checkLeaves(cfg, res, order, base, head); err != nil {
		return err
	}
	inl := readInlines(cfg, base, head)
	for round := 1; round <= cfg.Count; round++ {
		start := time.Now()
		sides := []*side{base, head}
		if round%2 == 0 {
			sides = []*side{head, base}
		}
		var tasks []*instrTask
		for _, k := range order {
			for _, s := range sides {
				if b := s.bins[k]; b != nil && len(b.leaves) > 0 {
					tasks = append(tasks, &instrTask{s: s, b: b, inl: inl[b]})
				}
			}
		}
		if err := measureAll(ctx, cfg, tmp, tasks); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		for _, s := range []*side{base, head} {
			if err := writeInstr(s, order, tasks); err != nil {
				return err
			}
		}
		runs := 0
		for _, t := range tasks {
			for _, leaf := range t.b.leaves {
				res.instrFuncs.add(t.s.name, leaf, t.funcs[leaf])
			}
			runs += t.runs
			if t.note != "" {
				fmt.Fprintf(cfg.Log, "benchgate: %s\n", t.note)
			}
		}
		fmt.Fprintf(cfg.Log, "benchgate: round %d/%d done in %v (%d callgrind runs, %d at once)\n",
			round, cfg.Count, time.Since(start).Round(time.Millisecond), runs, cfg.instrJobs())
	}
	return nil
}

// readInlines reads the inlined calls of every binary with leaves, when
// the per-function comparison will be made (cfg.ProfileSelect), so that it
// names a function inlined into another as the developer wrote it; a binary
// without them (no DWARF) is named in the log and compared by the functions
// callgrind sees.
func readInlines(cfg RunConfig, sides ...*side) map[*binary]*callgrind.Inlines {
	out := map[*binary]*callgrind.Inlines{}
	if cfg.ProfileSelect == nil {
		return out
	}
	for _, s := range sides {
		for _, k := range s.order {
			b := s.bins[k]
			if b == nil || len(b.leaves) == 0 {
				continue
			}
			inl, err := callgrind.ReadInlines(b.path)
			if err != nil {
				fmt.Fprintf(cfg.Log, "benchgate: %s %s: functions inlined into others are counted in them (%v)\n", s.name, b.importPath, err)
				continue
			}
			out[b] = inl
		}
	}
	return out
}

// checkLeaves notes a head binary whose pattern matched no benchmark and
// refuses a run with nothing to measure.
func checkLeaves(cfg RunConfig, res *RunResult, order []string, base, head *side) error {
	baseN, headN := 0, 0
	for _, k := range order {
		if b := base.bins[k]; b != nil {
			baseN += len(b.leaves)
		}
		if b := head.bins[k]; b != nil {
			headN += len(b.leaves)
			if len(b.leaves) == 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("head: %s -test.bench %q matched no benchmark", b.importPath, b.bench))
			}
		}
	}
	if headN == 0 {
		return fmt.Errorf("head: %w (none of the selected benchmarks ran)", ErrNoBenchmarks)
	}
	if cfg.AllowEmptyBase && baseN == 0 {
		return ErrBaseEmpty
	}
	return nil
}

// measureAll runs the tasks, at most cfg.instrJobs() at once; the first
// error stops the others.
func measureAll(ctx context.Context, cfg RunConfig, tmp string, tasks []*instrTask) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, cfg.instrJobs())
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for _, t := range tasks {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := t.measure(ctx, cfg, tmp); err != nil {
				once.Do(func() { first = err; cancel(err) })
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return first
}

// measure runs the task's measurement: every leaf of its binary in one
// callgrind run, bounded by cfg.Timeout for each leaf; where that run does
// not split into the leaves' calls (callgrind.ErrNoSplit: a b.Loop
// benchmark, another testing package) or fails, each leaf in two runs of
// its own, each bounded by cfg.Timeout, which name a failing leaf. A binary
// that did not split once is measured leaf by leaf from then on.
func (t *instrTask) measure(ctx context.Context, cfg RunConfig, tmp string) error {
	r := callgrind.Runner{Valgrind: cfg.Valgrind, Dir: t.b.dir, TmpDir: tmp,
		Env: childEnv(ctx, t.s.binEnv(t.b)...), MaxOutput: cfg.MaxOutput, Inlines: t.inl}
	t.n = instrOps(t.b.benchtime, cfg.Benchtime)
	t.res = make(map[string]callgrind.PerOp, len(t.b.leaves))
	t.funcs = make(map[string]map[string]callgrind.FuncPerOp, len(t.b.leaves))
	if !t.b.noSplit {
		mctx, cancel := context.WithTimeout(ctx, cfg.Timeout*time.Duration(len(t.b.leaves)))
		ms, err := r.MeasureLeaves(mctx, t.b.path, t.b.bench, t.b.leaves, t.n)
		timedOut := mctx.Err() != nil
		cancel()
		t.runs++
		switch {
		case err == nil:
			for leaf, m := range ms {
				t.res[leaf], t.funcs[leaf] = m.PerOp, m.Funcs
			}
			return nil
		case ctx.Err() != nil:
			return fmt.Errorf("%s %s at %dx: %w", t.s.name, t.b.importPath, t.n, context.Cause(ctx))
		case errors.Is(err, callgrind.ErrOutputTooLarge):
			return fmt.Errorf("%w: %s %s: %v (raise RunConfig.MaxOutput, benchgate run -max-output-mib)", ErrOutputTooLarge, t.s.name, t.b.importPath, err)
		case timedOut:
			return fmt.Errorf("%w: %s %s at %dx: ran past the timeout of %v for %d leaves", ErrBenchFailed,
				t.s.name, t.b.importPath, t.n, cfg.Timeout*time.Duration(len(t.b.leaves)), len(t.b.leaves))
		case errors.Is(err, callgrind.ErrNoSplit):
			t.b.noSplit = true
		}
		t.note = fmt.Sprintf("%s %s: one callgrind run for its %d leaves did not give each leaf's calls (%v); measuring each leaf in two runs of its own",
			t.s.name, t.b.importPath, len(t.b.leaves), firstLine(err.Error()))
	}
	for _, leaf := range t.b.leaves {
		m, err := t.measureLeaf(ctx, cfg, r, leaf)
		if err != nil {
			return err
		}
		t.res[leaf], t.funcs[leaf] = m.PerOp, m.Funcs
	}
	return nil
}

// measureLeaf measures one leaf in two callgrind runs of its own, bounded by
// cfg.Timeout.
func (t *instrTask) measureLeaf(ctx context.Context, cfg RunConfig, r callgrind.Runner, leaf string) (callgrind.Measurement, error) {
	mctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	n := t.n
	m, err := r.MeasureFuncs(mctx, t.b.path, leaf, n)
	t.runs += 2
	switch {
	case err != nil && ctx.Err() != nil: // cancelled from outside, or by another task's failure
		return m, fmt.Errorf("%s %s at %dx: %w", t.s.name, leaf, n, context.Cause(ctx))
	case errors.Is(err, callgrind.ErrOutputTooLarge):
		return m, fmt.Errorf("%w: %s %s: %v (raise RunConfig.MaxOutput, benchgate run -max-output-mib)", ErrOutputTooLarge, t.s.name, leaf, err)
	case err != nil && mctx.Err() != nil:
		return m, fmt.Errorf("%w: %s %s at %dx: ran past the timeout of %v", ErrBenchFailed, t.s.name, leaf, n, cfg.Timeout)
	case err != nil:
		return m, fmt.Errorf("%w: %s %s at %dx: %v", ErrBenchFailed, t.s.name, leaf, n, err)
	}
	return m, nil
}

// writeInstr appends side s's results of a round to its output: each
// binary's configuration lines, then a line per leaf.
func writeInstr(s *side, order []string, tasks []*instrTask) error {
	var buf bytes.Buffer
	for _, k := range order {
		b := s.bins[k]
		if b == nil {
			continue
		}
		buf.WriteString(b.config)
		for _, t := range tasks {
			if t.b == b {
				for _, leaf := range b.leaves {
					writeInstrLine(&buf, leaf, t.n, t.res[leaf])
				}
				s.record(b.leaves, b)
			}
		}
	}
	_, err := s.out.Write(buf.Bytes())
	return err
}

// writeInstrLine writes one benchfmt result line of the instruction units.
// n is the op count of the measured difference (callgrind.Runner.Measure).
func writeInstrLine(w io.Writer, name string, n int, r callgrind.PerOp) {
	fmt.Fprintf(w, "%s\t%d", name, n)
	for _, u := range callgrind.Units {
		fmt.Fprintf(w, "\t%s %s", strconv.FormatFloat(r[u], 'g', 10, 64), u)
	}
	fmt.Fprintln(w)
}

package benchgate

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
	"time"

	"github.com/writegc/writegc/benchgate/internal/callgrind"
	"github.com/writegc/writegc/internal/oskit"
)

// benchWaitDelay bounds how long a benchmark binary's pipes are waited for
// once it exited or was killed: its own process group is killed then
// (internal/oskit), so only a grandchild that left the group (setsid)
// can hold them this long.
const benchWaitDelay = 10 * time.Second

// timeoutGrace is how long past RunConfig.Timeout a benchmark binary that
// its own -test.timeout did not end is killed.
const timeoutGrace = 30 * time.Second

// Target is one package pattern (as `go list` takes it: "./arena", "./...")
// and the -test.bench regexp to run in the packages it names.
//
// HeadEnv is added to the environment of the head's runs of this target only
// (after RunConfig.HeadEnv): calibration slows each benchmark by its own
// amount this way. A package and regexp listed twice keep the first
// target's HeadEnv and Benchtime.
//
// Benchtime, when not empty, replaces RunConfig.Benchtime for this target's
// runs on both sides. A fixed count ("200000x") is what a benchmark whose
// cost per op depends on b.N needs (one that refills or replaces a table
// every so many ops): with a duration, a slower head runs fewer ops, so a
// different mix of them, and the two sides are no longer measuring the same
// work.
type Target struct {
	Pkg       string
	Bench     string
	HeadEnv   []string
	Benchtime string
}

// RunConfig configures Run. Only Base is required. A RunConfig is read, never
// modified, by Run. Its values that reach a header line of the outputs, git
// or the go command are checked first (errBadOption): no control
// character, no package or revision starting with '-' (see CheckText).
type RunConfig struct {
	// Dir is any directory inside the git repository; "" means ".".
	Dir string
	// Base is the git revision to compare against (required), or BaseAuto
	// ("auto") to let AutoBase choose it. It is checked out in a temporary
	// `git worktree`, removed when Run returns.
	Base string
	// Head is the git revision under test; "" means the working tree of Dir
	// as it is, uncommitted changes included.
	Head string
	// Targets are the packages and benchmarks to run; when empty, every
	// package of Pkgs (default "./...") with the regexp Bench (default ".").
	Targets []Target
	Pkgs    []string
	Bench   string
	// Count is the number of rounds: 0 means 10, at most MaxCount. Every round runs each
	// target once in base and once in head, with -test.count 1, back to back;
	// odd rounds run base first, even rounds head first (ABBA order), so that
	// neither side systematically runs right after the other's process or
	// into the same phase of a periodic disturbance.
	Count int
	// Benchtime is passed as -test.benchtime when not empty ("100ms", "5000x").
	Benchtime string
	// Benchmem adds -test.benchmem (B/op and allocs/op).
	Benchmem bool
	// Tags are build tags for both sides; HeadTags are added for the head only
	// (calibration builds the head with "gateslow").
	Tags, HeadTags string
	// BaseEnv and HeadEnv are each side's environment: K=V entries added
	// to the environment of the side's go commands (go list, go test -c,
	// go env: GOEXPERIMENT, GOTOOLCHAIN, GOAMD64, GOFLAGS change the binary
	// built) and of its benchmark binaries ("WRITEGC_SLOWDOWN_SPINS=...").
	// The runtime's own variables (GOGC, GOMEMLIMIT, GOMAXPROCS, GODEBUG,
	// GOTRACEBACK) go to the binaries only. Nil is the current environment.
	// The same commit built in two environments compares them: both
	// outputs carry an `env:` line for a side that has one (ConfigEnv) and
	// a `goexperiment:` line for a side built with experiments, and
	// Compare lets the machine keys the compared variables set differ (Go
	// version with GOTOOLCHAIN, goamd64 with GOAMD64; see Compare). Each
	// entry must be K=V, a key given once (CheckEnv; errBadEnv). A side's
	// environment the go command refuses (an unknown GOEXPERIMENT, a
	// toolchain it cannot fetch) fails before anything is built or
	// written, with ErrBuild naming the side and its environment.
	BaseEnv, HeadEnv []string
	// OutDir receives base.txt and head.txt (created if needed); "" means a
	// new temporary directory (benchgate-out-*), which Run leaves in place
	// for the caller to read and RunResult.RemoveTempOutput removes.
	OutDir string
	// Preamble is written at the top of both output files, typically `Unit
	// NAME better=...` lines.
	Preamble string
	// AllowEmptyBase makes Run stop with ErrBaseEmpty (and no other error)
	// as soon as the first base round shows no matching benchmark, so that a
	// gate can skip a base that predates its benchmarks. It also makes a base
	// package that does not build a note instead of an error (its benchmarks
	// are then absent from the base, which is allowed).
	AllowEmptyBase bool
	// Nice, when not 0, runs every benchmark binary under `nice -n Nice`, in
	// [-20, 19]
	// (Linux: a negative value needs root or CAP_SYS_NICE; without it nice
	// warns and the binary runs at normal priority). A negative value makes
	// the benchmarks win the CPU from other work on a shared machine, which
	// is the dominant noise there; both sides get the same priority.
	Nice int
	// Timeout bounds each binary run (-test.timeout); 0 means 10 minutes; a
	// negative value is an error.
	Timeout time.Duration
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// MaxOutput bounds what one run of a benchmark binary may print on its
	// standard output, in bytes; 0 means DefaultMaxOutput (256 MiB), a
	// negative value is an error. The output is streamed to base.txt or
	// head.txt, not held in memory; a run past the limit is stopped and Run
	// fails with ErrOutputTooLarge naming the benchmark and the limit.
	MaxOutput int64
	// ProfileSelect, when not nil, is called with the parsed Sets once all
	// rounds ran; for each benchmark name it returns (as written, at most
	// ProfileMax, default 3), Run runs the benchmark once more in base and in
	// head with -test.cpuprofile and -test.memprofile, into OutDir/profiles
	// (RunResult.Profiles). Both sides run the same op count: that of
	// ProfileBenchtime when it is a count (Nx), else the ops the base's
	// median ns/op fits in that duration (default 1s), so that the profiles'
	// values per op (ProfileFiles.BaseOps, HeadOps) compare. A gate returns
	// its regressed benchmarks. A profile that cannot be taken is a note, not
	// an error.
	ProfileSelect    func(base, head *Set) []string
	ProfileBenchtime string
	ProfileMax       int
	// ConfirmSelect, when not nil, is called with the parsed Sets once all
	// rounds ran; the benchmarks it returns (names as written: a gate
	// returns its regressed ones) are run again before Run returns, in
	// Count fresh interleaved rounds of their own (ABBA, as the first),
	// each benchmark alone with -test.bench anchored to its name, with the
	// binaries already built, into confirm-base.txt and confirm-head.txt
	// beside base.txt and head.txt (RunResult.ConfirmBase, ConfirmHead).
	// Instruction mode reruns them under callgrind the same way. With
	// confirming rounds, ProfileSelect is given their Sets instead of the
	// first rounds': only what regressed again is profiled.
	ConfirmSelect func(base, head *Set) []string
	// Measure is MeasureWall ("" too) or MeasureInstructions. In instruction
	// mode both sides are built as in wall mode; each binary is run natively
	// once (-test.benchtime 1x, GOMAXPROCS=1) to list its leaf benchmarks;
	// then every round measures each leaf of each side with
	// callgrind.Runner.Measure at the target's fixed op count (its Benchtime
	// Nx, else RunConfig.Benchtime's, else DefaultInstructionOps; a duration
	// is errBadOption) and writes a line of the instruction units (see
	// InstructionUnits) per leaf. The outputs carry `measure: instructions`,
	// the valgrind version and the units' default gates. Benchmem and Nice
	// (but for the listing run) do not apply (a note says so); ProfileSelect
	// takes no profiles there but compares callgrind's per-function counts
	// of the rounds (RunResult.FuncDiffs);
	// Timeout bounds each measurement (two callgrind runs). Valgrind missing
	// is ErrNoValgrind.
	Measure Measure
	// Jobs bounds the callgrind runs at once in instruction mode: 0 means
	// min(2, GOMAXPROCS), at most MaxJobs. Each run uses one core (valgrind
	// serialises a process's threads); counts do not depend on timing, so
	// base and head may run side by side.
	Jobs int
	// Valgrind is the valgrind binary of instruction mode; "" means
	// "valgrind" from PATH.
	Valgrind string
	// EnvDrop names more environment variables (names or path.Match globs,
	// compared case-insensitively) to keep from every process Run starts,
	// besides the SecretEnv registry (benchgate run -env-drop).
	EnvDrop []string
}

// MaxCount bounds RunConfig.Count: more rounds are a typo, not a plan.
const MaxCount = 1000

// validate checks the numeric fields (errBadOption).
func (c RunConfig) validate() error {
	switch {
	case c.Base == "":
		return fmt.Errorf("%w: RunConfig.Base is required", errBadOption)
	case c.Count < 0 || c.Count > MaxCount:
		return fmt.Errorf("%w: Count %d: want 0 (for 10) up to %d", errBadOption, c.Count, MaxCount)
	case c.Nice < -20 || c.Nice > 19:
		return fmt.Errorf("%w: Nice %d: want a value in [-20, 19]", errBadOption, c.Nice)
	case c.Timeout < 0:
		return fmt.Errorf("%w: Timeout %v: want 0 (for 10m) or more", errBadOption, c.Timeout)
	case c.MaxOutput < 0:
		return fmt.Errorf("%w: MaxOutput %d: want 0 (for %d) or more", errBadOption, c.MaxOutput, DefaultMaxOutput)
	case c.ProfileMax < 0:
		return fmt.Errorf("%w: ProfileMax %d: want 0 (for 3) or more", errBadOption, c.ProfileMax)
	case c.Jobs < 0 || c.Jobs > MaxJobs:
		return fmt.Errorf("%w: Jobs %d: want 0 (for min(2, GOMAXPROCS)) up to %d", errBadOption, c.Jobs, MaxJobs)
	}
	if c.Measure != "" {
		if _, err := ParseMeasure(string(c.Measure)); err != nil {
			return err
		}
	}
	if err := CheckBenchtime(c.Benchtime); err != nil {
		return fmt.Errorf("%w: Benchtime: %v", errBadOption, err)
	}
	if err := CheckEnvDrop(c.EnvDrop); err != nil {
		return err
	}
	if err := CheckEnv(c.BaseEnv); err != nil {
		return fmt.Errorf("%w: BaseEnv: %w", errBadOption, err)
	}
	if err := CheckEnv(c.HeadEnv); err != nil {
		return fmt.Errorf("%w: HeadEnv: %w", errBadOption, err)
	}
	if err := c.checkText(); err != nil {
		return err
	}
	for _, t := range c.Targets {
		if err := CheckBenchtime(t.Benchtime); err != nil {
			return fmt.Errorf("%w: target %s:%s: Benchtime: %v", errBadOption, t.Pkg, t.Bench, err)
		}
	}
	if c.Measure == MeasureInstructions {
		if err := checkInstrBenchtime("Benchtime", c.Benchtime); err != nil {
			return err
		}
		for _, t := range c.Targets {
			if err := checkInstrBenchtime("target "+t.Pkg+":"+t.Bench+" Benchtime", t.Benchtime); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckBenchtime accepts what -test.benchtime does: a positive duration
// ("100ms") or a positive count written Nx ("5000x"), below 2^31; "" (the
// testing package's default) is accepted too.
func CheckBenchtime(s string) error {
	if s == "" {
		return nil
	}
	if n, ok := strings.CutSuffix(s, "x"); ok {
		if v, err := strconv.ParseUint(n, 10, 31); err == nil && v > 0 {
			return nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return nil
	}
	return fmt.Errorf("%q: want a positive duration (1s) or count (100x)", s)
}

// RunResult is what Run produced: the raw output files and their parse.
type RunResult struct {
	// BaseRev is RunConfig.Base as given ("auto" included); BaseReason says
	// why AutoBase chose BaseCommit ("" when the base was given).
	BaseRev, BaseReason string
	BaseFile, HeadFile  string
	BaseCommit          string
	HeadCommit          string // "<sha>+worktree" when Head is the working tree
	Base, Head          *Set
	// Notes say what was skipped (packages absent from one side, packages
	// without tests, profiles not taken).
	Notes []string
	// Profiles are the profiles taken for ProfileSelect.
	Profiles []ProfileFiles
	outDir   string
	tempOut  bool // outDir was made by Run (RemoveTempOutput removes it)

	// Confirmed lists the benchmarks ConfirmSelect returned, which ran
	// again; ConfirmBaseFile and ConfirmHeadFile are those rounds' outputs
	// and ConfirmBase and ConfirmHead their parse (nil when none ran).
	Confirmed                        []string
	ConfirmBaseFile, ConfirmHeadFile string
	ConfirmBase, ConfirmHead         *Set

	// FuncDiffs are, in instruction mode, the per-function comparisons
	// (SampleInstructions) of the benchmarks ProfileSelect returned.
	FuncDiffs  []ProfileDiff
	instrFuncs *instrFuncs
}

// binary is one built test binary and what to run in it.
type binary struct {
	importPath string
	path       string // the executable
	dir        string // the package directory (the binary's working directory)
	bench      string
	headEnv    []string // the target's extra head environment
	benchtime  string   // the target's -test.benchtime; "" means RunConfig's
	leaves     []string // instruction mode: the leaf benchmarks it runs
	noSplit    bool     // instruction mode: its leaves are measured one by one (callgrind.ErrNoSplit)
	config     string   // instruction mode: the goos/goarch/pkg/cpu lines it printed
}

// side is one tree (base or head) being measured.
type side struct {
	name, tree, commit, tags string
	env                      []string
	bins                     map[string]*binary // by importPath+"\x00"+bench
	order                    []string           // keys of bins in target order
	out                      *os.File
	skipBroken               bool               // a package that does not build is skipped, not an error
	byName                   map[string]*binary // the binary that printed each benchmark name
	log                      io.Writer          // RunConfig.Log: the whole go output of a build that failed in a given environment
}

// Run builds the test binaries of base and head, runs them interleaved round
// by round, writes both raw outputs and parses them. It does not compare: call
// Compare on the returned Sets.
//
// Cleanup: the temporary worktrees and binaries (in a folder named
// benchgate-PID-*, PID being this process) are removed before Run returns,
// also on error, on cancellation (a signal the caller turns into a cancelled
// context) and when a benchmark binary dies (killed by the OOM killer, a
// signal or a crash). A Run that was itself killed cannot clean up; the next
// Run in the same repository removes the worktrees of benchgate-PID-* folders
// whose process no longer exists (Linux; elsewhere they are left) and runs
// `git worktree prune`. The output directory is left in place: when Run made
// it (OutDir empty), RemoveTempOutput removes it. The RunResult is returned
// with the error whenever outputs were opened, so that a caller can clean up.
//
// Children: every process Run starts (git, the go command, the benchmark
// binaries, valgrind) leads a process group of its own that is killed whole
// when its run ends, times out or is cancelled, and gets this process's
// environment without the variables SecretEnv and RunConfig.EnvDrop name
// (see SecretEnv), then the side's and target's additions.
//
// Each output starts with the machine it ran on as configuration lines
// (commit, goversion, goos, goarch, goamd64, gomaxprocs, nproc, kernel; the
// test binaries add cpu; goexperiment when the side builds with
// experiments; env, a side's RunConfig.BaseEnv or HeadEnv, when given), so
// that Compare can refuse to compare across machines. Each binary run's standard output is streamed to its side's
// file, at most MaxOutput bytes a run, and the files are parsed as streams:
// memory grows with the result lines, not with what a benchmark prints.
//
// A worktree whose commit has a .gitmodules gets its submodules with `git
// submodule update --init --recursive`, fetched from the submodules checked
// out in the repository's own working tree where they are (no network).
//
// Errors wrap errBadOption (a RunConfig field out of range), ErrNotGitRepo
// (Dir is outside a git repository), ErrNoBase (Base "auto" found none),
// ErrBuild (worktree, submodules or build), ErrBenchFailed (a binary failed),
// ErrOutputTooLarge (a binary printed more than MaxOutput), ErrBaseEmpty
// (with AllowEmptyBase), or the parse errors of ParseFiles; once ctx is
// done, whatever failed also wraps ctx's cause ("interrupted").
func Run(ctx context.Context, cfg RunConfig) (res *RunResult, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ctx = withChildEnv(ctx, cfg.EnvDrop)
	defer func() {
		if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("interrupted (%w): %v", context.Cause(ctx), err)
		}
	}()
	root, err := git(ctx, cfg.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%w: %s (git rev-parse: %v)", ErrNotGitRepo, absOr(cfg.Dir), err)
	}
	if cfg.Measure == MeasureInstructions {
		if err := (callgrind.Runner{Valgrind: cfg.Valgrind}).Available(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoValgrind, err)
		}
	}
	res = &RunResult{BaseRev: cfg.Base}
	if cfg.Base == BaseAuto {
		if cfg.Base, res.BaseReason, err = AutoBase(ctx, root); err != nil {
			return nil, err
		}
	}
	res.Notes = append(res.Notes, pruneStale(ctx, root)...)
	tmp, err := os.MkdirTemp("", fmt.Sprintf("benchgate-%d-", os.Getpid()))
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	base, head, cleanup, err := checkout(ctx, cfg, root, tmp)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	res.BaseCommit, res.HeadCommit = base.commit, head.commit
	if err := buildSides(ctx, cfg, res, tmp, base, head); err != nil {
		return nil, err
	}
	err = openOutputs(ctx, cfg, res, base, head)
	defer base.out.Close()
	defer head.out.Close()
	if err != nil {
		return res, err
	}
	if cfg.Measure == MeasureInstructions {
		err = runInstrRounds(ctx, cfg, res, tmp, base, head)
	} else {
		err = runRounds(ctx, cfg, res, base, head)
	}
	if err != nil {
		return res, err
	}
	if err := errors.Join(base.out.Close(), head.out.Close()); err != nil {
		return res, err
	}
	var berr, herr error
	res.Base, berr = parseOwn(res.BaseFile, res.tempOut)
	res.Head, herr = parseOwn(res.HeadFile, res.tempOut)
	if err := errors.Join(berr, herr); err != nil {
		return res, err
	}
	return res, afterRounds(ctx, cfg, res, tmp, base, head)
}

// afterRounds runs the confirming rounds of ConfirmSelect's benchmarks,
// then takes the profiles of ProfileSelect's (from the confirming rounds'
// Sets when there were any: what did not regress again is not profiled).
func afterRounds(ctx context.Context, cfg RunConfig, res *RunResult, tmp string, base, head *side) error {
	pb, ph := res.Base, res.Head
	if cfg.ConfirmSelect != nil {
		if names := cfg.ConfirmSelect(res.Base, res.Head); len(names) > 0 {
			if err := confirmRounds(ctx, cfg, res, tmp, base, head, names); err != nil {
				return err
			}
			pb, ph = res.ConfirmBase, res.ConfirmHead
		}
	}
	if cfg.ProfileSelect != nil && cfg.Measure == MeasureInstructions {
		res.FuncDiffs = res.instrFuncs.diffs(cfg.ProfileSelect(pb, ph), cfg.ProfileMax, DefaultProfileTop)
	} else if cfg.ProfileSelect != nil {
		res.Profiles = profileAll(ctx, cfg, res, base, head, cfg.ProfileSelect(pb, ph))
	}
	return nil
}

// buildSides checks that the go command takes each side's environment,
// both before building either, then builds each side's binaries.
func buildSides(ctx context.Context, cfg RunConfig, res *RunResult, tmp string, base, head *side) error {
	for _, s := range []*side{base, head} {
		s.log = cfg.Log
		if err := s.probe(ctx); err != nil {
			return err
		}
	}
	for _, s := range []*side{base, head} {
		if len(s.env) > 0 {
			fmt.Fprintf(cfg.Log, "benchgate: building %s (%s) in env %s\n", s.name, s.commit, FormatEnv(s.env))
		} else {
			fmt.Fprintf(cfg.Log, "benchgate: building %s (%s)\n", s.name, s.commit)
		}
		notes, err := s.build(ctx, cfg.Targets, filepath.Join(tmp, "bin-"+s.name))
		if err != nil {
			return err
		}
		res.Notes = append(res.Notes, notes...)
	}
	return nil
}

// checkout prepares both sides' trees: a worktree of Base, and a worktree of
// Head or the working tree itself. cleanup removes the worktrees made, and
// must be called whatever the error.
func checkout(ctx context.Context, cfg RunConfig, root, tmp string) (base, head *side, cleanup func(), err error) {
	var trees []string
	cleanup = func() {
		for _, t := range trees {
			removeWorktree(root, t)
		}
	}
	base = &side{name: "base", tags: cfg.Tags, env: cfg.BaseEnv, skipBroken: cfg.AllowEmptyBase}
	head = &side{name: "head", tags: joinTags(cfg.Tags, cfg.HeadTags), env: cfg.HeadEnv}
	if base.tree, base.commit, err = worktree(ctx, root, filepath.Join(tmp, "base"), cfg.Base, &trees); err != nil {
		return nil, nil, cleanup, err
	}
	if cfg.Head != "" {
		if head.tree, head.commit, err = worktree(ctx, root, filepath.Join(tmp, "head"), cfg.Head, &trees); err != nil {
			return nil, nil, cleanup, err
		}
		return base, head, cleanup, nil
	}
	head.tree = root
	sha, err := git(ctx, root, "rev-parse", "HEAD")
	if err != nil {
		sha = "none"
	}
	head.commit = sha
	if dirty(ctx, root) {
		head.commit += "+worktree"
	}
	return base, head, cleanup, nil
}

// dirty reports whether the working tree differs from HEAD: a tracked file
// changed or an untracked file that is not ignored (it could be built).
// When git cannot tell, the tree counts as dirty.
func dirty(ctx context.Context, root string) bool {
	out, err := git(ctx, root, "status", "--porcelain", "--untracked-files=normal")
	return err != nil || out != ""
}

// parseOwn parses a file Run wrote. Its size was bounded as it was written
// (MaxOutput per run), so the byte limit is the file's own size; the line
// limit stays. A file of a temporary output directory (temp), which goes at
// exit, is named in messages by its base name ("head.txt:12: ..."), not by
// a path that will not be there to open.
func parseOwn(path string, temp bool) (*Set, error) {
	p := Parser{}
	if fi, err := os.Stat(path); err == nil && fi.Size() > DefaultMaxBytes {
		p.MaxBytes = fi.Size()
	}
	if !temp {
		return p.ParseFiles(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return p.Parse(f, filepath.Base(path))
}

// RemoveTempOutput removes the output directory when Run made it (OutDir
// empty) and clears BaseFile and HeadFile; with an OutDir given it does
// nothing. Read the Sets and profiles first: they are parsed, the profile
// files are not.
func (r *RunResult) RemoveTempOutput() error {
	if r == nil || !r.tempOut || r.outDir == "" {
		return nil
	}
	err := os.RemoveAll(r.outDir)
	r.outDir, r.BaseFile, r.HeadFile, r.tempOut = "", "", "", false
	return err
}

func absOr(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// withDefaults fills in the defaults of a validated RunConfig.
func (c RunConfig) withDefaults() RunConfig {
	if c.Count == 0 {
		c.Count = 10
	}
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Minute
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Dir == "" {
		c.Dir = "."
	}
	if c.ProfileBenchtime == "" {
		c.ProfileBenchtime = "1s"
	}
	if c.ProfileMax == 0 {
		c.ProfileMax = 3
	}
	if c.MaxOutput == 0 {
		c.MaxOutput = DefaultMaxOutput
	}
	if c.Measure == "" {
		c.Measure = MeasureWall
	}
	if len(c.Targets) == 0 {
		pkgs, bench := c.Pkgs, c.Bench
		if len(pkgs) == 0 {
			pkgs = []string{"./..."}
		}
		if bench == "" {
			bench = "."
		}
		for _, p := range pkgs {
			c.Targets = append(c.Targets, Target{Pkg: p, Bench: bench})
		}
	}
	return c
}

// openOutputs creates base.txt and head.txt and writes their headers: the
// commit, the side, the tags, the machine, then the preamble.
func openOutputs(ctx context.Context, cfg RunConfig, res *RunResult, base, head *side) error {
	out := cfg.OutDir
	var err error
	if out == "" {
		if out, err = os.MkdirTemp("", "benchgate-out-"); err != nil {
			return err
		}
		res.outDir, res.tempOut = out, true
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	res.BaseFile, res.HeadFile = filepath.Join(out, "base.txt"), filepath.Join(out, "head.txt")
	res.outDir = out
	return createOutputs(ctx, cfg, res.BaseFile, res.HeadFile, base, head)
}

// createOutputs creates the files basePath and headPath as the sides'
// outputs and writes their headers.
func createOutputs(ctx context.Context, cfg RunConfig, basePath, headPath string, base, head *side) error {
	for _, s := range []*side{base, head} {
		path := basePath
		if s == head {
			path = headPath
		}
		var err error
		if s.out, err = os.Create(path); err != nil {
			return err
		}
		if _, err := io.WriteString(s.out, s.header(ctx, cfg)); err != nil {
			return err
		}
	}
	return nil
}

// header is what an output of the side starts with: the commit, the side,
// the tags, the environment, the machine, then the preamble.
func (s *side) header(ctx context.Context, cfg RunConfig) string {
	var b strings.Builder
	b.WriteString(configLine("commit", s.commit) + configLine("benchgate-side", s.name))
	if s.tags != "" {
		b.WriteString(configLine("tags", s.tags))
	}
	if len(s.env) > 0 {
		b.WriteString(configLine(ConfigEnv, FormatEnv(s.env)))
	}
	env := childEnv(ctx, s.env...)
	if cfg.Measure == MeasureInstructions {
		env = append(env, callgrind.Env...)
	}
	b.WriteString(machineHeader(ctx, s.tree, s.goEnv(), env))
	if cfg.Measure == MeasureInstructions {
		b.WriteString(configLine("measure", string(MeasureInstructions)))
		if v := valgrindVersion(ctx, cfg.Valgrind); v != "" {
			b.WriteString(configLine("valgrind", v))
		}
	}
	b.WriteString(cfg.Preamble)
	if cfg.Preamble != "" && !strings.HasSuffix(cfg.Preamble, "\n") {
		b.WriteString("\n")
	}
	if cfg.Measure == MeasureInstructions {
		b.WriteString(instrPreamble(cfg.Preamble))
	}
	return b.String()
}

// runRounds runs every binary of both sides Count times in ABBA order.
func runRounds(ctx context.Context, cfg RunConfig, res *RunResult, base, head *side) error {
	args := []string{"-test.run", "^$", "-test.count", "1", "-test.timeout", cfg.Timeout.String()}
	if cfg.Benchtime != "" {
		args = append(args, "-test.benchtime", cfg.Benchtime)
	}
	if cfg.Benchmem {
		args = append(args, "-test.benchmem")
	}
	order := orderedKeys(base, head)
	for round := 1; round <= cfg.Count; round++ {
		start := time.Now()
		baseOut, headOut := 0, 0
		sides := []*side{base, head}
		if round%2 == 0 {
			sides = []*side{head, base}
		}
		for _, k := range order {
			for _, s := range sides {
				b := s.bins[k]
				if b == nil {
					continue
				}
				lines, err := b.run(ctx, cfg, args, s.binEnv(b), s.out)
				if err != nil {
					return fmt.Errorf("%s round %d: %w", s.name, round, err)
				}
				names := make([]string, len(lines))
				for i, l := range lines {
					names[i] = l.name
				}
				s.record(names, b)
				if s == base {
					baseOut += len(names)
				} else {
					headOut += len(names)
					if len(names) == 0 && round == 1 {
						res.Notes = append(res.Notes, fmt.Sprintf("head: %s -test.bench %q matched no benchmark", b.importPath, b.bench))
					}
				}
			}
		}
		fmt.Fprintf(cfg.Log, "benchgate: round %d/%d done in %v\n", round, cfg.Count, time.Since(start).Round(time.Millisecond))
		if round == 1 && headOut == 0 {
			return fmt.Errorf("head: %w (none of the selected benchmarks ran)", ErrNoBenchmarks)
		}
		if round == 1 && cfg.AllowEmptyBase && baseOut == 0 {
			return ErrBaseEmpty
		}
	}
	return nil
}

// binEnv is the environment added to b's runs: the side's, then (head only)
// the target's.
func (s *side) binEnv(b *binary) []string {
	if s.name != "head" || len(b.headEnv) == 0 {
		return s.env
	}
	return append(slices.Clone(s.env), b.headEnv...)
}

// record remembers which binary printed each benchmark name.
func (s *side) record(names []string, b *binary) {
	if s.byName == nil {
		s.byName = map[string]*binary{}
	}
	for _, n := range names {
		if s.byName[n] == nil {
			s.byName[n] = b
		}
	}
}

func joinTags(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}

// orderedKeys lists the binaries to run in a round: base order first, then any
// the head alone has.
func orderedKeys(base, head *side) []string {
	keys := append([]string{}, base.order...)
	for _, k := range head.order {
		if base.bins[k] == nil {
			keys = append(keys, k)
		}
	}
	return keys
}

// build lists the packages of every target in the side's tree and builds a
// test binary for each package that has tests.
func (s *side) build(ctx context.Context, targets []Target, binDir string) (notes []string, err error) {
	s.bins = map[string]*binary{}
	built := map[string]string{} // importPath -> binary path ("" = no tests)
	for _, t := range targets {
		out, err := goCmd(ctx, s.tree, s.goEnv(), "list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}\t{{if .Error}}{{.Error}}{{end}}", "--", t.Pkg)
		if err != nil {
			return nil, s.buildErr(fmt.Errorf("%w: %s: go list %s: %v", ErrBuild, s.name, t.Pkg, err), "go list "+t.Pkg, err)
		}
		for _, line := range strings.Split(out, "\n") {
			if line == "" {
				continue
			}
			f := strings.SplitN(line, "\t", 5)
			if len(f) < 5 || f[1] == "" {
				notes = append(notes, fmt.Sprintf("%s: package %s not found, skipped", s.name, t.Pkg))
				continue
			}
			ip, pdir := f[0], f[1]
			if f[4] != "" {
				return nil, fmt.Errorf("%w: %s: %s: %s", ErrBuild, s.name, ip, f[4])
			}
			if f[2] == "0" && f[3] == "0" {
				continue // no tests, so no benchmarks
			}
			if strings.HasPrefix(ip, "-") { // go test takes no -- before its packages
				return nil, fmt.Errorf("%w: %s: go list gave the import path %q, which go test would read as a flag", ErrBuild, s.name, ip)
			}
			bin, ok := built[ip]
			if !ok {
				bin = filepath.Join(binDir, strings.NewReplacer("/", "_", ".", "_").Replace(ip)+".test")
				args := []string{"test", "-c", "-o", bin}
				if s.tags != "" {
					args = append(args, "-tags", s.tags)
				}
				if _, err := goCmd(ctx, s.tree, s.goEnv(), append(args, ip)...); err != nil {
					if !s.skipBroken {
						return nil, s.buildErr(fmt.Errorf("%w: %s: %v", ErrBuild, s.name, err), "go test -c "+ip, err)
					}
					notes = append(notes, fmt.Sprintf("%s: %s does not build, skipped: %v", s.name, ip, firstLine(err.Error())))
					built[ip] = ""
					continue
				}
				if _, err := os.Stat(bin); err != nil {
					bin = ""
				}
				built[ip] = bin
			}
			if k := ip + "\x00" + t.Bench; bin != "" && s.bins[k] == nil {
				s.order = append(s.order, k)
				s.bins[k] = &binary{importPath: ip, path: bin, dir: pdir, bench: t.Bench, headEnv: t.HeadEnv, benchtime: t.Benchtime}
			}
		}
	}
	return notes, nil
}

// goEnv is the side's environment for its go commands (see buildEnv).
func (s *side) goEnv() []string { return buildEnv(s.env) }

// probe runs `go env` in the side's tree and environment, so that an
// environment the go command refuses (an unknown GOEXPERIMENT, a GOTOOLCHAIN
// it cannot fetch: the go command fetches it here, as it would for the
// build) fails at once with one line naming the side and its environment.
func (s *side) probe(ctx context.Context) error {
	if len(s.env) == 0 {
		return nil
	}
	if _, err := goCmd(ctx, s.tree, s.goEnv(), "env", "GOVERSION", "GOEXPERIMENT"); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %s env %s: %w", ErrBuild, s.name, FormatEnv(s.env), context.Cause(ctx))
		}
		return fmt.Errorf("%w: %s env %s: the go command refuses it: %s", ErrBuild, s.name, FormatEnv(s.env), goFailure(err))
	}
	return nil
}

// buildErr is the error of a go command of the side's build that failed:
// full in the current environment; in a given one, a line naming the side,
// its environment, the command (what) and go's first error line, go's
// whole output going to the log.
func (s *side) buildErr(full error, what string, err error) error {
	if len(s.env) == 0 {
		return full
	}
	if s.log != nil {
		fmt.Fprintf(s.log, "benchgate: %s env %s: %v\n", s.name, FormatEnv(s.env), err)
	}
	return fmt.Errorf("%w: %s env %s: %s: %s", ErrBuild, s.name, FormatEnv(s.env), what, goFailure(err))
}

// run runs the binary once (under nice cfg.Nice) and streams its standard
// output to w, at most cfg.MaxOutput bytes of it (ErrOutputTooLarge past
// that, the run stopped); it returns the benchmark result lines written
// (distinct names, each with the iteration count of its last line). Nothing
// of the output but its last tailBytes and the current line is held in
// memory. The binary's own -test.timeout (in args) should end it; should it
// not, its process group is killed timeoutGrace later.
func (b *binary) run(ctx context.Context, cfg RunConfig, args, env []string, w io.Writer) ([]benchLine, error) {
	nice, limit := cfg.Nice, cfg.MaxOutput
	argv := append([]string{b.path}, args...)
	argv = append(argv, "-test.bench", b.bench)
	if b.benchtime != "" { // the last -test.benchtime wins
		argv = append(argv, "-test.benchtime", b.benchtime)
	}
	if nice != 0 {
		argv = append([]string{"nice", "-n", strconv.Itoa(nice)}, argv...)
	}
	runCtx, cancel := context.WithTimeout(ctx, cfg.Timeout+timeoutGrace)
	defer cancel()
	cmd := oskit.Command(runCtx, argv[0], argv[1:]...)
	cmd.Dir = b.dir
	cmd.Env = childEnv(ctx, env...)
	cmd.WaitDelay = benchWaitDelay
	out := newRunOutput(w, limit, cancel)
	var stderr tailBuffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	err := oskit.Run(cmd)
	switch {
	case out.exceeded:
		return nil, out.tooLarge(ctx, b)
	case out.werr != nil:
		return nil, fmt.Errorf("%s -test.bench %q: writing its output: %w", b.importPath, b.bench, out.werr)
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("%s -test.bench %q: %w", b.importPath, b.bench, context.Cause(ctx))
	case err != nil && runCtx.Err() != nil:
		return nil, fmt.Errorf("%w: %s -test.bench %q: ran past the timeout of %v (and -test.timeout did not end it): killed",
			ErrBenchFailed, b.importPath, b.bench, cfg.Timeout)
	case err != nil:
		return nil, fmt.Errorf("%w: %s -test.bench %q%s: %v\n%s", ErrBenchFailed, b.importPath, b.bench, out.failedNames(), err, tail(out.tail.String()+stderr.String(), tailBytes))
	}
	return out.results, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

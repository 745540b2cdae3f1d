package benchgate

import (
	"errors"

	"github.com/writegc/writegc/internal/buildenv"
	"github.com/writegc/writegc/internal/inputfile"
)

// Sentinel errors a caller can act on (skip, rerun, fix an input, fall back
// to wall mode). Functions wrap them with detail; test with errors.Is.
var (
	// ErrNoBenchmarks: an input had no benchmark result lines.
	ErrNoBenchmarks = errors.New("no benchmark results")
	// ErrMissingInHead: the base has a benchmark (or unit) the head lacks.
	ErrMissingInHead = errors.New("head lacks benchmarks the base has")
	// ErrMalformed: some lines could not be parsed (see MalformedError). A
	// NaN, infinite or negative measurement makes its line malformed.
	ErrMalformed = errors.New("malformed benchmark lines")
	// ErrTooLarge: an input is longer than Parser.MaxBytes, or one of its
	// lines longer than Parser.MaxLineBytes.
	ErrTooLarge = errors.New("input too large")
	// ErrNotRegular: an input named by the user is not a regular file (a
	// FIFO, a device such as /dev/zero, a socket, a directory); it is refused
	// before anything is read, and a FIFO without blocking.
	ErrNotRegular = inputfile.ErrNotRegular
	// ErrMissingRounds: with Options.Rounds, a side has a benchmark (or a
	// unit of one) with fewer values than the rounds it ran: some round
	// produced no result for it.
	ErrMissingRounds = errors.New("benchmarks missing from some rounds")
	// ErrUnderpowered: a gated row has too few samples to ever reach p < alpha.
	ErrUnderpowered = errors.New("too few samples to detect a regression")
	// ErrBaseEmpty: Run found no matching benchmark in the base (see
	// RunConfig.AllowEmptyBase).
	ErrBaseEmpty = errors.New("base has none of the selected benchmarks")
	// ErrBenchFailed: a test binary exited with an error while benchmarking.
	ErrBenchFailed = errors.New("benchmark binary failed")
	// ErrCrossMachine: base and head (or a thresholds file and the head) were
	// measured on different machines (see StrictMachineKeys).
	ErrCrossMachine = errors.New("benchmarks measured on different machines")
	// ErrAcceptExpired: an accepted regression is past its expiry (until= or
	// commits=).
	ErrAcceptExpired = errors.New("accepted regression expired")
	// ErrNoBase: Run with Base "auto" could not choose a base revision.
	ErrNoBase = errors.New("no base revision")
	// ErrBuild: building a test binary (or preparing a git worktree or its
	// submodules) failed.
	ErrBuild = errors.New("build failed")
	// ErrNotGitRepo: Run was pointed at a directory outside any git
	// repository (nothing was built).
	ErrNotGitRepo = errors.New("not a git repository")
	// ErrOutputTooLarge: one run of a benchmark binary printed more than
	// RunConfig.MaxOutput bytes (default DefaultMaxOutput) and was stopped.
	ErrOutputTooLarge = errors.New("benchmark output too large")
	// ErrTestJSON: an input without benchmark results is `go test -json`
	// (test2json) output (run without -bench?); it also wraps
	// ErrNoBenchmarks. `go test -json` output with benchmark results is
	// read like text (see Parser.Parse).
	ErrTestJSON = errors.New("go test -json output")
	// ErrNoValgrind: instruction mode (MeasureInstructions) found no
	// valgrind binary to run.
	ErrNoValgrind = errors.New("valgrind not found")
)

// Errors a caller cannot act on other than by reporting them (bad input or
// a caller's own mistake): unexported, so that the sentinels above are the
// whole contract. The messages still say what is wrong.
var (
	// errEmptyInput: an input had no bytes (or only blank lines).
	errEmptyInput = errors.New("empty input")
	// errNoCommon: base and head share no benchmark.
	errNoCommon = errors.New("no benchmark in common between base and head")
	// errBadSample: Compare was given a Set that Parse would not have built:
	// a sample holding a NaN, infinite or negative value, or a Key without
	// values. The statistics never see such a sample.
	errBadSample = errors.New("unusable benchmark sample")
	// errBadOption: an Options, Parser or RunConfig field is out of range
	// (NaN, infinite, or outside the documented bounds).
	errBadOption = errors.New("option out of range")
	// errUnitConflict: base and head declare different metadata for a unit.
	errUnitConflict = errors.New("conflicting unit metadata")
	// errAcceptFile: the accepted-regressions file is malformed.
	errAcceptFile = errors.New("bad accepted-regressions file")
	// errThresholdsFile: the thresholds file is malformed.
	errThresholdsFile = errors.New("bad thresholds file")
	// errBadEnv: an environment given to Run (RunConfig.BaseEnv, HeadEnv)
	// or to ParseEnv is not a list of K=V pairs with distinct, non-empty
	// keys. An environment the go command refuses (an unknown GOEXPERIMENT,
	// a GOTOOLCHAIN it cannot fetch) is ErrBuild, naming the side and its
	// environment. It is internal/buildenv's errBadEnv, which gcstress's
	// -build-envs shares.
	errBadEnv = buildenv.ErrBadEnv
)

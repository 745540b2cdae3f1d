package benchgate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Target is one package pattern (as `go list` takes it: "./arena", "./...")
// and the -test.bench regexp to run in the packages it names.
type Target struct {
	Pkg   string
	Bench string
}

// RunConfig configures Run. Only Base is required. A RunConfig is read, never
// modified, by Run.
type RunConfig struct {
	// Dir is any directory inside the git repository; "" means ".".
	Dir string
	// Base is the git revision to compare against (required). It is checked
	// out in a temporary `git worktree`, removed when Run returns.
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
	// BaseEnv and HeadEnv are added to the environment of the benchmark
	// binaries of each side ("WRITEGC_SLOWDOWN_NS=...").
	BaseEnv, HeadEnv []string
	// OutDir receives base.txt and head.txt (created if needed); "" means a
	// new temporary directory, which Run leaves in place and reports.
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
}

// MaxCount bounds RunConfig.Count: more rounds are a typo, not a plan.
const MaxCount = 1000

// validate checks the numeric fields (ErrBadOption).
func (c RunConfig) validate() error {
	switch {
	case c.Base == "":
		return fmt.Errorf("%w: RunConfig.Base is required", ErrBadOption)
	case c.Count < 0 || c.Count > MaxCount:
		return fmt.Errorf("%w: Count %d: want 0 (for 10) up to %d", ErrBadOption, c.Count, MaxCount)
	case c.Nice < -20 || c.Nice > 19:
		return fmt.Errorf("%w: Nice %d: want a value in [-20, 19]", ErrBadOption, c.Nice)
	case c.Timeout < 0:
		return fmt.Errorf("%w: Timeout %v: want 0 (for 10m) or more", ErrBadOption, c.Timeout)
	}
	return nil
}

// RunResult is what Run produced: the raw output files and their parse.
type RunResult struct {
	BaseFile, HeadFile string
	BaseCommit         string
	HeadCommit         string // "<sha>+worktree" when Head is the working tree
	Base, Head         *Set
	// Notes say what was skipped (packages absent from one side, packages
	// without tests).
	Notes []string
}

// binary is one built test binary and what to run in it.
type binary struct {
	importPath string
	path       string // the executable
	dir        string // the package directory (the binary's working directory)
	bench      string
}

// side is one tree (base or head) being measured.
type side struct {
	name, tree, commit, tags string
	env                      []string
	bins                     map[string]*binary // by importPath+"\x00"+bench
	order                    []string           // keys of bins in target order
	out                      *os.File
	skipBroken               bool // a package that does not build is skipped, not an error
}

// Run builds the test binaries of base and head, runs them interleaved round
// by round, writes both raw outputs and parses them. It does not compare: call
// Compare on the returned Sets. The temporary worktrees and binaries are
// removed before Run returns, also on error or cancellation.
//
// Errors wrap ErrBadOption (a RunConfig field out of range), ErrBuild
// (worktree or build), ErrBenchFailed (a binary failed), ErrBaseEmpty (with
// AllowEmptyBase), or the parse errors of ParseFiles.
func Run(ctx context.Context, cfg RunConfig) (res *RunResult, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Count == 0 {
		cfg.Count = 10
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Minute
	}
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	targets := cfg.Targets
	if len(targets) == 0 {
		pkgs, bench := cfg.Pkgs, cfg.Bench
		if len(pkgs) == 0 {
			pkgs = []string{"./..."}
		}
		if bench == "" {
			bench = "."
		}
		for _, p := range pkgs {
			targets = append(targets, Target{Pkg: p, Bench: bench})
		}
	}
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%w: not in a git repository: %v", ErrBuild, err)
	}
	tmp, err := os.MkdirTemp("", "benchgate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	res = &RunResult{}
	base := &side{name: "base", tags: cfg.Tags, env: cfg.BaseEnv, skipBroken: cfg.AllowEmptyBase}
	head := &side{name: "head", tags: joinTags(cfg.Tags, cfg.HeadTags), env: cfg.HeadEnv}
	if base.tree, base.commit, err = worktree(ctx, root, filepath.Join(tmp, "base"), cfg.Base); err != nil {
		return nil, err
	}
	defer removeWorktree(root, base.tree)
	if cfg.Head == "" {
		head.tree = root
		sha, err := git(ctx, root, "rev-parse", "HEAD")
		if err != nil {
			sha = "none"
		}
		head.commit = sha + "+worktree"
	} else {
		if head.tree, head.commit, err = worktree(ctx, root, filepath.Join(tmp, "head"), cfg.Head); err != nil {
			return nil, err
		}
		defer removeWorktree(root, head.tree)
	}
	res.BaseCommit, res.HeadCommit = base.commit, head.commit

	for _, s := range []*side{base, head} {
		fmt.Fprintf(logw, "benchgate: building %s (%s)\n", s.name, s.commit)
		notes, err := s.build(ctx, targets, filepath.Join(tmp, "bin-"+s.name))
		if err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, notes...)
	}

	out := cfg.OutDir
	if out == "" {
		if out, err = os.MkdirTemp("", "benchgate-out-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	res.BaseFile, res.HeadFile = filepath.Join(out, "base.txt"), filepath.Join(out, "head.txt")
	for _, s := range []*side{base, head} {
		path := res.BaseFile
		if s == head {
			path = res.HeadFile
		}
		if s.out, err = os.Create(path); err != nil {
			return nil, err
		}
		defer s.out.Close()
		fmt.Fprintf(s.out, "commit: %s\nbenchgate-side: %s\n", s.commit, s.name)
		if s.tags != "" {
			fmt.Fprintf(s.out, "tags: %s\n", s.tags)
		}
		io.WriteString(s.out, cfg.Preamble)
		if cfg.Preamble != "" && !strings.HasSuffix(cfg.Preamble, "\n") {
			io.WriteString(s.out, "\n")
		}
	}

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
				n, err := b.run(ctx, cfg.Nice, args, s.env, s.out)
				if err != nil {
					return nil, fmt.Errorf("%s round %d: %w", s.name, round, err)
				}
				if s == base {
					baseOut += n
				} else {
					headOut += n
					if n == 0 && round == 1 {
						res.Notes = append(res.Notes, fmt.Sprintf("head: %s -test.bench %q matched no benchmark", b.importPath, b.bench))
					}
				}
			}
		}
		fmt.Fprintf(logw, "benchgate: round %d/%d done in %v\n", round, cfg.Count, time.Since(start).Round(time.Millisecond))
		if round == 1 && headOut == 0 {
			return res, fmt.Errorf("head: %w (none of the selected benchmarks ran)", ErrNoBenchmarks)
		}
		if round == 1 && cfg.AllowEmptyBase && baseOut == 0 {
			return res, ErrBaseEmpty
		}
	}
	base.out.Close()
	head.out.Close()
	var berr, herr error
	res.Base, berr = ParseFiles(res.BaseFile)
	res.Head, herr = ParseFiles(res.HeadFile)
	return res, errors.Join(berr, herr)
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
		out, err := goCmd(ctx, s.tree, nil, "list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}\t{{if .Error}}{{.Error}}{{end}}", t.Pkg)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: go list %s: %v", ErrBuild, s.name, t.Pkg, err)
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
			bin, ok := built[ip]
			if !ok {
				bin = filepath.Join(binDir, strings.NewReplacer("/", "_", ".", "_").Replace(ip)+".test")
				args := []string{"test", "-c", "-o", bin}
				if s.tags != "" {
					args = append(args, "-tags", s.tags)
				}
				if _, err := goCmd(ctx, s.tree, nil, append(args, ip)...); err != nil {
					if !s.skipBroken {
						return nil, fmt.Errorf("%w: %s: %v", ErrBuild, s.name, err)
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
				s.bins[ip+"\x00"+t.Bench] = &binary{importPath: ip, path: bin, dir: pdir, bench: t.Bench}
			}
		}
	}
	return notes, nil
}

// run runs the binary once and appends its standard output to w; it returns
// the number of benchmark result lines written.
func (b *binary) run(ctx context.Context, nice int, args, env []string, w io.Writer) (int, error) {
	var stdout, stderr bytes.Buffer
	argv := append([]string{b.path}, args...)
	argv = append(argv, "-test.bench", b.bench)
	if nice != 0 {
		argv = append([]string{"nice", "-n", strconv.Itoa(nice)}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = b.dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, werr := w.Write(stdout.Bytes()); werr != nil {
		return 0, werr
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %s -test.bench %q: %v\n%s", ErrBenchFailed, b.importPath, b.bench, err, tail(stdout.String()+stderr.String(), 4000))
	}
	n := 0
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "Benchmark") && strings.ContainsAny(line, " \t") {
			n++
		}
	}
	return n, nil
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

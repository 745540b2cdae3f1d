package benchgate

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machineHeader returns the machine configuration lines of a side: what its
// toolchain (run in tree, with goEnv: the side's build environment) says
// about the Go version, target and experiments (goexperiment, when any), and
// what this machine says about its CPUs and kernel. env is the binaries'
// environment, for GOMAXPROCS. The test binaries print cpu (and goos,
// goarch) themselves.
func machineHeader(ctx context.Context, tree string, goEnv, env []string) string {
	var b strings.Builder
	keys := []string{"goversion", "goos", "goarch", "goamd64", ConfigGoExperiment}
	if out, err := goCmd(ctx, tree, goEnv, "env", "GOVERSION", "GOOS", "GOARCH", "GOAMD64", "GOEXPERIMENT"); err == nil {
		for i, v := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if i < len(keys) && strings.TrimSpace(v) != "" {
				b.WriteString(configLine(keys[i], strings.TrimSpace(v)))
			}
		}
	}
	fmt.Fprintf(&b, "gomaxprocs: %d\nnproc: %d\n", gomaxprocsOf(env), runtime.NumCPU())
	if k := kernelRelease(ctx); k != "" {
		b.WriteString(configLine("kernel", k))
	}
	return b.String()
}

// gomaxprocsOf is the GOMAXPROCS a binary started with env gets: the
// variable when set, else this process's default (which, like the child's,
// follows the CPU limit of its container).
func gomaxprocsOf(env []string) int {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "GOMAXPROCS="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return n
			}
			break
		}
	}
	return runtime.GOMAXPROCS(0)
}

func kernelRelease(ctx context.Context) string {
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		return strings.TrimSpace(string(b))
	}
	if runtime.GOOS == "windows" {
		return ""
	}
	out, err := execOut(ctx, "uname", "-r")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// benchRegexp returns the -test.bench regexp that selects exactly the
// benchmark printed as name by a binary running with GOMAXPROCS procs: the
// -procs suffix removed, each /-separated level anchored and quoted.
func benchRegexp(name string, procs int) string {
	if procs > 1 {
		name = strings.TrimSuffix(name, "-"+strconv.Itoa(procs))
	}
	name = strings.TrimPrefix(name, "Benchmark")
	parts := strings.Split("Benchmark"+name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._=-]+`)

// profileAll runs each selected benchmark once more in base and head with
// CPU and allocation profiles (see RunConfig.ProfileSelect).
func profileAll(ctx context.Context, cfg RunConfig, res *RunResult, base, head *side, names []string) []ProfileFiles {
	dir := filepath.Join(res.outDir, "profiles")
	if len(names) > cfg.ProfileMax {
		res.Notes = append(res.Notes, fmt.Sprintf("profiles: %d benchmarks selected, profiling the first %d", len(names), cfg.ProfileMax))
		names = names[:cfg.ProfileMax]
	}
	if len(names) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.Notes = append(res.Notes, "profiles: "+err.Error())
		return nil
	}
	var out []ProfileFiles
	for i, name := range names {
		stem := unsafeFileChars.ReplaceAllString(name, "_")
		if len(stem) > 100 {
			stem = stem[:100]
		}
		stem = filepath.Join(dir, fmt.Sprintf("%02d-%s", i+1, stem))
		pf := ProfileFiles{Benchmark: name}
		bt := profileBenchtime(cfg, res.Base, name)
		for _, s := range []*side{base, head} {
			cpu, mem := stem+"."+s.name+".cpu.pprof", stem+"."+s.name+".mem.pprof"
			ops, err := s.profile(ctx, cfg, name, bt, cpu, mem)
			if err != nil {
				res.Notes = append(res.Notes, fmt.Sprintf("profiles: %s %s: %v", s.name, name, firstLine(err.Error())))
				continue
			}
			if s == base {
				pf.BaseCPU, pf.BaseMem, pf.BaseOps = cpu, mem, ops
			} else {
				pf.HeadCPU, pf.HeadMem, pf.HeadOps = cpu, mem, ops
			}
		}
		out = append(out, pf)
	}
	return out
}

// profile runs benchmark name once in the side's binary that printed it for
// benchtime, and returns the iteration count its result line printed (the
// op count the profiles are divided by).
func (s *side) profile(ctx context.Context, cfg RunConfig, name, benchtime, cpu, mem string) (int64, error) {
	b := s.byName[name]
	if b == nil {
		return 0, fmt.Errorf("no binary printed this benchmark")
	}
	env := s.binEnv(b)
	args := []string{"-test.run", "^$", "-test.count", "1", "-test.timeout", cfg.Timeout.String(),
		"-test.benchtime", benchtime, "-test.cpuprofile", cpu, "-test.memprofile", mem}
	if cfg.Benchmem {
		args = append(args, "-test.benchmem")
	}
	bb := *b
	bb.benchtime = "" // profiles run for their own benchtime, whatever the rounds used
	bb.bench = benchRegexp(name, gomaxprocsOf(childEnv(ctx, env...)))
	lines, err := bb.run(ctx, cfg, args, env, io.Discard)
	if err != nil {
		return 0, err
	}
	for _, l := range lines {
		if l.name == name && l.iters > 0 {
			return l.iters, nil
		}
	}
	if len(lines) == 0 {
		return 0, fmt.Errorf("-test.bench %q matched no benchmark", bb.bench)
	}
	return 0, fmt.Errorf("-test.bench %q printed no iteration count for %s", bb.bench, name)
}

// profileBenchtime is the -test.benchtime of both sides' profiling runs of
// name: ProfileBenchtime when it is a count (Nx); a duration becomes the
// count of ops the base runs in it (from its median ns/op), so that base and
// head profile the same work and their values per op compare.
func profileBenchtime(cfg RunConfig, base *Set, name string) string {
	bt := cfg.ProfileBenchtime
	if strings.HasSuffix(bt, "x") {
		return bt
	}
	d, err := time.ParseDuration(bt)
	xs := base.Samples[Key{name, "ns/op"}]
	if err != nil || len(xs) == 0 {
		return bt
	}
	ns := median(xs)
	if !(ns > 0) {
		return bt
	}
	n := math.Ceil(float64(d.Nanoseconds()) / ns)
	return strconv.FormatFloat(max(1, min(n, 1e9)), 'f', 0, 64) + "x"
}

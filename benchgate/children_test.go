package benchgate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// Hostile-input issue items 1 and 2: what a benchmark's environment holds,
// and children of a benchmark that outlive it.

// childTest is a module whose benchmarks misbehave:
//
//   - BenchmarkEnv names a sub-benchmark after each variable of its
//     environment and prints the environment, as a probe for secrets would.
//   - BenchmarkOrphan starts `sleep 3600` holding its stdout and stderr
//     (once per process; its pid appended to $PIDS), then finishes normally.
//   - BenchmarkStall does the same, touches $MARK and then sleeps, when
//     b.N > 1 (so the one-op listing run of instruction mode passes).
const childTest = `package child

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var sink int

func BenchmarkEnv(b *testing.B) {
	for _, kv := range os.Environ() {
		fmt.Println("env:", kv)
		fmt.Fprintln(os.Stderr, "env:", kv)
		name := strings.NewReplacer(" ", "_", "/", "_").Replace(kv)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				sink++
			}
		})
	}
}

var once sync.Once

func orphan() {
	once.Do(func() {
		cmd := exec.Command("sleep", "3600")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			panic(err)
		}
		f, err := os.OpenFile(os.Getenv("PIDS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			panic(err)
		}
		fmt.Fprintln(f, strconv.Itoa(cmd.Process.Pid))
		f.Close()
	})
}

func BenchmarkOrphan(b *testing.B) {
	orphan()
	for b.Loop() {
		for i := range 1000 {
			sink += i
		}
	}
}

func BenchmarkStall(b *testing.B) {
	if b.N > 1 {
		orphan()
		os.WriteFile(os.Getenv("MARK"), nil, 0o644)
		time.Sleep(time.Hour)
	}
	for range b.N {
		sink++
	}
}
`

// childRepo commits the child module in a repository of its own and gives
// Run an empty TMPDIR; it returns the repository, the TMPDIR and the file
// the orphans' pids are appended to.
func childRepo(t *testing.T) (repo, tmp, pids string) {
	t.Helper()
	repo = gitModuleDir(t)
	tmp = filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.Write(t, repo, map[string]string{"go.mod": "module example.com/child\n\ngo 1.26\n", "child_test.go": childTest})
	testkit.CommitAll(t, repo, "child")
	t.Setenv("TMPDIR", tmp)
	pids = filepath.Join(t.TempDir(), "pids")
	t.Setenv("PIDS", pids)
	t.Cleanup(func() { killPids(pids) })
	return repo, tmp, pids
}

func killPids(file string) {
	b, _ := os.ReadFile(file)
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// liveness bounds a wait for something that must happen within seconds:
// reaching it means a hang (the old code waited an hour), not slowness.
const liveness = 3 * time.Minute

// runWithin runs Run in a goroutine and fails t if it has not returned
// within liveness.
func runWithin(t *testing.T, ctx context.Context, cfg RunConfig) (*RunResult, error) {
	t.Helper()
	type result struct {
		res *RunResult
		err error
	}
	r := testkit.Within(t, liveness, "Run", func() result {
		res, err := Run(ctx, cfg)
		return result{res, err}
	})
	return r.res, r.err
}

// assertOrphansGone fails t unless every pid in file is gone (or a zombie
// waiting for its reaper), waiting up to liveness for the kill to land.
func assertOrphansGone(t *testing.T, file string) {
	t.Helper()
	b, _ := os.ReadFile(file)
	pids := strings.Fields(string(b))
	if len(pids) == 0 {
		t.Fatalf("no orphan was started (%s empty)", file)
	}
	deadline := time.Now().Add(liveness)
	for _, p := range pids {
		pid, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("%s: pid %q", file, p)
		}
		if !testkit.Gone(pid, time.Until(deadline)) {
			t.Errorf("the benchmark's child %s outlived the run", p)
		}
	}
}

func needLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("process groups are killed on Linux only")
	}
}

// Secrets in benchgate's environment never reach a benchmark: the registry's
// names (GITHUB_TOKEN), its globs (MY_SERVICE_TOKEN, APP_DB_PASSWORD) and
// EnvDrop (CUSTOM_CRED) are all absent from what the probe printed, on
// both sides, while an ordinary variable and the Go build's are there.
func TestRunDropsSecretsFromTheBenchmarkEnvironment(t *testing.T) {
	repo, _, _ := childRepo(t)
	secrets := map[string]string{"GITHUB_TOKEN": "ghs_fake_github_token_1", "MY_SERVICE_TOKEN": "fake_service_token_2",
		"APP_DB_PASSWORD": "fake_password_3", "CUSTOM_CRED": "fake_custom_cred_4", "BENCHGATE_HISTORY_DSN": "postgres://u:fake_dsn_5@h/db"}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("PROBE_VISIBLE", "probe_sees_this")
	ctx, cancel := context.WithTimeout(context.Background(), liveness)
	defer cancel()
	res, err := runWithin(t, ctx, RunConfig{Dir: repo, Base: "HEAD", Head: "HEAD", Count: 1, Benchtime: "1x",
		EnvDrop: []string{"custom_*"}, Targets: []Target{{Pkg: ".", Bench: "^BenchmarkEnv$"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.RemoveTempOutput()
	for _, f := range []string{res.BaseFile, res.HeadFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out := string(b)
		for k, v := range secrets {
			if strings.Contains(out, v) || strings.Contains(out, k+"=") {
				t.Errorf("%s: the benchmark saw %s", filepath.Base(f), k)
			}
		}
		for _, want := range []string{"env: PROBE_VISIBLE=probe_sees_this", "env: PATH=", "env: HOME=", "env: GOFLAGS="} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q: the probe did not run, or too much was dropped", filepath.Base(f), want)
			}
		}
	}
}

// The rule: listed names, the globs, EnvDrop, case-insensitively; nothing
// the go command reads, nor PATH, HOME, TMPDIR.
func TestDropped(t *testing.T) {
	for _, name := range []string{"GITHUB_TOKEN", "GH_TOKEN", "BENCHGATE_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "CI_JOB_TOKEN", "BENCHGATE_HISTORY_DSN",
		"HISTORY_DSN", "WRITEGC_TEST_PG_DSN", "AWS_SECRET_ACCESS_KEY", "GITHUB_ENV", "GITHUB_PATH",
		"MY_SERVICE_TOKEN", "my_service_token", "STRIPE_SECRET", "DB_PASSWORD", "PASSWORD", "X_API_KEY", "SECRET_KEY_BASE",
		"DB_PASS", "SMTP_PASSWD", "MYSQL_PWD", "SLACK_WEBHOOK_URL", "STRIPE_KEY", "VAULT_TOKEN", "DOCKER_PASSWORD", "SENTRY_JWT"} {
		if !Dropped(name, nil) {
			t.Errorf("%s is passed to the benchmarks", name)
		}
	}
	if !Dropped("CUSTOM_CRED", []string{"custom_*"}) || !Dropped("VAULT_ADDR", []string{"X", "VAULT_ADDR"}) {
		t.Error("EnvDrop names or globs not dropped")
	}
	keep := []string{"PATH", "HOME", "TMPDIR", "USER", "GOMAXPROCS", "GODEBUG", "GOGC", "LD_LIBRARY_PATH", "CC", "CGO_ENABLED",
		"SSH_AUTH_SOCK", "PROBE_VISIBLE", "TOKENS", "PWD", "OLDPWD", "GOAUTH", "KEYS"}
	if out, err := exec.Command("go", "env", "-json").Output(); err == nil {
		for _, l := range strings.Split(string(out), "\n") {
			if k, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
				keep = append(keep, strings.Trim(k, `"`))
			}
		}
	}
	for _, name := range keep {
		if Dropped(name, nil) {
			t.Errorf("%s is dropped: the build or the benchmarks need it", name)
		}
	}
	env := ScrubEnv([]string{"A=1", "GH_TOKEN=x", "B=2=3", "=C"}, nil)
	if strings.Join(env, " ") != "A=1 B=2=3" {
		t.Errorf("ScrubEnv = %q", env)
	}
	for _, bad := range [][]string{{"A=B"}, {"["}, {""}} {
		if err := CheckEnvDrop(bad); !errors.Is(err, errBadOption) {
			t.Errorf("CheckEnvDrop(%q) = %v, want errBadOption", bad, err)
		}
		if _, err := Run(context.Background(), RunConfig{Base: "HEAD", EnvDrop: bad}); !errors.Is(err, errBadOption) {
			t.Errorf("Run with EnvDrop %q: %v, want errBadOption", bad, err)
		}
	}
}

// Wall mode: a benchmark that leaves `sleep 3600` holding its stdout is
// measured, its child killed as it exits (before, Run failed 10 s later
// with the sleep still running).
func TestRunWallOrphanHoldingStdout(t *testing.T) {
	needLinux(t)
	repo, tmp, pids := childRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), liveness)
	defer cancel()
	res, err := runWithin(t, ctx, RunConfig{Dir: repo, Base: "HEAD", Head: "HEAD", Count: 1, Benchtime: "10x",
		Targets: []Target{{Pkg: ".", Bench: "^BenchmarkOrphan$"}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Head.Names()) != 1 {
		t.Errorf("head results: %v", res.Head.Names())
	}
	res.RemoveTempOutput()
	assertOrphansGone(t, pids)
	assertClean(t, repo, tmp)
}

// Wall mode, cancelled (benchgate's SIGTERM handler) while the benchmark
// stalls with a child holding its stdout: Run returns, the child is gone.
func TestRunWallCancelKillsTheBenchmarksChildren(t *testing.T) {
	needLinux(t)
	repo, tmp, pids := childRepo(t)
	mark := filepath.Join(t.TempDir(), "mark")
	t.Setenv("MARK", mark)
	ctx := cancelOnMark(t, mark)
	res, err := runWithin(t, ctx, RunConfig{Dir: repo, Base: "HEAD", Head: "HEAD", Count: 1, Benchtime: "10x",
		Targets: []Target{{Pkg: ".", Bench: "^BenchmarkStall$"}}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	res.RemoveTempOutput()
	assertOrphansGone(t, pids)
	assertClean(t, repo, tmp)
}

// cancelOnMark returns a context cancelled once the file mark exists (or
// when the test ends).
func cancelOnMark(t *testing.T, mark string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(mark); err == nil {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return ctx
}

// valgrindAt is the valgrind the instruction-mode tests of this file need.
const valgrindAt = "/usr/bin/valgrind"

func needValgrind(t *testing.T) {
	t.Helper()
	needLinux(t)
	if _, err := os.Stat(valgrindAt); err != nil {
		t.Skipf("instruction mode needs valgrind at %s (apt-get install valgrind)", valgrindAt)
	}
	if testing.Short() {
		t.Skip("runs valgrind (-short)")
	}
}

// Instruction mode: a benchmark child holding stdout after valgrind exited
// (before: Count waited for the sleep, an hour), a run past -timeout, and a
// cancel each end Run within seconds, kill the children, and leave nothing
// in TMPDIR (no vgdb-pipe FIFOs: valgrind runs with --vgdb=no).
func TestRunInstructionsChildrenAreBounded(t *testing.T) {
	needValgrind(t)
	marks := t.TempDir() // not under childRepo's TMPDIR, which must stay empty
	repo, tmp, pids := childRepo(t)
	cfg := RunConfig{Dir: repo, Base: "HEAD", Head: "HEAD", Count: 1, Benchtime: "200x",
		Measure: MeasureInstructions, Valgrind: valgrindAt, Jobs: 1}
	t.Run("orphan", func(t *testing.T) {
		c := cfg
		c.Targets = []Target{{Pkg: ".", Bench: "^BenchmarkOrphan$"}}
		res, err := runWithin(t, context.Background(), c)
		res.RemoveTempOutput()
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		assertOrphansGone(t, pids)
		assertClean(t, repo, tmp)
	})
	t.Run("timeout", func(t *testing.T) {
		c := cfg
		c.Timeout = 3 * time.Second
		c.Targets = []Target{{Pkg: ".", Bench: "^BenchmarkStall$"}}
		t.Setenv("MARK", filepath.Join(marks, "timeout"))
		res, err := runWithin(t, context.Background(), c)
		if !errors.Is(err, ErrBenchFailed) || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("err = %v, want ErrBenchFailed past the timeout", err)
		}
		res.RemoveTempOutput()
		assertOrphansGone(t, pids)
		assertClean(t, repo, tmp)
	})
	t.Run("cancel", func(t *testing.T) {
		c := cfg
		c.Targets = []Target{{Pkg: ".", Bench: "^BenchmarkStall$"}}
		mark := filepath.Join(marks, "cancel")
		t.Setenv("MARK", mark)
		ctx := cancelOnMark(t, mark)
		res, err := runWithin(t, ctx, c)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		res.RemoveTempOutput()
		assertOrphansGone(t, pids)
		assertClean(t, repo, tmp)
	})
}

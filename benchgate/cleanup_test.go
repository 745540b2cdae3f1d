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
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// Run's output bound, its cleanup on every exit path, stale worktrees,
// submodules, labels and errors.

// hostileTestFile is the hostile module's test file (see its comment):
// BenchmarkQuiet, BenchmarkNoisy, BenchmarkDies and BenchmarkWaits.
const hostileTestFile = "testdata/hostile/hostile_test.go"

// hostileRepo makes a repository holding the hostile module, committed, and
// a separate empty TMPDIR for Run, whose leftovers the tests inspect.
func hostileRepo(t *testing.T) (repo, tmp string) {
	t.Helper()
	repo = gitModuleDir(t)
	tmp = filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	hostileTest, err := os.ReadFile(hostileTestFile)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Write(t, repo, map[string]string{"go.mod": "module example.com/hostile\n\ngo 1.26\n", "hostile_test.go": string(hostileTest)})
	testkit.CommitAll(t, repo, "hostile")
	t.Setenv("TMPDIR", tmp)
	return repo, tmp
}

// assertClean fails t if repo has a worktree besides its own or tmp holds
// anything.
func assertClean(t *testing.T, repo, tmp string) {
	t.Helper()
	if out := gitOut(t, repo, "worktree", "list"); countLines(out+"\n") != 1 {
		t.Errorf("worktrees left behind:\n%s", out)
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left in TMPDIR: %s", e.Name())
	}
}

func TestRunOutputBound(t *testing.T) {
	repo, tmp := hostileRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, RunConfig{Dir: repo, Base: "HEAD", Head: "HEAD", Count: 1, Benchtime: "10x",
		MaxOutput: 1 << 20, Targets: []Target{{Pkg: ".", Bench: "^BenchmarkNoisy$"}}})
	if !errors.Is(err, ErrOutputTooLarge) || !strings.Contains(err.Error(), "benchmark BenchmarkNoisy") || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("err = %v, want ErrOutputTooLarge naming BenchmarkNoisy and the 1 MiB limit", err)
	}
	if res == nil {
		t.Fatal("no RunResult with the error: the caller cannot remove the output directory")
	}
	if st, err := os.Stat(res.BaseFile); err != nil || st.Size() > 1<<20+64<<10 {
		t.Errorf("base.txt: %v, %v; want at most the limit and its header", st, err)
	}
	if err := res.RemoveTempOutput(); err != nil {
		t.Fatal(err)
	}
	assertClean(t, repo, tmp)

	// Under the limit the same benchmark passes, its log lines ignored.
	res, err = Run(ctx, RunConfig{Dir: repo, Base: "HEAD", Head: "HEAD", Count: 1, Benchtime: "10x",
		Targets: []Target{{Pkg: ".", Bench: "^BenchmarkNoisy$"}}})
	if err != nil || len(res.Base.Names()) != 1 {
		t.Errorf("default limit: %v, want the benchmark parsed", err)
	}
	res.RemoveTempOutput()
	assertClean(t, repo, tmp)
	if _, err := Run(ctx, RunConfig{Dir: repo, Base: "HEAD", MaxOutput: -1}); !errors.Is(err, errBadOption) {
		t.Errorf("MaxOutput -1: %v, want errBadOption", err)
	}
}

func TestRunCleansAfterDyingChild(t *testing.T) {
	repo, tmp := hostileRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, RunConfig{Dir: repo, Base: "HEAD", Head: "HEAD", Count: 1, Benchtime: "10x",
		Targets: []Target{{Pkg: ".", Bench: "^BenchmarkDies$"}}})
	if !errors.Is(err, ErrBenchFailed) || !strings.Contains(err.Error(), "killed") {
		t.Errorf("err = %v, want ErrBenchFailed saying the binary was killed", err)
	}
	res.RemoveTempOutput()
	assertClean(t, repo, tmp)
}

// A cancelled context (what benchgate's SIGINT/SIGTERM handler does) stops
// the benchmark running and still removes everything.
func TestRunCleansOnCancel(t *testing.T) {
	repo, tmp := hostileRepo(t)
	mark := filepath.Join(t.TempDir(), "mark")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	type result struct {
		res *RunResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := Run(runCtx, RunConfig{Dir: repo, Base: "HEAD", Count: 1, Benchtime: "10x", BaseEnv: []string{"MARK=" + mark},
			Targets: []Target{{Pkg: ".", Bench: "^BenchmarkWaits$"}}})
		done <- result{res, err}
	}()
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("Run returned before the benchmark started: %v", r.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	r := <-done
	if !errors.Is(r.err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", r.err)
	}
	r.res.RemoveTempOutput()
	assertClean(t, repo, tmp)
}

// Worktrees left by a benchgate that was killed (its process gone) are
// removed by the next Run; a live run's are not.
func TestPruneStaleWorktrees(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("stale worktrees are only recognised on Linux")
	}
	repo, tmp := hostileRepo(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	if !processGone(dead.Process.Pid) {
		t.Skip("the pid was reused")
	}
	stale := filepath.Join(tmp, "benchgate-"+strconv.Itoa(dead.Process.Pid)+"-123", "base")
	live := filepath.Join(tmp, "benchgate-"+strconv.Itoa(os.Getppid())+"-456", "head")
	mine := filepath.Join(tmp, "benchgate-"+strconv.Itoa(os.Getpid())+"-789", "base")
	other := filepath.Join(tmp, "benchgate-"+strconv.Itoa(dead.Process.Pid)+"-1", "elsewhere")
	for _, p := range []string{stale, live, mine, other} {
		testkit.Git(t, repo, "worktree", "add", "-q", "--detach", p, "HEAD")
	}
	gone := filepath.Join(tmp, "vanished")
	testkit.Git(t, repo, "worktree", "add", "-q", "--detach", gone, "HEAD")
	os.RemoveAll(gone)

	notes := pruneStale(context.Background(), repo)
	if len(notes) != 1 || !strings.Contains(notes[0], stale) {
		t.Errorf("notes %q, want one naming %s", notes, stale)
	}
	list := gitOut(t, repo, "worktree", "list", "--porcelain")
	for p, want := range map[string]bool{stale: false, live: true, mine: true, other: true, gone: false} {
		if strings.Contains(list, "worktree "+p+"\n") != want {
			t.Errorf("worktree %s listed = %v, want %v:\n%s", p, !want, want, list)
		}
	}
	if _, err := os.Stat(filepath.Dir(stale)); !os.IsNotExist(err) {
		t.Errorf("the stale run's folder is still there: %v", err)
	}
}

// A module whose build needs its submodule (a replace directive into it) is
// gated: Run initialises the submodule in both worktrees from the
// repository's own checkout, though the submodule's URL points nowhere
// (offline). Without that checkout the error says what to do.
func TestRunSubmodule(t *testing.T) {
	dir := gitModuleDir(t)
	sub, repo := filepath.Join(dir, "sub"), filepath.Join(dir, "repo")
	for _, d := range []string{sub, repo} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		testkit.Git(t, d, "init", "-q")
	}
	testkit.Write(t, sub, map[string]string{
		"go.mod": "module example.com/lib\n\ngo 1.26\n",
		"lib.go": "package lib\n\n// Twice doubles x.\nfunc Twice(x int) int { return 2 * x }\n",
	})
	testkit.CommitAll(t, sub, "lib")
	testkit.Write(t, repo, map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.26\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ./third_party/lib\n",
		"app_test.go": `package app

import (
	"testing"

	"example.com/lib"
)

var sink int

func BenchmarkTwice(b *testing.B) {
	for b.Loop() {
		sink = lib.Twice(sink)
	}
}
`,
	})
	testkit.Git(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "third_party/lib")
	testkit.Git(t, repo, "config", "-f", ".gitmodules", "submodule.third_party/lib.url", "https://invalid.invalid/lib.git")
	testkit.Git(t, repo, "config", "submodule.third_party/lib.url", "https://invalid.invalid/lib.git")
	testkit.CommitAll(t, repo, "app")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := RunConfig{Dir: repo, Base: "HEAD", Head: "HEAD", Count: 1, Benchtime: "10x", OutDir: t.TempDir()}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Base.Names()) != 1 || len(res.Head.Names()) != 1 {
		t.Errorf("base %v, head %v: want BenchmarkTwice on both sides", res.Base.Names(), res.Head.Names())
	}

	// The user's checkout without the submodule: nothing to fetch it from.
	testkit.Git(t, repo, "submodule", "deinit", "-q", "-f", "third_party/lib")
	_, err = Run(ctx, cfg)
	if !errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), "submodules of HEAD") || !strings.Contains(err.Error(), "git submodule update --init") {
		t.Errorf("err = %v, want ErrBuild naming the submodules and the fix", err)
	}
	if out := gitOut(t, repo, "worktree", "list"); countLines(out+"\n") != 1 {
		t.Errorf("worktrees left behind:\n%s", out)
	}
}

// The head label says +worktree only when the working tree differs from
// HEAD; outside a git repository the error says so.
func TestRunHeadLabelAndNotARepo(t *testing.T) {
	repo, _ := hostileRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sha := gitOut(t, repo, "rev-parse", "HEAD")
	cfg := RunConfig{Dir: repo, Base: "HEAD", Count: 1, Benchtime: "10x", OutDir: t.TempDir(),
		Targets: []Target{{Pkg: ".", Bench: "^BenchmarkQuiet$"}}}
	res, err := Run(ctx, cfg)
	if err != nil || res.HeadCommit != sha {
		t.Errorf("clean tree: head %q, %v; want %s without +worktree", res.HeadCommit, err, sha)
	}
	testkit.Write(t, repo, map[string]string{"extra.go": "package hostile\n"})
	res, err = Run(ctx, cfg)
	if err != nil || res.HeadCommit != sha+"+worktree" {
		t.Errorf("untracked file: head %q, %v; want %s+worktree", res.HeadCommit, err, sha)
	}

	cfg.Dir = t.TempDir()
	_, err = Run(ctx, cfg)
	if !errors.Is(err, ErrNotGitRepo) || errors.Is(err, ErrBuild) || !strings.HasPrefix(err.Error(), "not a git repository: "+cfg.Dir) {
		t.Errorf("err = %v, want ErrNotGitRepo naming %s and no build failure", err, cfg.Dir)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/testkit"
)

// Run's output bound and cleanup through the command: the output bound
// exits 2, temporary folders go away unless -keep, a signal cleans
// up, and the error texts say what is wrong.

// noisyTestFile is benchgate's hostile module (its BenchmarkQuiet,
// BenchmarkNoisy and BenchmarkWaits serve here).
var noisyTestFile = filepath.Join("..", "..", "benchgate", "testdata", "hostile", "hostile_test.go")

// commitModule writes files into repo and commits them as its one commit.
func commitModule(t *testing.T, repo string, files map[string]string) {
	t.Helper()
	testkit.Write(t, repo, files)
	testkit.CommitAll(t, repo, "one")
}

// noisyRepo makes a committed repository of the noisy module, changes into
// it, and gives the command an empty TMPDIR of its own.
func noisyRepo(t *testing.T) (repo, tmp string) {
	t.Helper()
	testkit.NeedGoGit(t)
	noisyTest, err := os.ReadFile(noisyTestFile)
	if err != nil {
		t.Fatal(err)
	}
	repo, tmp = t.TempDir(), filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	commitModule(t, repo, map[string]string{"go.mod": "module example.com/noisy\n\ngo 1.26\n", "noisy_test.go": string(noisyTest)})
	t.Chdir(repo)
	t.Setenv("TMPDIR", tmp)
	return repo, tmp
}

// leftovers lists what is in tmp and the repository's extra worktrees.
func leftovers(t *testing.T, repo, tmp string) []string {
	t.Helper()
	var left []string
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	out, err := exec.Command("git", "-C", repo, "worktree", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 {
		left = append(left, lines[1:]...)
	}
	return left
}

func TestCLIRunTempAndBound(t *testing.T) {
	repo, tmp := noisyRepo(t)
	quiet := []string{"run", "-q", "-base", "HEAD", "-count", "5", "-benchtime", "10x", "-target", ".:^BenchmarkQuiet$"}

	// Base and head are one commit: exit 0, or 1 on a false alarm of the
	// tiny sample; what matters here is what is left behind.
	code, _, errOut := cli(t, quiet...)
	if code == 2 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if left := leftovers(t, repo, tmp); len(left) != 0 || strings.Contains(errOut, "raw results") {
		t.Errorf("without -keep: left %v, stderr %q; want nothing left or announced", left, errOut)
	}

	code, _, errOut = cli(t, append(quiet, "-keep")...)
	left := leftovers(t, repo, tmp)
	if code == 2 || len(left) != 1 || !strings.HasPrefix(left[0], "benchgate-out-") || !strings.Contains(errOut, "raw results: "+filepath.Join(tmp, left[0])) {
		t.Errorf("-keep: exit %d, left %v, stderr %q; want the kept benchgate-out-* named", code, left, errOut)
	}
	os.RemoveAll(filepath.Join(tmp, left[0]))

	code, _, errOut = cli(t, "run", "-q", "-base", "HEAD", "-count", "1", "-benchtime", "10x", "-max-output-mib", "1", "-target", ".:^BenchmarkNoisy$")
	if code != 2 || !strings.Contains(errOut, "benchmark BenchmarkNoisy") || !strings.Contains(errOut, "limit of 1048576 bytes (1 MiB)") {
		t.Errorf("output bound: exit %d, stderr %q; want 2 naming the benchmark and the limit", code, errOut)
	}
	if left := leftovers(t, repo, tmp); len(left) != 0 {
		t.Errorf("after the output bound: left %v", left)
	}
	if code, _, errOut := cli(t, "run", "-base", "HEAD", "-max-output-mib", "0"); code != 2 || !strings.Contains(errOut, "-max-output-mib") {
		t.Errorf("-max-output-mib 0: exit %d, stderr %q", code, errOut)
	}
}

// SIGINT (or SIGTERM) to a running benchgate stops the benchmark and
// removes the worktrees and temporary folders before it exits 130.
func TestCLISignalCleansUp(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH")
	}
	bin := testkit.Build(t, ".", "benchgate")
	repo, tmp := noisyRepo(t)
	mark := filepath.Join(t.TempDir(), "mark")
	cmd := exec.Command(bin, "run", "-q", "-base", "HEAD", "-count", "1", "-base-env", "MARK="+mark, "-target", ".:^BenchmarkWaits$")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the benchmark never started: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
		t.Errorf("exit: %v, want status %d; stderr %s", err, exitInterrupted, stderr.String())
	}
	if left := leftovers(t, repo, tmp); len(left) != 0 {
		t.Errorf("after SIGINT: left %v", left)
	}
}

func TestCLIErrorTexts(t *testing.T) {
	dir := t.TempDir()
	json := filepath.Join(dir, "bench.json")
	os.WriteFile(json, []byte(`{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"m","Output":"PASS\n"}`+"\n"), 0o644)
	if code, _, errOut := cli(t, "compare", json, json); code != 2 || !strings.Contains(errOut, "go test -json output") || !strings.Contains(errOut, "-bench") {
		t.Errorf("test2json input without benchmarks: exit %d, stderr %q; want 2 asking for -bench", code, errOut)
	}

	// -accept's help names the grammar the parser takes.
	_, _, errOut := cli(t, "compare", "-h")
	if !strings.Contains(errOut, benchgate.AcceptLineFormat) {
		t.Errorf("compare -h does not name %q:\n%s", benchgate.AcceptLineFormat, errOut)
	}

	// Outside a git repository nothing is built: the error says where.
	t.Chdir(dir)
	code, _, errOut := cli(t, "run", "-base", "HEAD")
	if code != 2 || !strings.Contains(errOut, "not a git repository: "+dir) || strings.Contains(errOut, "build failed") {
		t.Errorf("outside git: exit %d, stderr %q; want 2 with \"not a git repository: %s\"", code, errOut, dir)
	}
}

package callgrind

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

// fakeValgrind writes a shell script standing in for valgrind: it appends
// its arguments to args.txt beside it and runs body.
func fakeValgrind(t *testing.T, body string) (vg, dir string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the stand-in valgrind is a shell script; process groups are Linux's")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir = t.TempDir()
	vg = filepath.Join(dir, "valgrind")
	script := "#!/bin/sh\necho \"$@\" >>" + filepath.Join(dir, "args.txt") + "\n" + body + "\n"
	if err := os.WriteFile(vg, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return vg, dir
}

// countWithin runs Count in a goroutine and fails t if it has not
// returned within two minutes (a hang: the cases here end in seconds).
func countWithin(t *testing.T, ctx context.Context, r Runner) error {
	t.Helper()
	return testkit.Within(t, 2*time.Minute, "Count", func() error {
		_, err := r.Count(ctx, "/bin/true", "BenchmarkX", 10)
		return err
	})
}

// A run that prints past MaxOutput is stopped and says so, rather than
// reading as "no result line"; valgrind is asked for no vgdb FIFO.
func TestCountOutputOverTheLimit(t *testing.T) {
	vg, dir := fakeValgrind(t, "head -c 3000000 /dev/zero; echo; echo 'BenchmarkX 10 5 ns/op'")
	err := countWithin(t, context.Background(), Runner{Valgrind: vg, TmpDir: t.TempDir(), MaxOutput: 1 << 20})
	if !errors.Is(err, ErrOutputTooLarge) || !strings.Contains(err.Error(), "over the limit of 1048576 bytes") {
		t.Errorf("err = %v, want ErrOutputTooLarge naming the limit", err)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args.txt"))
	if !strings.Contains(string(args), "--vgdb=no") {
		t.Errorf("valgrind arguments lack --vgdb=no: %s", args)
	}
}

// valgrind gone, a child of the benchmark still holding stdout: Count
// returns (here: no result line) and the child is killed.
func TestCountChildHoldingStdout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	vg, _ := fakeValgrind(t, "sleep 3600 & echo $! >"+pidFile)
	err := countWithin(t, context.Background(), Runner{Valgrind: vg, TmpDir: t.TempDir()})
	if !errors.Is(err, ErrBadRun) {
		t.Errorf("err = %v, want ErrBadRun (no result line)", err)
	}
	b, _ := os.ReadFile(pidFile)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if perr != nil {
		t.Fatalf("no pid: %q", b)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if !testkit.Gone(pid, 2*time.Minute) {
		t.Fatal("the child holding stdout outlived Count")
	}
}

// A timeout while valgrind and its child hang ends Count.
func TestCountTimeoutWithChildHoldingStdout(t *testing.T) {
	vg, _ := fakeValgrind(t, "sleep 3600 & sleep 3600")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := countWithin(t, ctx, Runner{Valgrind: vg, TmpDir: t.TempDir()}); !errors.Is(err, ErrBadRun) {
		t.Errorf("err = %v, want ErrBadRun", err)
	}
}

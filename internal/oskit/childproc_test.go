package oskit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// liveness bounds how long a test waits for something that must happen
// promptly; reaching it is a hang, not slowness (the bounded waits are of
// seconds, this is minutes).
const liveness = 2 * time.Minute

func needSh(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("process groups are killed on Linux only")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
}

// runBounded runs cmd through Run in a goroutine and fails the test if it
// has not returned within liveness.
func runBounded(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	return testkit.Within(t, liveness, strings.Join(cmd.Args, " "), func() error { return Run(cmd) })
}

// gone waits (up to liveness) for pid to be gone or a zombie.
func gone(t *testing.T, pid int) {
	t.Helper()
	if testkit.Gone(pid, liveness) {
		return
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d still alive", pid)
}

func pidOf(t *testing.T, out []byte) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]))
	if err != nil {
		t.Fatalf("no pid in %q", out)
	}
	return pid
}

// A child that exits leaving a grandchild with its stdout: Run returns
// without waiting for WaitDelay (an hour here), successfully, and the
// grandchild is killed.
func TestRunKillsGrandchildHoldingStdout(t *testing.T) {
	needSh(t)
	cmd := Command(context.Background(), "sh", "-c", "sleep 3600 & echo $!")
	cmd.WaitDelay = time.Hour
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := runBounded(t, cmd); err != nil {
		t.Fatalf("Run: %v", err)
	}
	gone(t, pidOf(t, out.Bytes()))
}

// Cancelling the context kills the child and its grandchildren.
func TestCancelKillsTheGroup(t *testing.T) {
	needSh(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := Command(ctx, "sh", "-c", "sleep 3600 & echo $! >&3; sleep 3600")
	cmd.ExtraFiles = []*os.File{w}
	wait, err := Start(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- wait() }()
	line := make([]byte, 32)
	n, _ := r.Read(line)
	pid := pidOf(t, line[:n])
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("Run of a cancelled command succeeded")
		}
	case <-time.After(liveness):
		t.Fatal("cancelled command still running")
	}
	gone(t, pid)
}

// A grandchild that left the group (setsid) is bounded by WaitDelay: Run
// returns exec.ErrWaitDelay.
func TestWaitDelayBoundsAnEscapedGrandchild(t *testing.T) {
	needSh(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	// The shell waits until the sleep leads a session of its own (field 6
	// of /proc/PID/stat), so that the group kill cannot reach it first.
	cmd := Command(context.Background(), "sh", "-c",
		`setsid sleep 3600 & while [ "$(cut -d' ' -f6 /proc/$!/stat)" != "$!" ]; do :; done; echo $!`)
	cmd.WaitDelay = 200 * time.Millisecond
	var out bytes.Buffer
	cmd.Stdout = &out
	err := runBounded(t, cmd)
	if pid, perr := strconv.Atoi(strings.TrimSpace(out.String())); perr == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if !errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("Run = %v, want exec.ErrWaitDelay", err)
	}
}

// Output returns stdout, and stderr in the ExitError.
func TestOutput(t *testing.T) {
	needSh(t)
	out, err := Output(Command(context.Background(), "sh", "-c", "echo out; echo err >&2; exit 3"))
	var ee *exec.ExitError
	if !errors.As(err, &ee) || string(out) != "out\n" || string(ee.Stderr) != "err\n" {
		t.Fatalf("Output = %q, %v (stderr %q)", out, err, ee.Stderr)
	}
}

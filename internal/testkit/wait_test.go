package testkit

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestWithinReturnsTheValue: a call that returns in time gives its value.
func TestWithinReturnsTheValue(t *testing.T) {
	if got := Within(t, time.Minute, "add", func() int { return 1 + 1 }); got != 2 {
		t.Fatalf("Within = %d, want 2", got)
	}
}

// TestGone: this process is not gone; a child that has exited and been
// reaped is.
func TestGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if Gone(os.Getpid(), 50*time.Millisecond) {
		t.Error("this process reads as gone")
	}
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Run(); err != nil {
		t.Skip("no /bin/sh:", err)
	}
	if !Gone(cmd.Process.Pid, time.Minute) {
		t.Errorf("reaped child %d not gone", cmd.Process.Pid)
	}
}

package testkit

import (
	"os/exec"
	"testing"
)

// identity is the -c options every Git call passes.
var identity = []string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}

// NeedGoGit skips the test without go or git in PATH, and sets GOWORK=off
// and GOFLAGS=-buildvcs=false for the rest of it.
func NeedGoGit(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not in PATH", tool)
		}
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-buildvcs=false")
}

// Git runs git args in dir, failing the test with git's output on an error.
func Git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append(append([]string{"-C", dir}, identity...), args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// CommitAll makes dir a repository (git init, when it is not one yet) and
// commits everything in it with message msg.
func CommitAll(t *testing.T, dir, msg string) {
	t.Helper()
	Git(t, dir, "init", "-q")
	Git(t, dir, "add", ".")
	Git(t, dir, "commit", "-q", "-m", msg)
}

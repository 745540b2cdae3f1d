// Package cmdtest builds the commands writegc's tests run as a user would:
// a real binary from `go build`, in the test's own temporary folder.
//
// Invariants: Build fails the test, with go build's output, when the build
// fails; the binary is removed with the test's temporary folder. It runs
// the go of the running toolchain ($GOROOT/bin/go) where there is one, so
// that a PATH without go, or with another go, builds with the toolchain
// under test. Build passes no -race, whatever the test binary was built
// with (the race detector's shadow memory would make resident-memory
// figures meaningless). For tests only; safe to call from parallel tests.
package cmdtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Build builds the package pkg (an import path, or a folder such as "."
// relative to the test's working folder) into a binary named name in a new
// temporary folder and returns its path.
func Build(t testing.TB, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command(Go(), "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// Go is the go command to run: $GOROOT/bin/go where it exists, else "go"
// from PATH.
func Go() string {
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			return p
		}
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

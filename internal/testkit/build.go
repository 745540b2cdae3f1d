package testkit

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

package testkit

import (
	"os/exec"
	"testing"
)

// TestBuild builds testdata/hello and runs the binary it returns.
func TestBuild(t *testing.T) {
	bin := Build(t, "./testdata/hello", "hello")
	if out, err := exec.Command(bin, "world").Output(); err != nil || string(out) != "hello world\n" {
		t.Fatalf("%s world: %q, %v", bin, out, err)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMyStoreUnderBuildEnvs: the user's binary, run from its module with
// -build-envs and no -build-pkg, builds its own main package once per
// environment and runs the user's engine under each; bench.txt and the
// report name both environments.
func TestMyStoreUnderBuildEnvs(t *testing.T) {
	dir, exe := buildExample(t)
	out := filepath.Join(dir, "out")
	// The environments differ in a runtime variable only: one build, cached.
	cmd := exec.Command(exe, "-build-envs", "plain=;madv=GODEBUG=madvdontneed=1", "-kinds", "mystore,arena", "-values", "100",
		"-keys", "20K", "-scenario", "matrix", "-memstore", "1MB", "-regions", "1", "-window", "250ms", "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	bench, err := os.ReadFile(filepath.Join(out, "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"kind=mystore/value=100/env=plain", "kind=mystore/value=100/env=madv", "kind=arena/value=100/env=madv"} {
		if !strings.Contains(string(bench), w) {
			t.Errorf("bench.txt lacks %s:\n%s", w, bench)
		}
	}
	if md, _ := os.ReadFile(filepath.Join(out, "report.md")); !strings.Contains(string(md), "mystore 100B: madv ") {
		t.Errorf("report.md has no mystore comparison of the environments")
	}
}

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUsageExitsTwoNamingTheFlag(t *testing.T) {
	for _, args := range [][]string{{"-values", "0"}, {"-kinds", "nosuch"}, {"-format", "xml"}} {
		var stderr bytes.Buffer
		err := run(context.Background(), append(args, "-out", t.TempDir()), io.Discard, &stderr)
		if code := exitCode(err, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%v)", args, code, err)
		}
		if !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("%v: message %q does not name the flag", args, stderr.String())
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"-h"}, io.Discard, &stderr)
	if code := exitCode(err, io.Discard); code != 0 || !strings.Contains(stderr.String(), "-memstore") {
		t.Fatalf("exit %d, usage %q", code, stderr.String())
	}
}

func TestExplainUsageExitsTwo(t *testing.T) {
	err := run(context.Background(), []string{"explain"}, io.Discard, io.Discard)
	if code := exitCode(err, io.Discard); code != 2 {
		t.Fatalf("explain without files: exit %d (%v), want 2", code, err)
	}
}

// TestNonEmptyOutExitsTwo: a results folder that already holds a run is
// refused with exit 2, naming the folder and -replace-out.
func TestNonEmptyOutExitsTwo(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "samples.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	// Tiny settings: were the folder accepted, the run would be short.
	args := []string{"-out", out, "-quick", "-kinds", "arena", "-values", "100", "-keys", "1K", "-scenario", "matrix", "-memstore", "1MB", "-regions", "1"}
	err := run(context.Background(), args, io.Discard, &stderr)
	if code := exitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), out) || !strings.Contains(stderr.String(), "-replace-out") {
		t.Fatalf("exit %d, message %q", code, stderr.String())
	}
}

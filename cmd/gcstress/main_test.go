package main

import (
	"bytes"
	"context"
	"io"
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

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the harness re-execute the test binary as its child server.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"nope"}, {"tcp", "-bogus"}, {"tcp", "extra"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("run(%q) = %d, want 2; stderr %s", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	run([]string{"tcp", "-bogus"}, &out, &errb)
	if !strings.Contains(errb.String(), "-bogus") {
		t.Errorf("bad flag not named: %s", errb.String())
	}
}

// TestTCPQuick runs the tcp subcommand end to end in -quick mode (small
// counts, short timeouts: a few seconds, also under -race).
func TestTCPQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("a TCP abuse run of about 10 s: make test-slow")
	}
	file := filepath.Join(t.TempDir(), "tcp.md")
	var out, errb bytes.Buffer
	if code := run([]string{"tcp", "-quick", "-out", file}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	b, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(b, out.Bytes()) {
		t.Fatalf("-out file differs from stdout (%v)", err)
	}
	table := out.String()
	t.Log("\n" + table)
	for _, a := range tcpAbuses {
		if !strings.Contains(table, "| "+a.name+" |") {
			t.Errorf("no row for %q", a.name)
		}
	}
	if strings.Contains(table, "harness error") {
		t.Error("an abuse failed to run")
	}
	// The per-peer limits: slow large Puts of one peer are all closed and
	// do not hold up another's 1 MiB Put; one peer gets a quarter of the
	// slots (32/4) and another still connects.
	for _, want := range []string{
		"| 4/4 closed, the last after ",
		"| 8 admitted, 192 refused at MaxConnsPerPeer; another peer (127.0.0.3) still connects: yes |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("no %q in the table", want)
		}
	}
	if strings.Contains(table, "1 MiB Put from 127.0.0.1 meanwhile: failed") {
		t.Error("the well-behaved 1 MiB Put failed during the slow large Puts")
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, arg := range []string{"-h", "help"} {
		var out, errb bytes.Buffer
		if code := run([]string{arg}, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage:") {
			t.Errorf("run(%q) = %d, stdout %q; want 0 and the usage", arg, code, out.String())
		}
	}
}

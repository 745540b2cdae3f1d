package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain runs the command when this test binary is a child it started.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		main()
	}
	os.Exit(m.Run())
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-rounds", "0"}, {"-keys", "-1"}, {"-value", "0"}, {"-value", "abc"}, {"-huge", "always"},
		{"-procs", "-1"}, {"-nosuchflag"}, {"extra"},
		{"-value", "17MiB"}, {"-keys", "10000000"}, {"-rounds", "5000"},
	} {
		var errb bytes.Buffer
		if rc := run(args, new(bytes.Buffer), &errb); rc != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, rc, errb.String())
		}
	}
}

func TestRunInProcess(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"-rounds", "2", "-keys", "200", "-value", "10KB"}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	recs, err := readLines(&out)
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if recs[0].Kind != "arena" || recs[2].Kind != "offheap" || recs[3].Round != 1 {
		t.Errorf("order %s %s %s %s: want arena, offheap, then offheap, arena", recs[0].Kind, recs[1].Kind, recs[2].Kind, recs[3].Kind)
	}
	if !strings.Contains(errb.String(), "offheap/arena") || strings.Count(errb.String(), "\n") != 6 {
		t.Errorf("summary table:\n%s", errb.String())
	}
}

// TestRunChildren runs two children and writes their records to -out.
func TestRunChildren(t *testing.T) {
	path := filepath.Join(t.TempDir(), "probe.jsonl")
	var out, errb bytes.Buffer
	if rc := run([]string{"-procs", "2", "-rounds", "1", "-keys", "100", "-value", "100", "-huge", "never", "-out", path}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("with -out, standard output got %q", out.String())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := readLines(f)
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if recs[0].Proc != 0 || recs[3].Proc != 1 || recs[1].HugePages != "never" || recs[1].ValueSize != 100 {
		t.Errorf("records %+v", recs)
	}
	if n := strings.Count(errb.String(), "\n"); n != 7 {
		t.Errorf("summary has %d lines, want a header and one row per child, twice, and a blank line:\n%s", n, errb.String())
	}
}

func TestReadLinesRejects(t *testing.T) {
	for _, in := range []string{"{\"nosuch\":1}\n", "not json\n", strings.Repeat("x", maxRecordLine+1)} {
		if _, err := readLines(strings.NewReader(in)); err == nil {
			t.Errorf("readLines(%.30q) accepted", in)
		}
	}
}

func TestWriteAtomicFails(t *testing.T) {
	if err := writeAtomic(filepath.Join(t.TempDir(), "no", "such", "dir", "f"), func(io.Writer) error { return nil }); err == nil {
		t.Error("writeAtomic into a missing folder succeeded")
	}
}

func TestWriteAtomicWriteError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	boom := os.ErrInvalid
	if err := writeAtomic(path, func(io.Writer) error { return boom }); err != boom {
		t.Errorf("err = %v, want the write's error", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v behind", ents)
	}
}

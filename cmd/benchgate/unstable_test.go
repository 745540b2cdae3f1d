package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/history"
)

// gateHistory records 10 gate-mode points per commit for machine "CPU A":
// BenchmarkShaky alternates between two levels 20% apart (unstable),
// BenchmarkSteady stays put.
func gateHistory(t *testing.T, db string) {
	t.Helper()
	st, err := history.Open(context.Background(), db, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10 {
		var b bytes.Buffer
		fmt.Fprintf(&b, "goos: linux\ngoarch: amd64\ncpu: CPU A\ncommit: c%02d\ncommit-time: %s\n", i, t0.Add(time.Duration(i)*time.Hour).Format(time.RFC3339))
		for k := range 3 {
			fmt.Fprintf(&b, "BenchmarkShaky-2  1000  %d ns/op\n", 1000+200*(i%2)+k)
			fmt.Fprintf(&b, "BenchmarkSteady-2  1000  %d ns/op\n", 1000+k)
		}
		rec, err := history.Prepare(b.Bytes(), fmt.Sprintf("c%02d.txt", i), history.Labels{Mode: history.ModeGate}, history.PrepareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Record(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
}

func gateSide(t *testing.T, cpu string, shaky int) *benchgate.Set {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "goos: linux\ngoarch: amd64\ncpu: %s\n", cpu)
	for k := range 10 {
		fmt.Fprintf(&b, "BenchmarkShaky-2  1000  %d ns/op\n", shaky+k)
		fmt.Fprintf(&b, "BenchmarkSteady-2  1000  %d ns/op\n", 1000+k)
	}
	p := filepath.Join(t.TempDir(), "side.txt")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := benchgate.ParseFiles(p)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestUnstableNotes: run -db names, in the report's notes (text and
// Markdown), the rows whose history series is unstable, with what that means
// for a regressed row, and nothing for a stable series or another machine.
func TestUnstableNotes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	gateHistory(t, db)
	base, head := gateSide(t, "CPU A", 1000), gateSide(t, "CPU A", 1300)
	rep, err := benchgate.Compare(base, head, benchgate.Options{})
	if rep == nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	notes := unstableNoter(context.Background(), db, head, &stderr)(rep.Rows)
	if len(notes) != 1 || !strings.Contains(notes[0], "BenchmarkShaky-2 ns/op is unstable in the history (latest 10 gate runs: noise") ||
		!strings.Contains(notes[0], "still fails the gate") || stderr.Len() != 0 {
		t.Fatalf("notes %q, stderr %q: want one naming BenchmarkShaky-2 as unstable and regressed", notes, stderr.String())
	}
	rep.Notes = append(rep.Notes, notes...)
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "BenchmarkShaky-2 ns/op is unstable in the history") {
		t.Errorf("Markdown (%v) does not name the unstable series:\n%s", err, md.String())
	}
	other := gateSide(t, "CPU B", 1000)
	if n := unstableNoter(context.Background(), db, other, &stderr)(rep.Rows); len(n) != 0 {
		t.Errorf("another machine's run: notes %q, want none", n)
	}
	if n := unstableNoter(context.Background(), "", head, &stderr)(rep.Rows); n != nil {
		t.Errorf("no -db: notes %q", n)
	}
	bad := filepath.Join(t.TempDir(), "garbage.db")
	os.WriteFile(bad, []byte("garbage garbage garbage"), 0o644)
	if n := unstableNoter(context.Background(), bad, head, &stderr)(rep.Rows); n != nil || !strings.Contains(stderr.String(), "unstable series not checked") {
		t.Errorf("unreadable -db: notes %q, stderr %q: want a warning and no notes", n, stderr.String())
	}
}

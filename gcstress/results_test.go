package gcstress

import (
	"github.com/writegc/writegc/gcstress/internal/runner"
	"github.com/writegc/writegc/internal/testkit"

	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// failingTemp is a temporary file whose write, sync or close fails the way
// a full disk or a failing device does: a write keeps the first bytes
// (a partial file), then returns ENOSPC.
type failingTemp struct {
	*os.File
	op      string // "write", "sync" or "close"
	written int
}

func (f *failingTemp) Write(p []byte) (int, error) {
	if f.op != "write" || f.written+len(p) <= 100 {
		n, err := f.File.Write(p)
		f.written += n
		return n, err
	}
	n, _ := f.File.Write(p[:max(0, 100-f.written)])
	f.written += n
	return n, syscall.ENOSPC
}

func (f *failingTemp) Sync() error {
	if f.op == "sync" {
		return syscall.EIO
	}
	return f.File.Sync()
}

func (f *failingTemp) Close() error {
	err := f.File.Close()
	if f.op == "close" {
		return syscall.EIO
	}
	return err
}

// failOn creates temporary files that fail at op for the file named base
// and work for every other.
func failOn(base, op string) createTempFunc {
	return func(dir, pattern string) (runner.TempFile, error) {
		if op == "create" && strings.HasPrefix(pattern, "."+base+".tmp-") {
			return nil, syscall.EROFS
		}
		f, err := os.CreateTemp(dir, pattern)
		if err != nil || !strings.HasPrefix(pattern, "."+base+".tmp-") {
			return f, err
		}
		return &failingTemp{File: f, op: op}, nil
	}
}

// TestResultsWriteFailureNamesTheFile: a summary.json that cannot be
// written (the disk fills mid-file) fails the run with an error wrapping
// ErrWrite that names the file, leaves no summary.json, partial or not,
// nor any temporary file, and writes no report resting on it.
func TestResultsWriteFailureNamesTheFile(t *testing.T) {
	out := t.TempDir()
	var stderr syncBuf
	_, err := runWith(context.Background(), tinyConfig(out), &Runner{StopOnFail: true},
		Options{Progress: &stderr, createTemp: failOn("summary.json", "write")})
	want := filepath.Join(out, "summary.json")
	if !errors.Is(err, ErrWrite) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), want) {
		t.Fatalf("run: %v, want an ErrWrite naming %s\n%s", err, want, stderr.String())
	}
	for name := range testkit.Tree(t, out) {
		if name == "summary.json" || name == "report.md" || name == "report.html" || strings.Contains(name, ".tmp-") {
			t.Errorf("%s left after the failed write", name)
		}
	}
	m, err := runner.ReadManifest(out)
	if err != nil || len(m.Files) != 1 || m.Files[0].Path != samplesFile || m.Files[0].Partial || m.Files[0].SHA256 == "" {
		t.Fatalf("manifest after the failure: %+v, %v (want samples.jsonl, closed and digested)", m, err)
	}
}

// TestReportWriteFailures: each report file whose write, sync, close or
// creation fails is an ErrWrite naming it, and leaves the earlier version
// of the file (or none) untouched: never a partial file.
func TestReportWriteFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a scenario per failing file: make test-slow")
	}
	sum := recordedSummary(t)
	for _, tc := range []struct{ file, op string }{
		{"report.md", "write"}, {"report.md", "close"}, {"report.html", "sync"},
		{"throughput.png", "write"}, {"timeline-10B.svg", "create"}, {"summary.json", "close"}, {ManifestFile, "write"},
	} {
		t.Run(tc.file+"/"+tc.op, func(t *testing.T) {
			dir := t.TempDir()
			const earlier = "an earlier version\n"
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(earlier), 0o644); err != nil {
				t.Fatal(err)
			}
			err := writeResults(newOutFiles(dir, failOn(tc.file, tc.op)), sum)
			if !errors.Is(err, ErrWrite) || !strings.Contains(err.Error(), filepath.Join(dir, tc.file)) {
				t.Fatalf("%v, want an ErrWrite naming %s", err, tc.file)
			}
			tree := testkit.Tree(t, dir)
			if tree[tc.file] != earlier {
				t.Errorf("%s is now %d bytes, want the earlier version", tc.file, len(tree[tc.file]))
			}
			for name := range tree {
				if strings.Contains(name, ".tmp-") {
					t.Errorf("temporary file %s left", name)
				}
			}
		})
	}
}

// TestCloseSamplesFailure: a samples.jsonl whose close (or sync) fails is
// an ErrWrite naming it.
func TestCloseSamplesFailure(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, samplesFile))
	if err != nil {
		t.Fatal(err)
	}
	f.Close() // a second close fails, as a close on a full NFS disk does
	err = closeSamples(newOutFiles(dir, nil), f)
	if !errors.Is(err, ErrWrite) || !strings.Contains(err.Error(), f.Name()) {
		t.Fatalf("%v, want an ErrWrite naming %s", err, f.Name())
	}
}

// TestTerminalReportFailureNamesTheWriter: a terminal report that cannot be
// written (stdout redirected to a full disk) is an ErrWrite naming the file.
func TestTerminalReportFailureNamesTheWriter(t *testing.T) {
	f, err := os.Open(os.DevNull) // read-only: every write fails
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = reportErr(f, WriteReport(f, FormatTable, recordedSummary(t)))
	if !errors.Is(err, ErrWrite) || !strings.Contains(err.Error(), os.DevNull) {
		t.Fatalf("%v, want an ErrWrite naming %s", err, os.DevNull)
	}
}

// TestReplaceOutRefusesFolderWithoutManifest: a
// user's folder of their own profiles, a report.md and empty folders, with
// no manifest, is refused by -replace-out (a usage error naming the
// manifest) and left exactly as it was.
func TestReplaceOutRefusesFolderWithoutManifest(t *testing.T) {
	out := t.TempDir()
	for name, data := range map[string]string{
		"cpu.pprof": "my profile", "trace.out": "my trace", "report.md": "# my notes\n",
		"arena-100B/cpu.pprof": "mine too", "arena-100B/trace.out": "and this",
	} {
		mustWrite(t, filepath.Join(out, name), data)
	}
	for _, d := range []string{"empty", "heap-10B", "nested/empty"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := testkit.Tree(t, out)
	c := tinyConfig(out)
	c.ReplaceOut = true
	_, err := Run(context.Background(), c, Options{})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), ManifestFile) || !strings.Contains(err.Error(), "-replace-out") {
		t.Fatalf("run: %v, want a usage error naming -replace-out and the manifest", err)
	}
	if after := testkit.Tree(t, out); !maps.Equal(before, after) {
		t.Fatalf("the refused run changed the folder:\nbefore %v\nafter  %v", before, after)
	}
}

// TestReplaceOutRemovesOnlyTheRunsFiles: after a real run (with a
// scenario folder), -replace-out removes that run's files and folder,
// keeps a user's files beside them, and the new run's samples are its own.
// A user file inside the run's scenario folder, or a report.md the user
// rewrote, makes -replace-out refuse and remove nothing.
func TestReplaceOutRemovesOnlyTheRunsFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gcstress twice into one folder: make test-slow")
	}
	out := t.TempDir()
	c := tinyConfig(out)
	c.Flight = true // the child creates the scenario's folder
	if _, err := Run(context.Background(), c, Options{}); err != nil {
		t.Fatal(err)
	}
	first := testkit.Tree(t, out)
	for _, want := range []string{"samples.jsonl", "summary.json", "report.md", "report.html", ManifestFile, "arena-100B/"} {
		if _, ok := first[want]; !ok {
			t.Fatalf("the first run wrote no %s: %v", want, slices.Sorted(maps.Keys(first)))
		}
	}
	mustWrite(t, filepath.Join(out, "notes.txt"), "mine")
	mustWrite(t, filepath.Join(out, "mine/data.csv"), "1,2")

	// A user file in the run's scenario folder: refused, nothing removed.
	mustWrite(t, filepath.Join(out, "arena-100B/mine.txt"), "mine")
	refused(t, c, out, "arena-100B")
	os.Remove(filepath.Join(out, "arena-100B/mine.txt"))
	// The user's own report.md in place of the run's: refused, kept.
	mustWrite(t, filepath.Join(out, "report.md"), "# my report\n")
	refused(t, c, out, "report.md")
	mustWrite(t, filepath.Join(out, "report.md"), first["report.md"])

	c.ReplaceOut = true
	var stderr syncBuf
	if _, err := Run(context.Background(), c, Options{Progress: &stderr}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	second := testkit.Tree(t, out)
	if second["notes.txt"] != "mine" || second["mine/data.csv"] != "1,2" {
		t.Fatalf("user files lost: %v", slices.Sorted(maps.Keys(second)))
	}
	if n := strings.Count(second["samples.jsonl"], `"type":"start"`); n != 1 {
		t.Fatalf("samples.jsonl holds %d start lines, want the new run's one", n)
	}
	if !strings.Contains(stderr.String(), "notes.txt") {
		t.Errorf("no note of the entries left: %s", stderr.String())
	}
	m, err := runner.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, "mine") || f.Path == "notes.txt" {
			t.Errorf("the manifest claims the user's %s", f.Path)
		}
	}
}

// refused checks that a -replace-out run of c into out is a usage error
// naming clash and leaves out as it was.
func refused(t *testing.T, c Config, out, clash string) {
	t.Helper()
	before := testkit.Tree(t, out)
	c.ReplaceOut = true
	_, err := Run(context.Background(), c, Options{})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), clash) {
		t.Fatalf("run: %v, want a usage error naming %s", err, clash)
	}
	if after := testkit.Tree(t, out); !maps.Equal(before, after) {
		t.Fatalf("the refused run changed the folder")
	}
}

// TestManifestRefusesPathsOutside: a manifest naming a file outside the
// folder (or the manifest itself) is refused whole, so -replace-out can
// never remove anything outside the results folder.
func TestManifestRefusesPathsOutside(t *testing.T) {
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x", "a/b/c", ManifestFile, "", "./x", `a\..\x`} {
		dir := t.TempDir()
		b, _ := json.Marshal(runner.Manifest{Tool: runner.ManifestTool, Version: runner.ManifestVersion, Files: []runner.FileRecord{{Path: p, Partial: true}}})
		mustWrite(t, filepath.Join(dir, ManifestFile), string(b))
		if _, err := runner.ReadManifest(dir); err == nil {
			t.Errorf("manifest listing %q accepted", p)
		}
		if _, err := runner.Clear(dir, func(string) bool { return false }); !errors.Is(err, ErrUsage) {
			t.Errorf("clear with a manifest listing %q: %v, want a usage error", p, err)
		}
	}
}

func mustWrite(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestManifestListsEveryFileOnFailure: whichever save of the manifest
// fails (the disk filling up between two files), every file left in the
// folder is one the manifest lists, so -replace-out can remove it later.
func TestManifestListsEveryFileOnFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a scenario per failing file: make test-slow")
	}
	sum := recordedSummary(t)
	for k := 1; k <= 8; k++ {
		dir := t.TempDir()
		saves := 0
		create := func(d, pattern string) (runner.TempFile, error) {
			if strings.HasPrefix(pattern, "."+ManifestFile+".tmp-") {
				if saves++; saves > k {
					return nil, syscall.ENOSPC
				}
			}
			return os.CreateTemp(d, pattern)
		}
		err := writeResults(newOutFiles(dir, create), sum)
		if !errors.Is(err, ErrWrite) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("save %d fails: %v", k+1, err)
		}
		m, err := runner.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{ManifestFile: true}
		for _, f := range m.Files {
			listed[f.Path] = true
		}
		for name := range testkit.Tree(t, dir) {
			if !listed[name] {
				t.Errorf("save %d fails: %s is in the folder but not in the manifest", k+1, name)
			}
		}
	}
}

package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate/changepoint"
	"github.com/writegc/writegc/benchgate/history"
	"github.com/writegc/writegc/internal/testkit"
)

// cliHangLimit is how long a test waits before calling a command hung: far
// more than the timeouts under test.
const cliHangLimit = 2 * time.Minute

// cliWithin runs cli, failing the test if it has not returned in time.
func cliWithin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code        int
		out, errOut string
	}
	r := testkit.Within(t, cliHangLimit, "benchgate "+strings.Join(args, " "), func() result {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		return result{exitCode(err, &stderr), stdout.String(), stderr.String()}
	})
	return r.code, r.out, r.errOut
}

// TestDSNNeverAFile: DSNs that are not postgres:// URLs are PostgreSQL
// (key=value form) or refused, never a new SQLite file named after them,
// and no message shows the password.
func TestDSNNeverAFile(t *testing.T) {
	file := historyFiles(t, t.TempDir(), "CPU A", 1, 9)[0]
	t.Chdir(t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // accepts (the kernel's backlog) and never answers
	port := ln.Addr().(*net.TCPAddr).Port
	for _, db := range []string{
		fmt.Sprintf("host=127.0.0.1 port=%d user=ci password=s3cr3t dbname=bench sslmode=disable connect_timeout=1", port),
		fmt.Sprintf("postgres://ci:s3cr3t@127.0.0.1:%d/bench?sslmode=disable&connect_timeout=1", port),
		"postgresql+psycopg://ci:s3cr3t@db.example/bench", "postgres:/ci:s3cr3t@db.example/bench",
	} {
		for _, cmd := range []string{"record", "history"} {
			args := []string{cmd, "-db", db}
			if cmd == "record" {
				args = append(args, file)
			}
			code, out, errOut := cliWithin(t, args...)
			if code != 2 || strings.Contains(out+errOut, "s3cr3t") {
				t.Errorf("%s -db %s: exit %d, %q %q; want 2 without the password", cmd, history.RedactDSN(db), code, out, errOut)
			}
		}
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Errorf("files created: %v", ents)
	}
}

// TestForeignDBUntouchedCLI: history and record leave another
// application's SQLite database byte for byte as it was.
func TestForeignDBUntouchedCLI(t *testing.T) {
	dir := t.TempDir()
	file := historyFiles(t, dir, "CPU A", 1, 9)[0]
	path := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts (name) VALUES ('ann')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	for _, args := range [][]string{{"history", "-db", path}, {"record", "-db", path, file}} {
		code, out, errOut := cliWithin(t, args...)
		if code != 2 || !strings.Contains(errOut, "not a benchgate history") || !strings.Contains(errOut, `"accounts"`) {
			t.Errorf("%s: exit %d, %q %q; want 2 naming the foreign table", args[0], code, out, errOut)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Errorf("%s changed the database", args[0])
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("files beside it: %v", ents)
	}
}

// TestRecordKeepsGoing: record records every file it can, names each one
// it cannot, and exits 2.
func TestRecordKeepsGoing(t *testing.T) {
	dir := t.TempDir()
	files := historyFiles(t, dir, "CPU A", 2, 9)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("BenchmarkA 1 x ns/op\n"), 0o644)
	missing := filepath.Join(dir, "missing.txt")
	db := filepath.Join(dir, "h.db")
	code, out, errOut := cliWithin(t, "record", "-db", db, files[0], bad, missing, files[1])
	if code != 2 || strings.Count(out, "recorded c0") != 2 || !strings.Contains(errOut, "bad.txt") || !strings.Contains(errOut, "missing.txt") ||
		!strings.Contains(errOut, "2 of 4 files could not be recorded") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestBackfillSymlinkAndRefName: -dir records a symlinked file, and a file
// named HEAD.txt under the label "HEAD", not as the commit HEAD is today.
func TestBackfillSymlinkAndRefName(t *testing.T) {
	src := t.TempDir()
	files := historyFiles(t, src, "CPU A", 2, 9)
	dir := t.TempDir()
	if err := os.Symlink(files[0], filepath.Join(dir, "c00.txt")); err != nil {
		t.Skip("no symlinks:", err)
	}
	b, _ := os.ReadFile(files[1])
	os.WriteFile(filepath.Join(dir, "HEAD.txt"), bytes.Replace(b, []byte("commit: c01\n"), nil, 1), 0o644)
	db := filepath.Join(t.TempDir(), "h.db")
	code, out, errOut := cliWithin(t, "record", "-db", db, "-dir", dir)
	if code != 0 || strings.Count(out, "recorded") != 2 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	st, err := history.Open(context.Background(), db, history.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var commits []string
	for _, r := range recs {
		commits = append(commits, r.Labels.Commit)
	}
	if strings.Join(commits, " ") != "c00 HEAD" && strings.Join(commits, " ") != "HEAD c00" {
		t.Errorf("commits %v, want c00 and HEAD", commits)
	}
}

// TestRunDBCheckedFirst: run -db fails on a bad database before running
// anything.
func TestRunDBCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := cliWithin(t, "run", "-base", "HEAD", "-pkgs", "./no/such/package", "-count", "1", "-db", dir)
	if code != 2 || !strings.Contains(errOut, "-db:") || !strings.Contains(errOut, "not a regular file") {
		t.Errorf("run -db DIRECTORY: exit %d, %q; want 2 and a -db error", code, errOut)
	}
}

// TestRegressionLineEscaped: the regression line on stderr escapes control
// characters of a benchmark name.
func TestRegressionLineEscaped(t *testing.T) {
	as := []history.Analysis{{Series: history.Series{SeriesKey: history.SeriesKey{Benchmark: "Bench\x1b[2J", Unit: "ns/op", Machine: "m"}, Points: make([]history.Point, 3)},
		Result: &changepoint.Result{ChangePoints: []changepoint.ChangePoint{{Index: 2, Commit: "c2", RelChange: 0.1, Direction: changepoint.Regression}}}}}
	var stderr bytes.Buffer
	if err := latestRegressions(as, 10, false, &stderr); err == nil || strings.Contains(stderr.String(), "\x1b") || !strings.Contains(stderr.String(), `Bench\x1b[2J`) {
		t.Errorf("%v, %q", err, stderr.String())
	}
}

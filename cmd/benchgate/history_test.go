package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/history"
	"github.com/writegc/writegc/internal/testkit"
)

// historyFiles writes n benchmark files, one per commit c00, c01, ..., with
// commit and commit-time lines; ns/op steps up 10% at commit step; B/op is
// flat. The noise is seeded, so the files are the same on every run.
func historyFiles(t *testing.T, dir, cpu string, n, step int) []string {
	t.Helper()
	r := rand.New(rand.NewPCG(26, 26))
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var paths []string
	for i := range n {
		var b bytes.Buffer
		fmt.Fprintf(&b, "goos: linux\ngoarch: amd64\ncpu: %s\ncommit: c%02d\ncommit-time: %s\n", cpu, i, t0.Add(time.Duration(i)*time.Hour).Format(time.RFC3339))
		level := 1000.0
		if i >= step {
			level = 1100
		}
		for range 5 {
			fmt.Fprintf(&b, "BenchmarkPut-2  1000  %.0f ns/op  48 B/op\n", level*(1+0.01*r.NormFloat64()))
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-c%02d.txt", strings.ReplaceAll(cpu, " ", ""), i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// historyDBs is the CLI half of the store's two-backend suite: a SQLite
// file, and PostgreSQL when WRITEGC_TEST_PG_DSN is set.
func historyDBs(t *testing.T) map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "h.db") },
		"postgres": pgSchemaDSN,
	}
}

func pgSchemaDSN(t *testing.T) string {
	base := os.Getenv("WRITEGC_TEST_PG_DSN")
	if base == "" {
		t.Skip("PostgreSQL tests skipped: set WRITEGC_TEST_PG_DSN=postgres://USER@127.0.0.1:PORT/DB?sslmode=disable (.ci/run starts such a server)")
	}
	schema := fmt.Sprintf("cli_%d", time.Now().UnixNano())
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP SCHEMA " + schema + " CASCADE") })
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

func TestRecordHistoryCLI(t *testing.T) {
	for name, newDB := range historyDBs(t) {
		t.Run("backend="+name, func(t *testing.T) {
			db := newDB(t)
			dir := t.TempDir()
			files := historyFiles(t, dir, "CPU A", 30, 20)
			files = append(files, historyFiles(t, dir, "CPU B", 30, 31)...) // flat on machine B
			code, out, errOut := cli(t, append([]string{"record", "-db", db, "-branch", "main"}, files...)...)
			if code != 0 || strings.Count(out, "recorded c") != 60 {
				t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
			}
			code, out, _ = cli(t, "record", "-db", db, files[0])
			if code != 0 || !strings.Contains(out, "already recorded") {
				t.Errorf("recording again: exit %d, %q", code, out)
			}
			// The step at c20 is within the latest 10 commits (the default): exit 1.
			code, out, errOut = cli(t, "history", "-db", db, "-format", "json")
			if code != 1 || !strings.Contains(errOut, "regression: BenchmarkPut-2 ns/op") {
				t.Errorf("history: exit %d, want 1; stderr %s", code, errOut)
			}
			testkit.CheckGolden(t, filepath.Join("testdata", "history.golden.json"), []byte(out))
			checkJSONShape(t, out)
			code, out, errOut = cli(t, "history", "-db", db, "-format", "md", "-fail-latest", "9")
			if code != 0 {
				t.Errorf("history -fail-latest 9: exit %d, want 0; %s", code, errOut)
			}
			testkit.CheckGolden(t, filepath.Join("testdata", "history.golden.md"), []byte(out))
			html := filepath.Join(t.TempDir(), "page")
			code, out, errOut = cli(t, "history", "-db", db, "-machine", "cpu=CPU B; gomaxprocs=2; goos=linux; goarch=amd64", "-html", html)
			if code != 0 || !strings.Contains(out, "0 series") {
				t.Errorf("history -machine (no such fingerprint): exit %d, %q %s", code, out, errOut)
			}
			code, out, errOut = cli(t, "history", "-db", db, "-bench", "Put", "-html", html, "-fail-latest", "0")
			if code != 0 || !strings.Contains(out, "c20") || !strings.Contains(out, "4 series, 1 change points (1 regressions)") {
				t.Errorf("history table: exit %d\n%s\n%s", code, out, errOut)
			}
			if b, err := os.ReadFile(filepath.Join(html, "index.html")); err != nil || strings.Count(string(b), `<circle class="pt"`) != 120 {
				t.Errorf("trend page: %v, %d points (want 120)", err, strings.Count(string(b), `<circle class="pt"`))
			}
		})
	}
}

// checkJSONShape checks the contract's exact keys.
func checkJSONShape(t *testing.T, out string) {
	t.Helper()
	var v map[string][]map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 1 || len(v["series"]) != 4 {
		t.Fatalf("JSON %v: %s", err, out)
	}
	var found bool
	for _, s := range v["series"] {
		if keys := mapKeys(s); !reflect.DeepEqual(keys, []string{"benchmark", "change_points", "flips", "last_commit", "latest_commit", "machine", "noise", "stale", "unit", "unstable"}) {
			t.Errorf("series keys %v", keys)
		}
		for _, cp := range s["change_points"].([]any) {
			found = true
			m := cp.(map[string]any)
			if keys := mapKeys(m); !reflect.DeepEqual(keys, []string{"after", "before", "commit", "direction", "index", "p_value", "rel_change"}) {
				t.Errorf("change point keys %v", keys)
			}
			if m["commit"] != "c20" || m["index"] != 20.0 || m["direction"] != "regression" {
				t.Errorf("change point %v, want c20 at index 20, a regression", m)
			}
		}
	}
	if !found {
		t.Error("no change point in the JSON")
	}
}

func mapKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestBackfillDir(t *testing.T) {
	src := t.TempDir()
	files := historyFiles(t, src, "CPU A", 12, 99)
	dir := t.TempDir()
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The commit comes from the file name: drop the commit line.
		b = bytes.Replace(b, []byte(fmt.Sprintf("commit: c%02d\n", i)), nil, 1)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%02d.txt", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("not a result"), 0o644)
	db := filepath.Join(t.TempDir(), "h.db")
	code, out, errOut := cli(t, "record", "-db", db, "-dir", dir)
	if code != 0 || strings.Count(out, "recorded") != 12 || !strings.Contains(out, "recorded c00") {
		t.Fatalf("backfill: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = cli(t, "history", "-db", db, "-format", "json")
	if code != 0 || strings.Count(out, `"benchmark"`) != 2 { // flat: no change point
		t.Errorf("after backfill: exit %d %s", code, out)
	}
}

func TestHistoryCLIErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("x"), 4096), 0o644)
	file := historyFiles(t, dir, "CPU A", 1, 9)[0]
	for _, tc := range []exitCase{
		{"record without -db", []string{"record", file}, 2, "-db is required"},
		{"record without files", []string{"record", "-db", filepath.Join(dir, "a.db")}, 2, "want FILE arguments"},
		{"record -dir and files", []string{"record", "-db", filepath.Join(dir, "a.db"), "-dir", dir, file}, 2, "-dir takes no FILE"},
		{"record bad commit time", []string{"record", "-db", filepath.Join(dir, "a.db"), "-commit-time", "monday", file}, 2, "RFC 3339"},
		{"record long branch", []string{"record", "-db", filepath.Join(dir, "a.db"), "-branch", strings.Repeat("b", 300), file}, 2, "limit"},
		{"record missing file", []string{"record", "-db", filepath.Join(dir, "a.db"), filepath.Join(dir, "none.txt")}, 2, "no such file"},
		{"record into garbage", []string{"record", "-db", garbage, file}, 2, "garbage.db is not a SQLite database"},
		{"history without -db", []string{"history"}, 2, "-db is required"},
		{"history missing db", []string{"history", "-db", filepath.Join(dir, "missing.db")}, 2, "does not exist"},
		{"history garbage db", []string{"history", "-db", garbage}, 2, "garbage.db"},
		{"history bad format", []string{"history", "-db", garbage, "-format", "xml"}, 2, "want table, md or json"},
		{"history bad window", []string{"history", "-db", garbage, "-window", "2"}, 2, "Window"},
		{"history bad p", []string{"history", "-db", garbage, "-p", "2"}, 2, "P 2"},
		{"history bad magnitude", []string{"history", "-db", garbage, "-min-magnitude", "5000%"}, 2, "min-magnitude"},
		{"history bad fail-latest", []string{"history", "-db", garbage, "-fail-latest", "-1"}, 2, "fail-latest"},
		{"history bad regexp", []string{"history", "-db", garbage, "-bench", "("}, 2, "-bench"},
		{"history long DSN", []string{"history", "-db", "postgres://" + strings.Repeat("h", 5000)}, 2, "limit"},
		{"history argument", []string{"history", "-db", garbage, "extra"}, 2, "unexpected argument"},
	} {
		tc.check(t)
	}
	if code, _, _ := cli(t, "record", "-h"); code != 0 {
		t.Errorf("record -h: exit %d", code)
	}
}

// TestRunRecordsBothSides checks run -db's recording step on the files a
// run wrote: both sides are recorded in mode gate, the head with its ratio.
func TestRunRecordsBothSides(t *testing.T) {
	dir := t.TempDir()
	files := historyFiles(t, dir, "CPU A", 2, 1)
	res := &benchgate.RunResult{BaseFile: files[0], HeadFile: files[1], BaseCommit: "c00", HeadCommit: "c01+worktree"}
	db := filepath.Join(dir, "h.db")
	var stderr bytes.Buffer
	if err := recordRun(context.Background(), db, res, nil, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "recorded base (record 1) and head (record 2)") {
		t.Errorf("stderr %q", stderr.String())
	}
	st, err := history.Open(context.Background(), db, history.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ss, err := st.Load(context.Background(), history.Query{Mode: history.ModeGate})
	if err != nil || len(ss) != 2 {
		t.Fatalf("%d gate series, %v", len(ss), err)
	}
	for _, s := range ss {
		if len(s.Points) != 2 || s.Points[0].Commit != "c00" || s.Points[1].Commit != "c01" || !s.Points[1].HasRatio {
			t.Errorf("%s: %+v", s.Unit, s.Points)
		}
	}
	// A regression stays exit 1 when recording fails; otherwise the
	// failure is an error.
	bad := filepath.Join(dir, "garbage.db")
	os.WriteFile(bad, []byte("garbage garbage garbage"), 0o644)
	if err := recordRun(context.Background(), bad, res, errRegression, &stderr); !errors.Is(err, errRegression) || !strings.Contains(stderr.String(), "garbage.db") {
		t.Errorf("regression with a bad -db: %v, %q", err, stderr.String())
	}
	if err := recordRun(context.Background(), bad, res, nil, &stderr); err == nil || errors.Is(err, errRegression) {
		t.Errorf("bad -db: %v, want an error other than a regression", err)
	}
}

func TestRecordPairCLI(t *testing.T) {
	dir := t.TempDir()
	files := historyFiles(t, dir, "CPU A", 2, 1)
	db := filepath.Join(dir, "h.db")
	if code, out, errOut := cli(t, "record", "-db", db, "-pair", "-mode", "gate", files[0]); code != 2 || !strings.Contains(errOut, "-pair takes two files") {
		t.Errorf("-pair with one file: exit %d %s %s", code, out, errOut)
	}
	if code, _, errOut := cli(t, "record", "-db", db, "-pair", "-commit", "x", files[0], files[1]); code != 2 || !strings.Contains(errOut, "-pair takes two files") {
		t.Errorf("-pair with -commit: exit %d %s", code, errOut)
	}
	code, out, errOut := cli(t, "record", "-db", db, "-pair", files[0], files[1]) // mode gate by default
	if code != 0 || strings.Count(out, "recorded c0") != 2 {
		t.Fatalf("-pair: exit %d\n%s\n%s", code, out, errOut)
	}
	st, err := history.Open(context.Background(), db, history.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ss, err := st.Load(context.Background(), history.Query{Mode: history.ModeGate})
	if err != nil || len(ss) != 2 || !ss[0].Points[1].HasRatio || ss[0].Points[0].HasRatio {
		t.Errorf("gate series %+v, %v: want the head's point with a ratio", ss, err)
	}
}

// TestHistoryStale: a benchmark that stopped producing results (its last
// point is older than the newest commit recorded on its machine) is named
// stale in the table, the Markdown and the JSON; one that ran at every
// commit is not.
func TestHistoryStale(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var files []string
	for i := range 15 {
		var b bytes.Buffer
		fmt.Fprintf(&b, "goos: linux\ngoarch: amd64\ncpu: CPU A\ncommit: c%02d\ncommit-time: %s\n", i, t0.Add(time.Duration(i)*time.Hour).Format(time.RFC3339))
		for range 3 {
			fmt.Fprintf(&b, "BenchmarkPut-2  1000  %d ns/op\n", 1000+i%3)
			if i < 10 {
				fmt.Fprintf(&b, "BenchmarkGone-2  1000  %d ns/op\n", 500+i%3)
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("c%02d.txt", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	db := filepath.Join(t.TempDir(), "h.db")
	if code, out, errOut := cli(t, append([]string{"record", "-db", db}, files...)...); code != 0 {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := cli(t, "history", "-db", db)
	if code != 0 || !strings.Contains(out, "stale: BenchmarkGone-2 ns/op") || !strings.Contains(out, "last point c09, newest commit c14") ||
		strings.Contains(out, "stale: BenchmarkPut") || !strings.Contains(out, "1 stale") {
		t.Errorf("history: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, out, _ = cli(t, "history", "-db", db, "-format", "md"); !strings.Contains(out, "**Stale series**") || !strings.Contains(out, "| BenchmarkGone-2 | ns/op |") {
		t.Errorf("history -format md:\n%s", out)
	}
	_, out, _ = cli(t, "history", "-db", db, "-format", "json")
	var v struct {
		Series []struct {
			Benchmark string `json:"benchmark"`
			Stale     bool   `json:"stale"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Series) != 2 {
		t.Fatalf("JSON %v: %s", err, out)
	}
	for _, s := range v.Series {
		if s.Stale != (s.Benchmark == "BenchmarkGone-2") {
			t.Errorf("%s: stale %v", s.Benchmark, s.Stale)
		}
	}
}

// TestHistoryUnstable: a regression change point in a series whose latest
// points flip between two levels is reported as in an unstable series and
// does not fail history, unless -fail-unstable; the JSON and Markdown mark
// the series unstable.
func TestHistoryUnstable(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var files []string
	for i := range 30 {
		var b bytes.Buffer
		fmt.Fprintf(&b, "goos: linux\ngoarch: amd64\ncpu: CPU A\ncommit: c%02d\ncommit-time: %s\n", i, t0.Add(time.Duration(i)*time.Hour).Format(time.RFC3339))
		level := 1000
		if i >= 20 {
			level = 1200 + 60*(i%2) // two levels 5% apart, alternating
		}
		for k := range 3 {
			fmt.Fprintf(&b, "BenchmarkShaky-2  1000  %d ns/op\n", level+k)
		}
		p := filepath.Join(dir, fmt.Sprintf("c%02d.txt", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	db := filepath.Join(t.TempDir(), "h.db")
	if code, out, errOut := cli(t, append([]string{"record", "-db", db}, files...)...); code != 0 {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := cli(t, "history", "-db", db, "-format", "json")
	if code != 0 || !strings.Contains(errOut, "regression in an unstable series (not failed on: -fail-unstable): BenchmarkShaky-2 ns/op") ||
		!strings.Contains(errOut, "all in unstable series: not failed on") {
		t.Errorf("history: exit %d, want 0 naming the unstable regression\n%s", code, errOut)
	}
	var v struct {
		Series []struct {
			Unstable bool    `json:"unstable"`
			Flips    int     `json:"flips"`
			Noise    float64 `json:"noise"`
			CPs      []any   `json:"change_points"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Series) != 1 {
		t.Fatalf("JSON %v: %s", err, out)
	}
	if s := v.Series[0]; !s.Unstable || s.Flips < history.UnstableMaxFlips || len(s.CPs) != 1 {
		t.Errorf("JSON series %+v: want unstable with flips and one change point", s)
	}
	code, _, errOut = cli(t, "history", "-db", db, "-fail-unstable")
	if code != 1 || !strings.Contains(errOut, "regression in an unstable series: BenchmarkShaky-2") {
		t.Errorf("history -fail-unstable: exit %d, want 1\n%s", code, errOut)
	}
	if _, out, _ = cli(t, "history", "-db", db, "-format", "md"); !strings.Contains(out, "**Unstable series**") ||
		!strings.Contains(out, "| regression | true |") || !strings.Contains(out, "1 unstable.") {
		t.Errorf("history -format md:\n%s", out)
	}
}

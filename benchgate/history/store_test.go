package history

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate"
)

// PGEnv names the PostgreSQL DSN of the PostgreSQL half of the suite.
const PGEnv = "WRITEGC_TEST_PG_DSN"

// backend opens fresh, empty databases of one kind for one test.
type backend struct {
	name string
	// dsn returns the DSN of a new empty database, removed after the test.
	dsn func(t *testing.T) string
}

func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "history.db") }},
		{"postgres", pgDSN},
	}
}

// pgDSN gives each test its own schema of the WRITEGC_TEST_PG_DSN database.
func pgDSN(t *testing.T) string {
	t.Helper()
	base := os.Getenv(PGEnv)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: set %s to a postgres:// DSN of a database this user may create schemas in, "+
			"e.g. %s=postgres://postgres@127.0.0.1:55432/benchgate_test?sslmode=disable (.ci/run starts such a server)", PGEnv, PGEnv)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("%s: %v", PGEnv, err)
	}
	t.Cleanup(func() { db.Exec("DROP SCHEMA " + schema + " CASCADE") })
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// eachBackend runs f as a subtest per backend: the one suite both pass.
func eachBackend(t *testing.T, f func(t *testing.T, dsn string)) {
	for _, b := range backends() {
		t.Run("backend="+b.name, func(t *testing.T) { f(t, b.dsn(t)) })
	}
}

func openT(t *testing.T, dsn string) *DB {
	t.Helper()
	return openOpts(t, dsn, Options{})
}

func openOpts(t *testing.T, dsn string, o Options) *DB {
	t.Helper()
	s, err := Open(context.Background(), dsn, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

const machineHeader = "goos: linux\ngoarch: amd64\ncpu: Test CPU @ 2.0GHz\n"

// benchFile is a benchmark file of one commit with the given ns/op values.
func benchFile(commit string, when time.Time, ns ...float64) []byte {
	var b bytes.Buffer
	b.WriteString(machineHeader)
	if commit != "" {
		fmt.Fprintf(&b, "commit: %s\n", commit)
	}
	if !when.IsZero() {
		fmt.Fprintf(&b, "commit-time: %s\n", when.Format(time.RFC3339))
	}
	for _, v := range ns {
		fmt.Fprintf(&b, "BenchmarkPut-2  1000  %g ns/op  48 B/op  1 allocs/op\n", v)
	}
	return b.Bytes()
}

func prep(t *testing.T, content []byte, l Labels) *Recording {
	t.Helper()
	r, err := Prepare(content, "test.txt", l, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func record(t *testing.T, s *DB, content []byte, l Labels) Recorded {
	t.Helper()
	res, err := s.Record(context.Background(), prep(t, content, l))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func load(t *testing.T, s *DB, q Query) []Series {
	t.Helper()
	ss, err := s.Load(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// find returns the series of benchmark BenchmarkPut-2 and unit.
func find(t *testing.T, ss []Series, unit string) Series {
	t.Helper()
	for _, s := range ss {
		if s.Unit == unit {
			return s
		}
	}
	t.Fatalf("no %s series in %+v", unit, ss)
	return Series{}
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func TestRecordAndLoad(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		content := benchFile("aaa111", t0, 100, 110, 90, 105, 95)
		res := record(t, s, content, Labels{Branch: "main", RunID: "7"})
		if res.Duplicate || res.Series != 3 {
			t.Errorf("first record: %+v, want 3 series, not a duplicate", res)
		}
		ss := load(t, s, Query{})
		if len(ss) != 3 {
			t.Fatalf("%d series, want 3 (ns/op, B/op, allocs/op)", len(ss))
		}
		ns := find(t, ss, "ns/op")
		want := SeriesKey{"BenchmarkPut-2", "ns/op", "goos=linux; goarch=amd64; cpu=Test CPU @ 2.0GHz; gomaxprocs=2", ModeBench}
		if ns.SeriesKey != want || ns.Direction != benchgate.LowerIsBetter || len(ns.Points) != 1 {
			t.Fatalf("series %+v, want %+v with one point", ns, want)
		}
		p := ns.Points[0]
		if p.Commit != "aaa111" || !p.CommitTime.Equal(t0) || p.Median != 100 || len(p.Values) != 5 || !p.HasInterval ||
			p.Lo > 100 || p.Hi < 100 || p.HasRatio || p.Records != 1 {
			t.Errorf("point %+v", p)
		}
		recs, err := s.Records(context.Background())
		if err != nil || len(recs) != 1 {
			t.Fatalf("records %+v, %v", recs, err)
		}
		l := recs[0].Labels
		if l.Commit != "aaa111" || l.Branch != "main" || l.RunID != "7" || l.Mode != ModeBench || l.Source != "test.txt" ||
			l.Machine != want.Machine || recs[0].Bytes != len(content) {
			t.Errorf("labels %+v", recs[0])
		}
		got, err := s.Content(context.Background(), recs[0].ID)
		if err != nil || !bytes.Equal(got, content) {
			t.Errorf("content %q, %v; want as written", got, err)
		}
		if _, err := s.Content(context.Background(), recs[0].ID+1); !errors.Is(err, ErrNoRecord) {
			t.Errorf("content of no record: %v, want ErrNoRecord", err)
		}
		if v, err := s.SchemaVersion(context.Background()); err != nil || v != len(migrations) {
			t.Errorf("schema version %d, %v; want %d", v, err, len(migrations))
		}
	})
}

func TestDuplicateStoredOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		content := benchFile("aaa111", t0, 100, 101)
		first := record(t, s, content, Labels{})
		second := record(t, s, content, Labels{Branch: "other"})
		if first.Duplicate || !second.Duplicate || second.ID != first.ID {
			t.Errorf("records %+v then %+v: want the second a duplicate of the first", first, second)
		}
		if recs, _ := s.Records(context.Background()); len(recs) != 1 {
			t.Errorf("%d records, want 1", len(recs))
		}
		if p := find(t, load(t, s, Query{}), "ns/op").Points; len(p) != 1 || len(p[0].Values) != 2 {
			t.Errorf("points %+v: want one point of two values", p)
		}
	})
}

func TestCommitOrderAndMerge(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		// Recorded out of order; c2 twice (two runs), once without a time.
		record(t, s, benchFile("c3", t0.Add(3*time.Hour), 130), Labels{})
		record(t, s, benchFile("c1", t0.Add(1*time.Hour), 110), Labels{})
		record(t, s, benchFile("c2", t0.Add(2*time.Hour), 120, 122), Labels{})
		record(t, s, benchFile("c2", t0.Add(2*time.Hour), 124), Labels{})
		pts := find(t, load(t, s, Query{}), "ns/op").Points
		var got []string
		for _, p := range pts {
			got = append(got, fmt.Sprintf("%s:%g:%d", p.Commit, p.Median, p.Records))
		}
		if want := "c1:110:1 c2:122:2 c3:130:1"; strings.Join(got, " ") != want {
			t.Errorf("points %v, want %s", got, want)
		}
	})
}

func TestMachinesAndModesApart(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		record(t, s, benchFile("c1", t0, 100), Labels{})
		record(t, s, benchFile("c1", t0, 200), Labels{Machine: "ci-runner"})
		record(t, s, benchFile("c1", t0, 300), Labels{Mode: ModeGate})
		if n := len(load(t, s, Query{})); n != 9 {
			t.Errorf("%d series, want 9 (3 units x 3 machine/mode)", n)
		}
		ss := load(t, s, Query{Machine: "ci-runner"})
		if len(ss) != 3 || find(t, ss, "ns/op").Points[0].Median != 200 {
			t.Errorf("machine ci-runner: %+v", ss)
		}
		ss = load(t, s, Query{Mode: ModeGate})
		if len(ss) != 3 || find(t, ss, "ns/op").Points[0].Median != 300 {
			t.Errorf("mode gate: %+v", ss)
		}
	})
}

func TestRecordPairRatio(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		base := prep(t, benchFile("base1", t0, 100, 100, 100, 100, 100, 100), Labels{Mode: ModeGate, RunID: "r1"})
		head := prep(t, benchFile("head1", t0.Add(time.Hour), 110, 110, 110, 110, 110, 110), Labels{Mode: ModeGate, RunID: "r1"})
		br, hr, err := s.RecordPair(context.Background(), base, head)
		if err != nil || br.Duplicate || hr.Duplicate {
			t.Fatalf("RecordPair: %+v %+v %v", br, hr, err)
		}
		if head.Samples[0].HasRatio {
			t.Error("RecordPair modified its input")
		}
		pts := find(t, load(t, s, Query{Mode: ModeGate}), "ns/op").Points
		if len(pts) != 2 || pts[0].HasRatio || !pts[1].HasRatio || math.Abs(pts[1].Ratio-1.1) > 1e-9 ||
			pts[1].RatioLo > pts[1].Ratio || pts[1].RatioHi < pts[1].Ratio {
			t.Errorf("points %+v: want base without ratio, head 1.1", pts)
		}
	})
}

// TestConcurrentWriters records from two Stores (as two processes would)
// and several goroutines each at once: nothing is lost, and the same
// content sent by all of them is stored once.
func TestConcurrentWriters(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		stores := []*DB{openT(t, dsn), openT(t, dsn)}
		const writers, each = 4, 10
		var wg sync.WaitGroup
		errs := make(chan error, writers*(each+1))
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := stores[w%len(stores)]
				for i := range each {
					r, err := Prepare(benchFile(fmt.Sprintf("w%dc%d", w, i), t0.Add(time.Duration(i)*time.Minute), float64(100+w)),
						"f", Labels{Machine: fmt.Sprintf("m%d", i%3)}, PrepareOptions{})
					if err == nil {
						_, err = s.Record(context.Background(), r)
					}
					errs <- err
				}
				r, err := Prepare(benchFile("same", t0, 1), "same", Labels{}, PrepareOptions{})
				if err == nil {
					_, err = s.Record(context.Background(), r)
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		recs, err := stores[0].Records(context.Background())
		if err != nil || len(recs) != writers*each+1 {
			t.Fatalf("%d records, %v; want %d", len(recs), err, writers*each+1)
		}
		var points int
		for _, s := range load(t, stores[1], Query{}) {
			points += len(s.Points)
		}
		if want := (writers*each + 1) * 3; points != want {
			t.Errorf("%d points, want %d", points, want)
		}
	})
}

func TestMigrations(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		old, err := open(ctx, dsn, Options{}, migrations[:1])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.Record(ctx, prep(t, benchFile("c1", t0, 100), Labels{})); err != nil {
			t.Fatal(err)
		}
		if v, _ := old.SchemaVersion(ctx); v != 1 {
			t.Errorf("old schema version %d, want 1", v)
		}
		old.Close()
		s := openT(t, dsn)
		if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
			t.Errorf("migrated schema version %d, want %d", v, len(migrations))
		}
		if pts := find(t, load(t, s, Query{}), "ns/op").Points; len(pts) != 1 || pts[0].Median != 100 {
			t.Errorf("after migrating: %+v", pts)
		}
		s.Close()
		// A database from the future is refused, and left as it was.
		if _, err := open(ctx, dsn, Options{}, append(migrations, func(dialect) []string { return nil })); err != nil {
			t.Fatal(err)
		}
		_, err = Open(ctx, dsn, Options{})
		if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "newer benchgate") {
			t.Errorf("newer schema: %v, want ErrNewerSchema", err)
		}
	})
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, strings.Repeat("x", MaxDSNBytes+1), Options{}); !errors.Is(err, ErrBadDSN) {
		t.Errorf("long DSN: %v", err)
	}
	if _, err := Open(ctx, "postgres://"+strings.Repeat("x", MaxDSNBytes), Options{}); !errors.Is(err, ErrBadDSN) {
		t.Errorf("long postgres DSN: %v", err)
	}
	if _, err := Open(ctx, "", Options{}); !errors.Is(err, ErrBadDSN) {
		t.Errorf("empty DSN: %v", err)
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "a?b.db"), Options{}); !errors.Is(err, ErrBadDSN) {
		t.Errorf("path with '?': %v", err)
	}
	content := benchFile("c", t0, 1)
	for _, l := range []Labels{
		{Commit: strings.Repeat("a", maxCommitBytes+1)}, {Branch: strings.Repeat("b", maxShortLabel+1)},
		{RunID: strings.Repeat("r", maxShortLabel+1)}, {Machine: strings.Repeat("m", MaxLabelBytes+1)},
		{Source: strings.Repeat("s", MaxLabelBytes+1)}, {Mode: "gate run"}, {Mode: Mode(strings.Repeat("g", maxModeBytes+1))},
		{Branch: "a\nb"},
	} {
		if _, err := Prepare(content, "f", l, PrepareOptions{}); !errors.Is(err, ErrBadLabel) {
			t.Errorf("labels %.40v: %v, want ErrBadLabel", l, err)
		}
	}
	if _, err := Prepare(make([]byte, MaxRecordBytes+1), "big", Labels{}, PrepareOptions{}); !errors.Is(err, benchgate.ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
	if _, err := Prepare([]byte("commit-time: yesterday\nBenchmarkA 1 1 ns/op\n"), "f", Labels{}, PrepareOptions{}); !errors.Is(err, ErrBadLabel) {
		t.Errorf("bad commit-time: %v", err)
	}
	if _, err := Prepare(content, "f", Labels{}, PrepareOptions{MaxSeries: 2}); !errors.Is(err, benchgate.ErrTooLarge) {
		t.Errorf("3 series over a limit of 2: %v", err)
	}
	if _, err := Prepare(content, "f", Labels{}, PrepareOptions{MaxSeries: 3}); err != nil {
		t.Errorf("3 series at a limit of 3: %v", err)
	}
	mixed := append(benchFile("c", t0, 1), []byte("cpu: Other CPU\nBenchmarkPut-2 1 2 ns/op\n")...)
	if _, err := Prepare(mixed, "f", Labels{}, PrepareOptions{}); !errors.Is(err, ErrMixedMachines) {
		t.Errorf("two machines: %v", err)
	}
	if _, err := Prepare(mixed, "f", Labels{Machine: "named"}, PrepareOptions{}); err != nil {
		t.Errorf("two machines with -machine: %v", err)
	}
	bad := []byte("BenchmarkA 1 1 ns/op\nBenchmarkB 1 x ns/op\n")
	if _, err := Prepare(bad, "f", Labels{}, PrepareOptions{}); !errors.Is(err, benchgate.ErrMalformed) {
		t.Errorf("malformed: %v", err)
	}
	if r, err := Prepare(bad, "f", Labels{}, PrepareOptions{Lenient: true}); err != nil || len(r.Samples) != 1 || r.Labels.Machine != UnknownMachine {
		t.Errorf("malformed, lenient: %+v, %v", r, err)
	}
}

func TestSQLiteCorrupt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	s, err := Open(ctx, good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := s.Record(ctx, prep(t, benchFile(fmt.Sprint("c", i), t0, float64(i)), Labels{})); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := bytes.Repeat([]byte("not a database "), 1000)
	for _, c := range []struct{ name, path string }{
		{"garbage", write("garbage.db", garbage)},
		{"truncated", write("truncated.db", data[:len(data)/2])},
		{"short", write("short.db", data[:50])},
	} {
		_, err := Open(ctx, c.path, Options{})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %v, want ErrCorrupt naming %s", c.name, err, c.path)
		}
	}
	// A page in the middle overwritten, the header intact: quick_check.
	broken := bytes.Clone(data)
	copy(broken[4096*2:], garbage[:4096])
	if _, err := Open(ctx, write("broken.db", broken), Options{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("overwritten page: %v, want ErrCorrupt", err)
	}
	// An empty file is a new database to a writer (SQLite's rule), and an
	// error to a reader, never an empty history.
	empty := write("empty.db", nil)
	if _, err := Open(ctx, empty, Options{MustExist: true}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file, MustExist: %v, want ErrCorrupt naming it", err)
	}
	if s, err := Open(ctx, empty, Options{}); err != nil {
		t.Errorf("empty file as a new database: %v", err)
	} else {
		s.Close()
	}
	if _, err := Open(ctx, filepath.Join(dir, "missing.db"), Options{MustExist: true}); !errors.Is(err, ErrNoDatabase) {
		t.Errorf("missing with MustExist: %v", err)
	}
}

// BenchmarkRecord10MB records a 10 MB benchmark file into a new SQLite
// database (the budget: at most 2 s).
func BenchmarkRecord10MB(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(machineHeader + "commit: big\n")
	for i := 0; buf.Len() < 10<<20; i++ {
		fmt.Fprintf(&buf, "BenchmarkPut/key=%d-2  1000  %d ns/op  48 B/op  1 allocs/op\n", i%2000, 100+i%17)
	}
	content := buf.Bytes()
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(ctx, filepath.Join(b.TempDir(), fmt.Sprint(i, ".db")), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		r, err := Prepare(content, "big.txt", Labels{}, PrepareOptions{})
		if err == nil {
			_, err = s.Record(ctx, r)
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.SetBytes(int64(len(content)))
}

func TestLoadLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		for i := range 3 {
			record(t, s, benchFile(fmt.Sprint("c", i), t0, float64(100+i)), Labels{})
		}
		if _, err := openOpts(t, dsn, Options{MaxSeries: 2}).Load(context.Background(), Query{}); !errors.Is(err, ErrTooMany) {
			t.Errorf("3 series over a limit of 2: %v", err)
		}
		if _, err := openOpts(t, dsn, Options{MaxSeries: 3, MaxPointRows: 8}).Load(context.Background(), Query{}); !errors.Is(err, ErrTooMany) {
			t.Errorf("9 point rows over a limit of 8: %v", err)
		}
		if _, err := openOpts(t, dsn, Options{MaxSeries: 1 << 62, MaxPointRows: 9}).Load(context.Background(), Query{}); err != nil {
			t.Errorf("at the limits: %v", err)
		}
		s = openOpts(t, dsn, Options{MaxRecords: 2, ReadOnly: true})
		if _, err := s.Records(context.Background()); !errors.Is(err, ErrTooMany) {
			t.Errorf("3 records over a limit of 2: %v", err)
		}
	})
}

// TestConcurrentCreate opens a new database from several writers at once,
// as CI jobs starting together would: every one opens it (none takes the
// others' half-created file for a corrupt one) and every record is kept.
func TestConcurrentCreate(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		const writers = 6
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(context.Background(), dsn, Options{})
				if err != nil {
					errs[w] = err
					return
				}
				defer s.Close()
				r, err := Prepare(benchFile(fmt.Sprint("c", w), t0, float64(w)), "f", Labels{}, PrepareOptions{})
				if err == nil {
					_, err = s.Record(context.Background(), r)
				}
				errs[w] = err
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if recs, err := openT(t, dsn).Records(context.Background()); err != nil || len(recs) != writers {
			t.Errorf("%d records, %v; want %d", len(recs), err, writers)
		}
	})
}

package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// hangLimit is how long a test waits before calling a call hung: far more
// than any timeout under test, so that a slow machine never fails it.
const hangLimit = 2 * time.Minute

func openErr(t *testing.T, dsn string, o Options) error {
	t.Helper()
	return testkit.Within(t, hangLimit, "Open", func() error {
		s, err := Open(context.Background(), dsn, o)
		if err == nil {
			s.Close()
		}
		return err
	})
}

func TestRedactDSN(t *testing.T) {
	for _, c := range []struct{ in, keep string }{
		{"postgres://ci:s3cr3t@db.example:5432/bench?sslmode=require", "postgres://ci:xxxxx@db.example:5432/bench?sslmode=require"},
		{"postgresql://ci:p@ss@w0rd@db/bench", "postgresql://ci:xxxxx@db/bench"},
		{"postgres://db/bench?user=ci&password=s3cr3t&sslmode=disable", "postgres://db/bench?user=ci&password=xxxxx&sslmode=disable"},
		{"host=db user=ci password=s3cr3t dbname=bench", "host=db user=ci password=xxxxx dbname=bench"},
		{"host=db password = 's3 cr\\'3t' dbname=bench", "host=db password = xxxxx dbname=bench"},
		{"host=db PASSWORD='s3cr3t", "host=db PASSWORD=xxxxx"},
		{"host=db sslpassword=s3cr3t", "host=db sslpassword=xxxxx"},
		{"postgresql+psycopg://ci:s3cr3t@db/bench", "postgresql+psycopg://ci:xxxxx@db/bench"},
		{"postgres:/ci:s3cr3t@db/bench", "postgres:/ci:xxxxx@db/bench"},
		{"cannot parse `postgres://ci:s3cr3t@db:x/b`: invalid port", "cannot parse `postgres://ci:xxxxx@db:x/b`: invalid port"},
		{"results/history.db", "results/history.db"},
		{"postgres://ci@db/bench", "postgres://ci@db/bench"},
	} {
		got := RedactDSN(c.in)
		if strings.Contains(got, "s3") || strings.Contains(got, "w0rd") || got != c.keep {
			t.Errorf("RedactDSN(%q) = %q, want %q", c.in, got, c.keep)
		}
	}
}

// TestDSNForms: the key=value form is PostgreSQL; URLs of other schemes
// and unparseable key=value strings are refused, never taken for a SQLite
// file, and no message shows the password.
func TestDSNForms(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, dsn := range []string{"host=db user=ci password=s3cr3t dbname=bench", "dbname=bench", "postgres://db/b"} {
		if !IsPostgres(dsn) {
			t.Errorf("IsPostgres(%q) = false", dsn)
		}
	}
	for _, dsn := range []string{
		"postgresql+psycopg://ci:s3cr3t@127.0.0.1:1/bench", "postgres:/ci:s3cr3t@127.0.0.1:1/bench",
		"sqlite:///tmp/h.db", "file:h.db", "dsn: host=db password=s3cr3t", "users = ci password=s3cr3t",
		"host=db port=notaport password=s3cr3t",
		// Probes the first tests did not foresee: a scheme without //, and a
		// password with a space, double-quoted (not libpq) or unterminated.
		"postgres:ci:s3cr3t@127.0.0.1/bench", "pg:ci:s3cr3t@db", `user=ci password="s3 cr3t" host=127.0.0.1 port=1`,
		"user=ci password='s3 cr3t host=db",
	} {
		err := openErr(t, dsn, Options{})
		if !errors.Is(err, ErrBadDSN) || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "cr3t") {
			t.Errorf("Open(%q): %v; want ErrBadDSN without the password", dsn, err)
		}
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Errorf("files created: %v", ents)
	}
	for _, p := range []string{"h.db", "results/a=b.db", `C:/history.db`, "my history.db"} {
		if k, err := classifyDSN(p); err != nil || k != dsnSQLite {
			t.Errorf("classifyDSN(%q) = %v, %v; want a SQLite path", p, k, err)
		}
	}
}

func TestPostgresDefaults(t *testing.T) {
	settings := func(set []string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(set); i += 2 {
			m[set[i]] = set[i+1]
		}
		return m
	}
	cfg, set, err := pgConfig("host=db user=ci password=s3cr3t dbname=bench", false)
	if err != nil {
		t.Fatal(err)
	}
	m := settings(set)
	if cfg.ConnectTimeout != ConnectTimeout || cfg.Password != "s3cr3t" || cfg.Database != "bench" ||
		m["statement_timeout"] != fmt.Sprint(StatementTimeout.Milliseconds()) || m["lock_timeout"] != fmt.Sprint(LockTimeout.Milliseconds()) ||
		m["idle_in_transaction_session_timeout"] != fmt.Sprint(IdleInTransactionTimeout.Milliseconds()) || m["default_transaction_read_only"] != "" {
		t.Errorf("defaults: connect %v, settings %v", cfg.ConnectTimeout, m)
	}
	cfg, set, err = pgConfig("postgres://db/b?connect_timeout=3&statement_timeout=1000&options=-c%20lock_timeout%3D5s", true)
	if err != nil {
		t.Fatal(err)
	}
	m = settings(set)
	if cfg.ConnectTimeout != 3*time.Second || m["statement_timeout"] != "" || m["lock_timeout"] != "" || m["default_transaction_read_only"] != "on" {
		t.Errorf("overridden: connect %v, settings %v", cfg.ConnectTimeout, m)
	}
}

// trackedListener listens on a free local port; it and the connections
// given to keep close when the test ends.
func trackedListener(t *testing.T) (ln net.Listener, keep func(...net.Conn)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln, func(cs ...net.Conn) {
		mu.Lock()
		conns = append(conns, cs...)
		mu.Unlock()
	}
}

// silentServer accepts connections and never answers; it returns its port.
func silentServer(t *testing.T) int {
	t.Helper()
	ln, keep := trackedListener(t)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			keep(c)
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestSilentServer: a server that accepts and never answers fails Open
// with ErrTimeout (the DSN's connect_timeout, or Options.Timeout), in
// either DSN form, without the password in the message.
func TestSilentServer(t *testing.T) {
	port := silentServer(t)
	for _, c := range []struct {
		dsn string
		o   Options
	}{
		{fmt.Sprintf("postgres://ci:s3cr3t@127.0.0.1:%d/bench?sslmode=disable&connect_timeout=1", port), Options{}},
		{fmt.Sprintf("host=127.0.0.1 port=%d user=ci password=s3cr3t dbname=bench sslmode=disable connect_timeout=1", port), Options{}},
		{fmt.Sprintf("postgres://ci:s3cr3t@127.0.0.1:%d/bench?sslmode=disable", port), Options{Timeout: time.Second}},
	} {
		err := openErr(t, c.dsn, c.o)
		if !errors.Is(err, ErrTimeout) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v; want ErrTimeout without the password", RedactDSN(c.dsn), err)
		}
	}
}

// freezingProxy forwards to addr until frozen, then holds every byte.
type freezingProxy struct {
	ln     net.Listener
	frozen atomic.Bool
}

func newFreezingProxy(t *testing.T, addr string) *freezingProxy {
	ln, keep := trackedListener(t)
	p := &freezingProxy{ln: ln}
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			for p.frozen.Load() {
				time.Sleep(10 * time.Millisecond)
				if _, err := dst.Write(nil); err != nil {
					return
				}
			}
			if n > 0 {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			keep(c, s)
			go pipe(s, c)
			go pipe(c, s)
		}
	}()
	return p
}

// TestFrozenServer: a server that stops answering mid-record fails the
// Record with ErrTimeout (Options.Timeout) instead of hanging it.
func TestFrozenServer(t *testing.T) {
	dsn := pgDSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := newFreezingProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	s, err := Open(context.Background(), u.String(), Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p.frozen.Store(true)
	err = testkit.Within(t, hangLimit, "Record", func() error {
		_, err := s.Record(context.Background(), prep(t, benchFile("c1", t0, 1), Labels{}))
		return err
	})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("Record through a frozen server: %v, want ErrTimeout", err)
	}
}

// TestLockBounded: a writer holding the migration lock (a frozen CI job)
// makes Open fail with ErrTimeout after the DSN's lock_timeout.
func TestLockBounded(t *testing.T) {
	dsn := pgDSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(migrationLockSQL, int64(migrationLock)); err != nil {
		t.Fatal(err)
	}
	err = openErr(t, dsn+"&lock_timeout=200", Options{})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("Open while another holds the lock: %v, want ErrTimeout", err)
	}
}

// TestKeyValueDSN records and reads through libpq's key=value form.
func TestKeyValueDSN(t *testing.T) {
	u, err := url.Parse(pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	kv := fmt.Sprintf("host=%s port=%s user=%s dbname=%s", u.Hostname(), u.Port(), u.User.Username(), strings.TrimPrefix(u.Path, "/"))
	for k, vs := range u.Query() {
		kv += fmt.Sprintf(" %s=%s", k, vs[0])
	}
	s := openT(t, kv)
	record(t, s, benchFile("c1", t0, 100), Labels{})
	if ss := load(t, s, Query{}); len(ss) != 3 {
		t.Errorf("%d series, want 3", len(ss))
	}
}

// foreignSQLite writes a SQLite database of another application.
func foreignSQLite(t *testing.T, path string) []byte {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)`, `CREATE TABLE orders (id INTEGER)`,
		`INSERT INTO users (name) VALUES ('ann')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestForeignDatabaseUntouched: neither a reader nor a writer changes a
// database of another application; both name its tables.
func TestForeignDatabaseUntouched(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.db")
	before := foreignSQLite(t, path)
	for _, o := range []Options{{ReadOnly: true}, {}} {
		err := openErr(t, path, o)
		if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), `"orders", "users"`) {
			t.Errorf("Open %+v: %v, want ErrForeign naming the tables", o, err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Errorf("Open %+v changed the file", o)
		}
		if names := testkit.Names(t, dir); !slices.Equal(names, []string{"app.db"}) {
			t.Errorf("Open %+v left %v", o, names)
		}
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		if !IsPostgres(dsn) {
			return
		}
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE users (id INTEGER)`); err != nil {
			t.Fatal(err)
		}
		for _, o := range []Options{{ReadOnly: true}, {}} {
			if err := openErr(t, dsn, o); !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), `"users"`) {
				t.Errorf("Open %+v: %v, want ErrForeign", o, err)
			}
		}
	})
}

// TestReaderWritesNothing: a reader opens an existing history read-only
// (its file unchanged), finds an empty database has no history, and
// cannot record.
func TestReaderWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		if err := openErr(t, dsn, Options{ReadOnly: true}); !errors.Is(err, ErrNoDatabase) {
			t.Errorf("reader of an empty database: %v, want ErrNoDatabase", err)
		}
		if !IsPostgres(dsn) {
			if _, err := os.Stat(dsn); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the reader created %s", dsn)
			}
		}
		w := openT(t, dsn)
		record(t, w, benchFile("c1", t0, 100), Labels{})
		w.Close()
		var before []byte
		if !IsPostgres(dsn) {
			before, _ = os.ReadFile(dsn)
		}
		r, err := Open(ctx, dsn, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if ss := load(t, r, Query{}); len(ss) != 3 {
			t.Errorf("reader: %d series, want 3", len(ss))
		}
		if _, err := r.Record(ctx, prep(t, benchFile("c2", t0, 100), Labels{})); !errors.Is(err, ErrReadOnly) {
			t.Errorf("a reader's Record: %v, want ErrReadOnly", err)
		}
		if _, _, err := r.RecordPair(ctx, prep(t, benchFile("c2", t0, 100), Labels{}), prep(t, benchFile("c3", t0, 100), Labels{})); !errors.Is(err, ErrReadOnly) {
			t.Errorf("a reader's RecordPair: %v, want ErrReadOnly", err)
		}
		// Below Record's own refusal, the connection itself is read-only.
		if _, err := r.db.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (99)`); err == nil {
			t.Error("a reader's connection wrote")
		}
		r.Close()
		if !IsPostgres(dsn) {
			if after, _ := os.ReadFile(dsn); !bytes.Equal(before, after) {
				t.Error("the reader changed the file")
			}
		}
	})
}

// TestOpenFailureNotCorrupt: a database that cannot be opened is not
// called corrupt.
func TestOpenFailureNotCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "h.db")
	err := openErr(t, path, Options{})
	if err == nil || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("record into a missing directory: %v, want an error naming the missing directory, not ErrCorrupt", err)
	}
	t.Run("read-only file", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("needs a user whom permissions bind (not root)")
		}
		ro := filepath.Join(t.TempDir(), "ro.db")
		s := openT(t, ro)
		record(t, s, benchFile("c1", t0, 100), Labels{})
		s.Close()
		if err := os.Chmod(ro, 0o444); err != nil {
			t.Fatal(err)
		}
		if err := openErr(t, ro, Options{}); errors.Is(err, ErrCorrupt) {
			t.Errorf("writer on a read-only file: %v, want an error other than ErrCorrupt", err)
		}
		if err := openErr(t, ro, Options{ReadOnly: true}); err != nil {
			t.Errorf("reader of a read-only file: %v", err)
		}
	})
}

// TestBadNames: both backends refuse the same names, before writing, with
// an error naming the benchmark; the longest accepted key fits both.
func TestBadNames(t *testing.T) {
	long := "BenchmarkLong" + strings.Repeat("x", MaxBenchmarkBytes)
	for _, name := range []string{"BenchmarkNUL\x00x", "BenchmarkBad\xffUTF8", long} {
		content := []byte(machineHeader + name + "-2 1 100 ns/op\n")
		if _, err := Prepare(content, "f.txt", Labels{}, PrepareOptions{}); !errors.Is(err, ErrBadName) || !strings.Contains(err.Error(), "BenchmarkNUL") &&
			!strings.Contains(err.Error(), "BenchmarkBad") && !strings.Contains(err.Error(), "BenchmarkLong") {
			t.Errorf("Prepare %.20q: %v, want ErrBadName naming it", name, err)
		}
	}
	if _, err := Prepare([]byte("cpu: bad \xff cpu\nBenchmarkA 1 1 ns/op\n"), "f", Labels{}, PrepareOptions{}); !errors.Is(err, ErrBadLabel) {
		t.Errorf("machine not UTF-8: %v, want ErrBadLabel", err)
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		r := prep(t, benchFile("c1", t0, 100), Labels{})
		r.Samples[0].Benchmark = long
		if _, err := s.Record(context.Background(), r); !errors.Is(err, ErrBadName) {
			t.Errorf("Record of a long name: %v, want ErrBadName", err)
		}
		if recs, err := s.Records(context.Background()); err != nil || len(recs) != 0 {
			t.Errorf("after a refused record: %d records, %v", len(recs), err)
		}
		r = prep(t, benchFile("c1", t0, 100), Labels{Machine: strings.Repeat("m", MaxLabelBytes), Mode: Mode(strings.Repeat("g", maxModeBytes))})
		r.Samples[0].Benchmark = strings.Repeat("b", MaxBenchmarkBytes)
		r.Samples[0].Unit = strings.Repeat("u", MaxUnitBytes)
		if _, err := s.Record(context.Background(), r); err != nil {
			t.Errorf("Record at the limits: %v", err)
		}
	})
}

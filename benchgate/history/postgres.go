package history

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL timeouts, applied unless the DSN sets its own: connect_timeout
// (seconds), or the server setting of the same name as a DSN parameter
// (statement_timeout=..., URL query or key=value) or in options='-c ...'.
// Each bounds one wait, so that a server that accepts and never answers, a
// frozen writer holding a lock, or a stuck statement fails a CI job in
// bounded time instead of hanging it (and every job queued behind it).
const (
	// ConnectTimeout bounds connecting, TLS and authentication included,
	// per address tried. A connect_timeout of 0 in the DSN is taken as unset.
	ConnectTimeout = 10 * time.Second
	// StatementTimeout bounds one statement on the server (statement_timeout).
	StatementTimeout = 5 * time.Minute
	// LockTimeout bounds the wait for one lock (lock_timeout): a row
	// another writer holds, or the advisory lock that serialises migrations.
	LockTimeout = time.Minute
	// IdleInTransactionTimeout is how long the server keeps a transaction
	// whose client went quiet (idle_in_transaction_session_timeout): a
	// writer frozen mid-record loses its transaction and its locks.
	IdleInTransactionTimeout = time.Minute
)

// pgSettings are the server settings Open gives a value unless the DSN does.
var pgSettings = []struct {
	name string
	d    time.Duration
}{
	{"statement_timeout", StatementTimeout},
	{"lock_timeout", LockTimeout},
	{"idle_in_transaction_session_timeout", IdleInTransactionTimeout},
}

// PostgreSQL error codes that mean a timeout.
const (
	pgQueryCanceled     = "57014" // statement_timeout
	pgLockNotAvailable  = "55P03" // lock_timeout
	pgIdleInTxnTimeout  = "25P03" // idle_in_transaction_session_timeout
	pgDeadlockDetected  = "40P01"
	pgSerializationFail = "40001"
)

// pgConfig parses dsn (a URL or the key=value form) and applies the
// defaults: ConnectTimeout, and the server settings the DSN leaves unset.
// A reader's sessions are read-only (default_transaction_read_only).
func pgConfig(dsn string, readOnly bool) (*pgx.ConnConfig, []string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, nil, &dsnError{msg: ErrBadDSN.Error() + ": cannot parse " + quoteName(RedactDSN(dsn)) + ": " + parseReason(err), err: ErrBadDSN}
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = ConnectTimeout
	}
	var set []string
	for _, s := range pgSettings {
		if _, ok := cfg.RuntimeParams[s.name]; ok || strings.Contains(cfg.RuntimeParams["options"], s.name) {
			continue
		}
		set = append(set, s.name, strconv.FormatInt(s.d.Milliseconds(), 10))
	}
	if readOnly {
		set = append(set, "default_transaction_read_only", "on")
	}
	return cfg, set, nil
}

func openPostgres(ctx context.Context, dsn string, o Options) (*DB, error) {
	cfg, set, err := pgConfig(dsn, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	afterConnect := func(ctx context.Context, c *pgx.Conn) error {
		if len(set) == 0 {
			return nil
		}
		var q strings.Builder
		args := make([]any, len(set))
		q.WriteString("SELECT ")
		for i := 0; i < len(set); i += 2 {
			if i > 0 {
				q.WriteString(", ")
			}
			fmt.Fprintf(&q, "set_config($%d, $%d, false)", i+1, i+2)
			args[i], args[i+1] = set[i], set[i+1]
		}
		_, err := c.Exec(ctx, q.String(), args...)
		return err
	}
	db := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(afterConnect))
	s := newDB(db, pgDialect, fmt.Sprintf("postgres %s:%d/%s", cfg.Host, cfg.Port, cfg.Database), cfg.Password, o)
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, s.wrap(err)
	}
	return s, nil
}

// isTimeout reports an error that means a wait ran out: a context deadline
// (Options.Timeout, ConnectTimeout) or the server's statement, lock or
// idle-in-transaction timeout.
func isTimeout(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == pgQueryCanceled || pe.Code == pgLockNotAvailable || pe.Code == pgIdleInTxnTimeout
	}
	return errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}

// quotedFragment is a double-quoted fragment of a parser's message, such as
// pgx's `missing "=" after "2\""`: it may be a piece of a malformed password.
var quotedFragment = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// parseReason is why pgx could not parse a DSN, without the DSN pgx echoes
// (its redaction stops at the first space of a malformed password) and with
// every quoted fragment elided.
func parseReason(err error) string {
	msg := err.Error()
	if i := strings.LastIndexByte(msg, '`'); i >= 0 {
		msg = strings.TrimLeft(msg[i+1:], ": ")
	}
	return quotedFragment.ReplaceAllString(msg, `"…"`)
}

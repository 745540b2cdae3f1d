package history

import (
	"regexp"
	"strings"
)

// dsnKind is what a DSN names.
type dsnKind int

const (
	dsnSQLite         dsnKind = iota // a file path
	dsnPostgresURL                   // postgres:// or postgresql://
	dsnPostgresKeyVal                // libpq's key=value form
)

// libpqKeywords are libpq's connection keywords: a DSN whose first key is one
// of them is the key=value form ("host=db user=ci dbname=bench").
var libpqKeywords = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "service": true, "servicefile": true, "connect_timeout": true, "options": true,
	"application_name": true, "sslmode": true, "sslcert": true, "sslkey": true, "sslrootcert": true,
	"sslpassword": true, "sslsni": true, "sslnegotiation": true, "target_session_attrs": true,
	"channel_binding": true, "krbsrvname": true, "client_encoding": true, "min_read_buffer_size": true,
}

// keyValStart matches the first key of a key=value DSN.
var keyValStart = regexp.MustCompile(`^\s*([A-Za-z_]+)\s*=`)

// urlLike matches a URL scheme: two or more characters (so that a Windows
// drive letter, C:/, is a path) followed by ":/".
var urlLike = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.\-]+):/`)

// schemeOnly matches a name that starts like a URL without its //
// (postgres:user:pw@host): a scheme of two or more letters and a colon. A
// Windows drive letter (C:) is one letter, so stays a path.
var schemeOnly = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]+:`)

// classifyDSN says what dsn names, or refuses it with ErrBadDSN: a URL of
// another scheme (postgresql+psycopg://, postgres:/, sqlite://), a string
// with "://" anywhere, a SQLite URI (file:), or a key=value string whose
// first key is not a libpq keyword. Messages show the DSN redacted.
func classifyDSN(dsn string) (dsnKind, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return dsnPostgresURL, nil
	}
	if m := keyValStart.FindStringSubmatch(dsn); m != nil && libpqKeywords[m[1]] {
		return dsnPostgresKeyVal, nil
	}
	why := ""
	switch m := urlLike.FindStringSubmatch(dsn); {
	case m != nil:
		why = "a URL of scheme " + quoteName(m[1])
	case strings.Contains(dsn, "://"):
		why = `a URL ("://")`
	case strings.HasPrefix(strings.ToLower(dsn), "file:"):
		why = "a SQLite URI (file:)"
	case schemeOnly.MatchString(dsn):
		// Not echoed: without its // no redaction can tell the password.
		scheme := dsn[:strings.IndexByte(dsn, ':')]
		return 0, &dsnError{msg: ErrBadDSN.Error() + ": a name starting " + quoteName(scheme+":") +
			" (shown no further: it may hold a password): a URL scheme without //; want a postgres:// or postgresql:// URL," +
			" libpq's key=value form (host=... dbname=...), or a SQLite file path (./" + "NAME for a file whose name has a colon)", err: ErrBadDSN}
	case strings.Contains(dsn, "=") && strings.ContainsAny(dsn, " \t\r\n"):
		why = "a key=value string whose first key is not a libpq connection keyword"
	default:
		return dsnSQLite, nil
	}
	return 0, badDSN(dsn, why+": want a postgres:// or postgresql:// URL, libpq's key=value form (host=... dbname=...), or a SQLite file path")
}

// redacted replaces a password.
const redacted = "xxxxx"

// passwordKey matches a password key of the key=value form or of a URL's
// query, with what separates it from its value.
var passwordKey = regexp.MustCompile(`(?i)\b(ssl)?password\s*=\s*`)

// schemeSlash matches a URL scheme and its slashes: what precedes a URL's
// user information, in a well-formed URL or a malformed one (postgres:/).
var schemeSlash = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*:/+`)

// RedactDSN returns s, a DSN or a message that holds one, with every
// password replaced by xxxxx: the value of each password= or sslpassword=
// key (key=value form or URL query; quoted with ' or not), and the password
// of a URL's user information, taken to run to the last '@' after the
// scheme. It is meant for malformed DSNs too, and errs on the side of
// hiding more: a message can lose text after a password, never show one.
func RedactDSN(s string) string {
	return redactUserinfo(redactKeyValues(s))
}

func redactKeyValues(s string) string {
	var b strings.Builder
	for {
		loc := passwordKey.FindStringIndex(s)
		if loc == nil {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:loc[1]])
		b.WriteString(redacted)
		s = s[loc[1]+valueLen(s[loc[1]:]):]
	}
}

// valueLen is the length of the key=value value that starts v: quoted (up
// to the closing quote, backslash escapes skipped; all of v when there is
// none) or up to white space or '&'.
func valueLen(v string) int {
	// libpq quotes with '; a value in " is malformed there, but whoever
	// wrote password="a b" meant all of a b to be the secret.
	if q := v[:min(1, len(v))]; q == "'" || q == `"` {
		for i := 1; i < len(v); i++ {
			switch v[i] {
			case '\\':
				i++
			case q[0]:
				return i + 1
			}
		}
		return len(v)
	}
	if i := strings.IndexAny(v, " \t\r\n&"); i >= 0 {
		return i
	}
	return len(v)
}

func redactUserinfo(s string) string {
	loc := schemeSlash.FindStringIndex(s)
	if loc == nil {
		return s
	}
	head, rest := s[:loc[1]], s[loc[1]:]
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return s
	}
	user, _, hasPW := strings.Cut(rest[:at], ":")
	if !hasPW {
		return head + rest[:at+1] + redactUserinfo(rest[at+1:])
	}
	return head + user + ":" + redacted + rest[at:]
}

// badDSN is ErrBadDSN about dsn, shown redacted.
func badDSN(dsn, why string) error {
	return &dsnError{msg: ErrBadDSN.Error() + ": " + quoteName(RedactDSN(dsn)) + ": " + why, err: ErrBadDSN}
}

// dsnError is an error whose message has been redacted; it unwraps to the
// original.
type dsnError struct {
	msg string
	err error
}

func (e *dsnError) Error() string { return e.msg }
func (e *dsnError) Unwrap() error { return e.err }

// minScrubbedPassword is the shortest password scrubError removes from a
// message word for word (a shorter one would garble the message; pgx's
// messages do not hold the password, this is a second line).
const minScrubbedPassword = 3

// scrubError returns err with its message redacted (RedactDSN, and the
// password itself removed wherever it appears); errors.Is and errors.As see
// through it.
func scrubError(err error, password string) error {
	if err == nil {
		return nil
	}
	msg := RedactDSN(err.Error())
	if len(password) >= minScrubbedPassword {
		msg = strings.ReplaceAll(msg, password, redacted)
	}
	if msg == err.Error() {
		return err
	}
	return &dsnError{msg: msg, err: err}
}

package benchgate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Acceptance is one line of an accepted-regressions file: a regular
// expression over benchmark names, when it expires, and the reason the
// regression is accepted. It is immutable once parsed and safe for
// concurrent use.
type Acceptance struct {
	Pattern *regexp.Regexp
	Reason  string
	File    string
	Line    int
	// Until (until=YYYY-MM-DD) is the last day the entry is valid; zero when
	// the entry expires by commits instead.
	Until time.Time
	// Commits (commits=N) is how many commits after the one that last
	// changed the entry's line it stays valid; 0 when it expires by date.
	Commits int
	// Expiry is the expiry as written ("until=2027-01-31", "commits=20").
	Expiry string
}

// Matches reports whether the acceptance covers key: the pattern is matched
// against the full benchmark name (as written, with its -GOMAXPROCS suffix)
// and, separately, against "NAME UNIT", so an entry can be limited to a unit
// (`^BenchmarkPut/.*\sallocs/op$`).
func (a *Acceptance) Matches(k Key) bool {
	return a.Pattern.MatchString(k.Name) || a.Pattern.MatchString(k.Name+" "+k.Unit)
}

// AcceptLineFormat is the form of one line of an accepted-regressions file,
// for help texts: ParseAccepted's grammar.
const AcceptLineFormat = "REGEXP until=YYYY-MM-DD|commits=N reason"

// ParseAccepted reads an accepted-regressions file: one `REGEXP EXPIRY
// reason` per line. The regexp is the first whitespace-separated field, so it
// cannot contain a blank (write \s); EXPIRY, the second, is required and is
// either `until=YYYY-MM-DD` (valid through that day, UTC) or `commits=N` (N
// > 0: valid until N commits follow the one that last changed the line; see
// CheckExpiry); the reason, the rest of the line, is required. Blank lines
// and lines starting with # are ignored. Every problem is reported with
// file:line, wrapping errAcceptFile. The input is read within the default
// Parser limits (ErrTooLarge). ParseAccepted does not decide expiry: it
// reads no clock and no git history.
func ParseAccepted(r io.Reader, fileName string) ([]*Acceptance, error) {
	p, _ := Parser{}.withDefaults()
	data, err := p.read(r, fileName)
	if err != nil {
		return nil, err
	}
	var out []*Acceptance
	var problems []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, msg := parseAcceptLine(line)
		if msg != "" {
			problems = append(problems, fmt.Sprintf("%s:%d: %s", fileName, n, msg))
			continue
		}
		a.File, a.Line = fileName, n
		out = append(out, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w:\n\t%s", errAcceptFile, strings.Join(problems, "\n\t"))
	}
	return out, nil
}

// parseAcceptLine parses `REGEXP EXPIRY reason`, or says what is wrong.
func parseAcceptLine(line string) (*Acceptance, string) {
	f := strings.Fields(line)
	pat := f[0]
	if len(f) < 2 || !strings.ContainsRune(f[1], '=') {
		return nil, fmt.Sprintf("%q has no expiry: want `REGEXP until=YYYY-MM-DD reason` or `REGEXP commits=N reason`", pat)
	}
	a := &Acceptance{Expiry: f[1]}
	key, val, _ := strings.Cut(f[1], "=")
	switch key {
	case "until":
		t, err := time.Parse(time.DateOnly, val)
		if err != nil {
			return nil, fmt.Sprintf("%q: %s: want until=YYYY-MM-DD", pat, f[1])
		}
		a.Until = t
	case "commits":
		n, err := strconv.Atoi(val)
		if err != nil || n <= 0 {
			return nil, fmt.Sprintf("%q: %s: want commits=N with N > 0", pat, f[1])
		}
		a.Commits = n
	default:
		return nil, fmt.Sprintf("%q: %s: want until=YYYY-MM-DD or commits=N", pat, f[1])
	}
	if len(f) < 3 {
		return nil, fmt.Sprintf("%q has no reason", pat)
	}
	rest := strings.TrimSpace(line[len(f[0]):])
	a.Reason = strings.TrimSpace(rest[len(f[1]):])
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, err.Error()
	}
	a.Pattern = re
	return a, ""
}

// AgeFunc returns how many commits have been made since the commit that last
// changed an acceptance's line (0 for a line not yet committed).
type AgeFunc func(a *Acceptance) (int, error)

// CheckExpiry returns an error wrapping ErrAcceptExpired that names every
// expired entry (file:line, pattern, expiry): an until= entry is expired
// after its day (today is compared in UTC), a commits=N entry when age says
// more than N commits followed it. age is only called for commits= entries;
// nil makes them an error (nothing can count the commits). An error from
// age is returned as is.
func CheckExpiry(acc []*Acceptance, today time.Time, age AgeFunc) error {
	day := today.UTC().Truncate(24 * time.Hour)
	var expired []string
	for _, a := range acc {
		switch {
		case !a.Until.IsZero():
			if day.After(a.Until) {
				expired = append(expired, fmt.Sprintf("%s:%d: %q (%s) expired on %s", a.File, a.Line, a.Pattern, a.Expiry, a.Until.Format(time.DateOnly)))
			}
		case a.Commits > 0:
			if age == nil {
				return fmt.Errorf("%s:%d: %q (%s): no git history to count commits", a.File, a.Line, a.Pattern, a.Expiry)
			}
			n, err := age(a)
			if err != nil {
				return fmt.Errorf("%s:%d: %q (%s): %w", a.File, a.Line, a.Pattern, a.Expiry, err)
			}
			if n > a.Commits {
				expired = append(expired, fmt.Sprintf("%s:%d: %q (%s) expired: %d commits since it was last changed", a.File, a.Line, a.Pattern, a.Expiry, n))
			}
		}
	}
	if len(expired) > 0 {
		return fmt.Errorf("%w (remove the entry, or renew it if the trade-off still holds):\n\t%s", ErrAcceptExpired, strings.Join(expired, "\n\t"))
	}
	return nil
}

// GitAge counts commits with git: `git blame` finds the commit that last
// changed the entry's line, `git rev-list --count C..HEAD` the commits since,
// in the repository that holds the file. Renewing an entry (editing its
// line) restarts its count.
func GitAge(ctx context.Context) AgeFunc {
	return func(a *Acceptance) (int, error) {
		abs, err := filepath.Abs(a.File)
		if err != nil {
			return 0, err
		}
		dir := filepath.Dir(abs)
		out, err := git(ctx, dir, "blame", "--porcelain", "-L", fmt.Sprintf("%d,%d", a.Line, a.Line), "--", filepath.Base(abs))
		if err != nil {
			return 0, err
		}
		sha, _, _ := strings.Cut(out, " ")
		if strings.Trim(sha, "0") == "" {
			return 0, nil // not committed yet
		}
		n, err := git(ctx, dir, "rev-list", "--count", sha+"..HEAD")
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(n)
	}
}

// ReadAccepted is ParseAccepted on a file; a missing file is not an error (no
// regression is accepted). Only a regular file within DefaultMaxBytes is read
// (see ErrNotRegular, ErrTooLarge).
func ReadAccepted(path string) ([]*Acceptance, error) {
	f, err := openInput(path, DefaultMaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseAccepted(f, path)
}

package benchgate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Acceptance is one line of an accepted-regressions file: a regular
// expression over benchmark names and the reason the regression is accepted.
// It is immutable once parsed and safe for concurrent use.
type Acceptance struct {
	Pattern *regexp.Regexp
	Reason  string
	File    string
	Line    int
}

// Matches reports whether the acceptance covers key: the pattern is matched
// against the full benchmark name (as written, with its -GOMAXPROCS suffix)
// and, separately, against "NAME UNIT", so an entry can be limited to a unit
// (`^BenchmarkPut/.*\sallocs/op$`).
func (a *Acceptance) Matches(k Key) bool {
	return a.Pattern.MatchString(k.Name) || a.Pattern.MatchString(k.Name+" "+k.Unit)
}

// ParseAccepted reads an accepted-regressions file: one `REGEXP  reason` per
// line (the regexp is the first whitespace-separated field, so it cannot
// contain a blank: write \s; the reason, the rest of the line, is required),
// blank lines and lines starting with # are ignored. Every problem is reported
// with file:line, wrapping ErrAcceptFile. The input is read within the default
// Parser limits (ErrTooLarge).
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
		pat, reason := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			pat, reason = line[:i], strings.TrimSpace(line[i+1:])
		}
		if reason == "" {
			problems = append(problems, fmt.Sprintf("%s:%d: %q has no reason", fileName, n, pat))
			continue
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %v", fileName, n, err))
			continue
		}
		out = append(out, &Acceptance{Pattern: re, Reason: reason, File: fileName, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w:\n\t%s", ErrAcceptFile, strings.Join(problems, "\n\t"))
	}
	return out, nil
}

// ReadAccepted is ParseAccepted on a file; a missing file is not an error (no
// regression is accepted).
func ReadAccepted(path string) ([]*Acceptance, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseAccepted(f, path)
}

package benchgate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

func TestAcceptedExpirySyntax(t *testing.T) {
	acc, err := ParseAccepted(strings.NewReader(
		"^BenchmarkA  until=2027-01-31  one more alloc buys X (issue 9)\n^BenchmarkB\tcommits=20\treason  two\n"), "acc.txt")
	if err != nil {
		t.Fatal(err)
	}
	if a := acc[0]; a.Until != time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC) || a.Commits != 0 || a.Reason != "one more alloc buys X (issue 9)" {
		t.Errorf("entry 1 %+v", a)
	}
	if b := acc[1]; !b.Until.IsZero() || b.Commits != 20 || b.Reason != "reason  two" || b.Expiry != "commits=20" {
		t.Errorf("entry 2 %+v", b)
	}
	for _, tc := range []struct{ in, want string }{
		{"^A  a reason without expiry\n", `"^A" has no expiry`},
		{"^A  until=2027-13-01  reason\n", "want until=YYYY-MM-DD"},
		{"^A  commits=0  reason\n", "commits=N with N > 0"},
		{"^A  commits=x  reason\n", "commits=N with N > 0"},
		{"^A  after=2027-01-01  reason\n", "want until=YYYY-MM-DD or commits=N"},
		{"^A  until=2027-01-01\n", "has no reason"},
		{"(  until=2027-01-01  reason\n", "missing closing )"},
	} {
		_, err := ParseAccepted(strings.NewReader("# c\n"+tc.in), "acc.txt")
		if !errors.Is(err, errAcceptFile) || !strings.Contains(err.Error(), "acc.txt:2") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want errAcceptFile at acc.txt:2 containing %q", tc.in, err, tc.want)
		}
	}
}

func TestCheckExpiry(t *testing.T) {
	acc, err := ParseAccepted(strings.NewReader(
		"^A  until=2027-01-31  r\n^B  commits=3  r\n"), "results/accepted-regressions.txt")
	if err != nil {
		t.Fatal(err)
	}
	age := func(n int) AgeFunc { return func(*Acceptance) (int, error) { return n, nil } }
	lastDay := time.Date(2027, 1, 31, 23, 59, 0, 0, time.UTC)
	if err := CheckExpiry(acc, lastDay, age(3)); err != nil {
		t.Errorf("on its last day and at 3 commits: %v, want valid", err)
	}
	err = CheckExpiry(acc, lastDay.Add(time.Hour), age(4))
	if !errors.Is(err, ErrAcceptExpired) ||
		!strings.Contains(err.Error(), `results/accepted-regressions.txt:1: "^A" (until=2027-01-31) expired on 2027-01-31`) ||
		!strings.Contains(err.Error(), `results/accepted-regressions.txt:2: "^B" (commits=3) expired: 4 commits`) {
		t.Errorf("err = %v, want ErrAcceptExpired naming both entries", err)
	}
	if err := CheckExpiry(acc[1:], lastDay, nil); err == nil || !strings.Contains(err.Error(), "no git history") {
		t.Errorf("commits= without an AgeFunc: %v, want an error", err)
	}
}

func TestGitAge(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not in PATH")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "accepted.txt")
	write := func(body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("^A  commits=1  r\n")
	testkit.CommitAll(t, dir, "accept A")
	for i := range 2 {
		testkit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "later "+string(rune('0'+i)))
	}
	write("^A  commits=1  r\n^B  commits=1  r\n") // B is not committed yet
	acc, err := ReadAccepted(path)
	if err != nil {
		t.Fatal(err)
	}
	age := GitAge(context.Background())
	if n, err := age(acc[0]); err != nil || n != 2 {
		t.Errorf("age of A = %d, %v; want 2 commits since it was added", n, err)
	}
	if n, err := age(acc[1]); err != nil || n != 0 {
		t.Errorf("age of uncommitted B = %d, %v; want 0", n, err)
	}
	err = CheckExpiry(acc, time.Now(), age)
	if !errors.Is(err, ErrAcceptExpired) || !strings.Contains(err.Error(), `accepted.txt:1: "^A" (commits=1) expired: 2 commits`) || strings.Contains(err.Error(), "^B") {
		t.Errorf("err = %v, want only A expired", err)
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/writegc/writegc/benchgate/history"
	"github.com/writegc/writegc/internal/oskit"
)

// Label resolution through git: the history library takes labels as given;
// benchgate record and run -db resolve a commit git knows to its full hash
// and commit time here, before Prepare's labels reach the database.

// errNoCommit: git does not know the revision.
var errNoCommit = errors.New("no such commit")

// maxGitRev bounds a revision handed to git (a commit label's limit).
const maxGitRev = 128

// gitCommit resolves rev in the git repository at dir to its full hash and
// committer time. It fails (errNoCommit, or the error running git) when dir
// is not a repository, git is missing or rev is unknown; a rev that git
// could take for an option is refused without running it.
func gitCommit(ctx context.Context, dir, rev string) (string, time.Time, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || len(rev) > maxGitRev {
		return "", time.Time{}, fmt.Errorf("%w: %q", errNoCommit, rev)
	}
	cmd := oskit.Command(ctx, "git", "-C", dir, "show", "-s", "--format=%H%n%cI", rev+"^{commit}", "--")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := oskit.Run(cmd); err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %s: git: %v: %s", errNoCommit, rev, err, strings.TrimSpace(stderr.String()))
	}
	sha, when, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(when))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %s: git gave time %q", errNoCommit, rev, when)
	}
	return sha, t, nil
}

// resolveCommit replaces a commit git knows by its full hash (dropping
// benchgate run's "+worktree") and fills in an unknown commit time from git.
func resolveCommit(ctx context.Context, l *history.Labels) {
	l.Commit = strings.TrimSuffix(l.Commit, "+worktree")
	if l.Commit == "" {
		return
	}
	sha, when, err := gitCommit(ctx, ".", l.Commit)
	if err != nil {
		return
	}
	l.Commit = sha
	if l.CommitTime.IsZero() {
		l.CommitTime = when
	}
}

// Lengths of a hexadecimal commit name: git's shortest abbreviation, and a
// SHA-256 object name.
const (
	minHexCommit = 4
	maxHexCommit = 64
)

// hexCommit reports whether s looks like a (possibly abbreviated) commit
// hash rather than a ref or revision expression.
func hexCommit(s string) bool {
	if len(s) < minHexCommit || len(s) > maxHexCommit {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

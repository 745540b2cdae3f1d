package main

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestGitCommitRefuses: a revision git could read as an option, an empty
// one or an overlong one is refused without running git.
func TestGitCommitRefuses(t *testing.T) {
	for _, rev := range []string{"", "-n", "--output=/tmp/x", strings.Repeat("a", maxGitRev+1)} {
		if _, _, err := gitCommit(context.Background(), t.TempDir(), rev); !errors.Is(err, errNoCommit) {
			t.Errorf("gitCommit(%.20q): %v, want errNoCommit", rev, err)
		}
	}
	if _, _, err := gitCommit(context.Background(), t.TempDir(), "HEAD"); !errors.Is(err, errNoCommit) {
		t.Errorf("gitCommit outside a repository: %v, want errNoCommit", err)
	}
}

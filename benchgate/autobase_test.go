package benchgate

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

func commit(t *testing.T, dir, msg string) string {
	t.Helper()
	testkit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gitOut(t, dir, "rev-parse", "HEAD")
}

func TestAutoBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not in PATH")
	}
	ctx := context.Background()
	upstream := t.TempDir()
	testkit.Git(t, upstream, "init", "-q", "-b", "main")
	c1 := commit(t, upstream, "one")
	if _, _, err := AutoBase(ctx, upstream); !errors.Is(err, ErrNoBase) || !strings.Contains(err.Error(), "no parent") {
		t.Errorf("first commit: err = %v, want ErrNoBase (no parent)", err)
	}
	c2 := commit(t, upstream, "two")

	check := func(name, dir, wantRev, wantWhy string) {
		t.Helper()
		rev, why, err := AutoBase(ctx, dir)
		if err != nil || rev != wantRev || !strings.Contains(why, wantWhy) {
			t.Errorf("%s: AutoBase = %s, %q, %v; want %s and a reason containing %q", name, rev, why, err, wantRev, wantWhy)
		}
	}
	check("local main", upstream, c1, "HEAD~1: HEAD is on the default branch main")

	clone := t.TempDir()
	testkit.Git(t, clone, "clone", "-q", upstream, ".")
	check("clone on main", clone, c1, "default branch main")
	testkit.Git(t, clone, "checkout", "-q", "-b", "feature")
	commit(t, clone, "feature 1")
	commit(t, clone, "feature 2")
	check("feature branch", clone, c2, "merge base of HEAD (branch feature) with the default branch origin/")

	// A pull request is tested as a detached merge of the branch into main,
	// after main moved on.
	c3 := commit(t, upstream, "three")
	testkit.Git(t, clone, "fetch", "-q", "origin")
	testkit.Git(t, clone, "checkout", "-q", "--detach", "origin/main")
	testkit.Git(t, clone, "merge", "-q", "--no-edit", "feature")
	check("detached merge commit", clone, c3, "merge base of HEAD (detached HEAD) with the default branch origin/")

	// Detached at the tip of main (a push build): the previous commit.
	testkit.Git(t, clone, "checkout", "-q", "--detach", "origin/main")
	check("detached on main", clone, c2, "HEAD~1: HEAD is contained in the default branch origin/")
}

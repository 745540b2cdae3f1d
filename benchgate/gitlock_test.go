package benchgate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/oskit"
	"github.com/writegc/writegc/internal/testkit"
)

// wideRepo makes a repository with enough files that a checkout takes a
// while, the window in which git's worktree commands race each other.
func wideRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(gitModuleDir(t), "repo")
	files := map[string]string{}
	for i := range 600 {
		files[fmt.Sprintf("d%02d/f%03d.txt", i%20, i)] = strings.Repeat("x", 512) + fmt.Sprint(i)
	}
	testkit.Write(t, repo, files)
	testkit.CommitAll(t, repo, "wide")
	return repo
}

// Runs of one repository at once (scripts run gates in parallel) each
// prune, add two worktrees and remove them. Without the worktree lock git
// itself failed here ("Could not write new index file", "could not open
// .git/worktrees/base/locked"); with it every operation succeeds and no
// worktree is left.
func TestConcurrentRunsShareOneRepo(t *testing.T) {
	repo := wideRepo(t)
	tmp := t.TempDir()
	runs, rounds := 6, 3
	if testing.Short() {
		runs, rounds = 4, 1 // still four at once; make test-slow runs the 36 worktrees
	}
	var wg sync.WaitGroup
	errs := make(chan error, runs*rounds)
	for r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				dir := filepath.Join(tmp, fmt.Sprintf("run%d-%d", r, round))
				ctx := context.Background()
				pruneStale(ctx, repo)
				var made []string
				for _, side := range []string{"base", "head"} {
					if _, _, err := worktree(ctx, repo, filepath.Join(dir, side), "HEAD", &made); err != nil {
						errs <- fmt.Errorf("run %d round %d %s: %v", r, round, side, err)
					}
				}
				for _, p := range made {
					removeWorktree(repo, p)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if list := gitOut(t, repo, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("worktrees left behind:\n%s", list)
	}
}

// The lock is a file lock in the git common directory: held through another
// open file description (as another process would hold it), lockWorktrees
// waits, gives up when its context ends, and gets it once it is released.
func TestWorktreeLockWaitsForAnotherHolder(t *testing.T) {
	if !oskit.AcrossProcesses {
		t.Skip("no flock(2): only runs of one process are serialised")
	}
	repo := wideRepo(t)
	f, err := os.OpenFile(filepath.Join(repo, ".git", worktreeLockName), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := oskit.TryLock(f); !ok || err != nil {
		t.Fatalf("tryLockFile = %v, %v", ok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if unlock, err := lockWorktrees(ctx, repo); !errors.Is(err, context.DeadlineExceeded) {
		if unlock != nil {
			unlock()
		}
		t.Fatalf("lockWorktrees while another holds the lock: %v, want the context's deadline", err)
	}
	if err := oskit.Unlock(f); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockWorktrees(context.Background(), repo)
	if err != nil {
		t.Fatalf("lockWorktrees after the release: %v", err)
	}
	unlock()
	// A worktree's own checkout names the same common directory.
	var made []string
	tree, _, err := worktree(context.Background(), repo, filepath.Join(t.TempDir(), "base"), "HEAD", &made)
	if err != nil {
		t.Fatal(err)
	}
	defer removeWorktree(repo, tree)
	unlock, err = lockWorktrees(context.Background(), tree)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if ok, _ := oskit.TryLock(f); ok {
		oskit.Unlock(f)
		t.Error("a lock taken through a linked worktree is not the repository's lock")
	}
}

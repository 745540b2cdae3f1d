package benchgate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/writegc/writegc/internal/oskit"
)

// worktreeLockName is the file, in the repository's git common directory,
// whose lock serialises benchgate's worktree operations in that repository.
const worktreeLockName = "benchgate-worktrees.lock"

// worktreeLockPoll is how often a waiting lockWorktrees retries the file
// lock; a wait ends early when the context is done.
const worktreeLockPoll = 10 * time.Millisecond

// inProcess serialises worktree operations of Runs in this process, on every
// OS (the file lock, internal/oskit, adds the other processes where the OS
// has flock(2)). A channel, not a mutex, so that a wait can be cancelled.
var inProcess = make(chan struct{}, 1)

// lockWorktrees serialises `git worktree add`, `remove`, `list` and `prune`
// among benchgate runs in the repository at root: git does not. Two Runs
// that add, prune or remove worktrees of one repository at once fail in git
// itself ("Could not write new index file", "could not open
// .git/worktrees/base/locked"), because one's prune or remove touches the
// administrative folder the other is filling. It waits until the lock is
// free or ctx is done, and returns the function that releases it. The lock
// is held for the git command alone, never across a build or a benchmark.
func lockWorktrees(ctx context.Context, root string) (unlock func(), err error) {
	select {
	case inProcess <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release := func() { <-inProcess }
	common, err := git(ctx, root, "rev-parse", "--git-common-dir")
	if err != nil {
		release()
		return nil, err
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(root, common)
	}
	f, err := os.OpenFile(filepath.Join(common, worktreeLockName), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		release()
		return nil, fmt.Errorf("the worktree lock: %w", err)
	}
	for {
		ok, err := oskit.TryLock(f)
		if err != nil {
			f.Close()
			release()
			return nil, fmt.Errorf("the worktree lock %s: %w", f.Name(), err)
		}
		if ok {
			break
		}
		select {
		case <-time.After(worktreeLockPoll):
		case <-ctx.Done():
			f.Close()
			release()
			return nil, ctx.Err()
		}
	}
	return func() {
		oskit.Unlock(f)
		f.Close()
		release()
	}, nil
}

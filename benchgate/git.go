package benchgate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/internal/buildenv"
	"github.com/writegc/writegc/internal/oskit"
)

// git runs git in dir and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := oskit.Command(ctx, "git", append([]string{"-C", dir}, args...)...)
	// In a process group of its own git cannot read the terminal: it fails
	// instead of prompting for a password.
	cmd.Env = childEnv(ctx, "GIT_TERMINAL_PROMPT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := oskit.Run(cmd); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := oskit.Command(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = childEnv(ctx, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := oskit.Run(cmd); err != nil {
		return "", &goError{args: args, err: err, stderr: stderr.String()}
	}
	return stdout.String(), nil
}

// goError is a go command that failed. Its message is the command, how it
// failed and the tail of its standard error.
type goError struct {
	args   []string
	err    error
	stderr string
}

func (e *goError) Error() string {
	return fmt.Sprintf("go %s: %v\n%s", strings.Join(e.args, " "), e.err, tail(e.stderr, 4000))
}

// goFailure is one line saying why a go command failed: the first line of
// its standard error that is not progress ("go: downloading ...") nor a
// package heading ("# pkg"), else the error's first line.
func goFailure(err error) string {
	var ge *goError
	if errors.As(err, &ge) {
		if l := buildenv.GoErrorLine(ge.stderr); l != "" {
			return l
		}
	}
	return firstLine(err.Error())
}

// worktree checks rev out, detached, into path, initialises its submodules,
// and returns the path and the full commit hash. Once the worktree exists
// its path is appended to made, so that the caller removes it on every path.
func worktree(ctx context.Context, root, path, rev string, made *[]string) (string, string, error) {
	sha, err := git(ctx, root, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", "", fmt.Errorf("%w: unknown revision %q", ErrBuild, rev)
	}
	unlock, err := lockWorktrees(ctx, root)
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrBuild, err)
	}
	_, err = git(ctx, root, "worktree", "add", "--detach", "--force", path, sha)
	unlock()
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrBuild, err)
	}
	*made = append(*made, path)
	if err := submodules(ctx, root, path); err != nil {
		return "", "", fmt.Errorf("%w: submodules of %s (%.12s): %v", ErrBuild, rev, sha, err)
	}
	return path, sha, nil
}

// submodules runs `git submodule update --init --recursive` in the worktree
// tree when its commit has a .gitmodules. Each top-level submodule that is
// checked out in the repository's own working tree (root/PATH) is fetched
// from there (submodule.NAME.url overridden for this command only, with the
// file protocol allowed), so no network is needed when the user's checkout
// has the commits; the others use the URL of their configuration.
func submodules(ctx context.Context, root, tree string) error {
	if _, err := os.Stat(filepath.Join(tree, ".gitmodules")); err != nil {
		return nil
	}
	out, err := git(ctx, tree, "config", "--file", ".gitmodules", "--get-regexp", `^submodule\..*\.path$`)
	if err != nil && out != "" {
		return err
	}
	args := []string{"-c", "protocol.file.allow=always"}
	for _, line := range strings.Split(out, "\n") {
		key, path, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(key, "submodule."), ".path")
		local := filepath.Join(root, filepath.FromSlash(path))
		if _, err := os.Stat(filepath.Join(local, ".git")); err == nil {
			args = append(args, "-c", "submodule."+name+".url="+local)
		}
	}
	args = append(args, "submodule", "update", "--init", "--recursive")
	if _, err := git(ctx, tree, args...); err != nil {
		return fmt.Errorf("%v (is every submodule checked out in %s? git submodule update --init --recursive)", err, root)
	}
	return nil
}

// removeWorktree removes a worktree made by worktree. It runs even when the
// Run's context is cancelled, with its own short deadline; when the worktree
// lock cannot be had by then, the folder is removed and git's record of it
// is left for the next Run's prune.
func removeWorktree(root, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	unlock, err := lockWorktrees(ctx, root)
	if err != nil {
		os.RemoveAll(path)
		return
	}
	defer unlock()
	if _, err := git(ctx, root, "worktree", "remove", "--force", "--force", path); err != nil {
		os.RemoveAll(path)
		git(ctx, root, "worktree", "prune")
	}
}

// staleDir matches the name of Run's temporary folder, benchgate-PID-*.
var staleDir = regexp.MustCompile(`^benchgate-([0-9]+)-[^/\\]*$`)

// pruneStale removes the worktrees a killed earlier Run left in root: those
// at benchgate-PID-*/base or .../head whose process PID no longer exists
// (processGone), with their folder; then `git worktree prune` forgets
// worktrees whose folder is gone. It returns a note per worktree removed. A
// Run that is still alive, in this process or another, is never touched.
func pruneStale(ctx context.Context, root string) []string {
	unlock, err := lockWorktrees(ctx, root)
	if err != nil {
		return nil
	}
	out, err := git(ctx, root, "worktree", "list", "--porcelain")
	unlock()
	if err != nil {
		return nil
	}
	var notes []string
	for _, line := range strings.Split(out, "\n") {
		path, ok := strings.CutPrefix(line, "worktree ")
		if !ok || (filepath.Base(path) != "base" && filepath.Base(path) != "head") {
			continue
		}
		dir := filepath.Dir(path)
		m := staleDir.FindStringSubmatch(filepath.Base(dir))
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() || !processGone(pid) {
			continue
		}
		removeWorktree(root, path)
		os.RemoveAll(dir)
		notes = append(notes, fmt.Sprintf("removed the worktree %s left by an earlier benchgate run (process %d is gone)", path, pid))
	}
	if unlock, err := lockWorktrees(ctx, root); err == nil {
		git(ctx, root, "worktree", "prune")
		unlock()
	}
	return notes
}

// BaseAuto is the RunConfig.Base that makes Run choose the base with
// AutoBase. (A branch named "auto" is refs/heads/auto.)
const BaseAuto = "auto"

// AutoBase chooses the base revision for the commit checked out in dir, the
// way a CI gate wants it, and says why:
//
//   - The default branch is origin's (refs/remotes/origin/HEAD, else
//     origin/main, else origin/master), else the local main or master.
//   - On the default branch (HEAD is that branch by name, or HEAD is
//     contained in it, as on a push to main): HEAD~1, the previous commit.
//   - Elsewhere (a feature branch, or the detached merge commit a pull
//     request is tested as): the merge base of HEAD and the default branch,
//     so the gate measures the branch's changes only.
//   - With no default branch at all: HEAD~1, and the reason says so.
//
// It returns the full commit hash. Errors wrap ErrNoBase: HEAD has no parent,
// or no merge base is found (a shallow clone: fetch the full history).
func AutoBase(ctx context.Context, dir string) (rev, reason string, err error) {
	def, defName := defaultBranch(ctx, dir)
	branch, _ := git(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	head, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return "", "", fmt.Errorf("%w: HEAD is not a commit", ErrNoBase)
	}
	parent := func(why string) (string, string, error) {
		sha, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD~1^{commit}")
		if err != nil {
			return "", "", fmt.Errorf("%w: %s, and HEAD has no parent commit%s", ErrNoBase, why, shallowHint(ctx, dir))
		}
		return sha, "HEAD~1: " + why, nil
	}
	if def == "" {
		return parent("no default branch found (no origin/HEAD, origin/main, origin/master, main or master)")
	}
	short := defName[strings.LastIndex(defName, "/")+1:]
	if branch != "" && branch == short {
		return parent(fmt.Sprintf("HEAD is on the default branch %s", branch))
	}
	mb, err := git(ctx, dir, "merge-base", "HEAD", def)
	if err != nil {
		return "", "", fmt.Errorf("%w: no merge base of HEAD and %s%s", ErrNoBase, defName, shallowHint(ctx, dir))
	}
	if mb == head {
		return parent(fmt.Sprintf("HEAD is contained in the default branch %s", defName))
	}
	on := "detached HEAD"
	if branch != "" {
		on = "branch " + branch
	}
	return mb, fmt.Sprintf("merge base of HEAD (%s) with the default branch %s", on, defName), nil
}

// defaultBranch returns the ref of the default branch and its short name.
func defaultBranch(ctx context.Context, dir string) (ref, name string) {
	if r, err := git(ctx, dir, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"); err == nil && r != "" {
		return r, strings.TrimPrefix(r, "refs/remotes/")
	}
	for _, r := range []string{"refs/remotes/origin/main", "refs/remotes/origin/master", "refs/heads/main", "refs/heads/master"} {
		if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", r+"^{commit}"); err == nil {
			return r, strings.TrimPrefix(strings.TrimPrefix(r, "refs/remotes/"), "refs/heads/")
		}
	}
	return "", ""
}

func shallowHint(ctx context.Context, dir string) string {
	if s, _ := git(ctx, dir, "rev-parse", "--is-shallow-repository"); s == "true" {
		return " (this is a shallow clone: fetch the full history, e.g. fetch-depth: 0)"
	}
	return ""
}

// execOut runs a command and returns its standard output.
func execOut(ctx context.Context, name string, args ...string) (string, error) {
	cmd := oskit.Command(ctx, name, args...)
	cmd.Env = childEnv(ctx)
	out, err := oskit.Output(cmd)
	return string(out), err
}

// ShortCommit abbreviates a full commit hash to 12 hex digits, keeping what
// follows it ("+worktree" and the like); anything shorter is kept whole.
func ShortCommit(sha string) string {
	if len(sha) >= 40 {
		return sha[:12] + sha[40:]
	}
	return sha
}

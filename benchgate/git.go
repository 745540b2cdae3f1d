package benchgate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// git runs git in dir and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, tail(stderr.String(), 4000))
	}
	return stdout.String(), nil
}

// worktree checks rev out, detached, into path and returns the path and the
// full commit hash.
func worktree(ctx context.Context, root, path, rev string) (string, string, error) {
	sha, err := git(ctx, root, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", "", fmt.Errorf("%w: unknown revision %q", ErrBuild, rev)
	}
	if _, err := git(ctx, root, "worktree", "add", "--detach", "--force", path, sha); err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrBuild, err)
	}
	return path, sha, nil
}

// removeWorktree removes a worktree made by worktree. It runs even when the
// Run's context is cancelled, with its own short deadline.
func removeWorktree(root, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := git(ctx, root, "worktree", "remove", "--force", path); err != nil {
		os.RemoveAll(path)
		git(ctx, root, "worktree", "prune")
	}
}

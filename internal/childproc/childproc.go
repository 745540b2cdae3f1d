// Package childproc starts the child processes of writegc's tools (benchmark
// binaries, valgrind, git, the go command) so that no child, and nothing a
// child starts, can outlive its run or stall the tool waiting on it.
//
// Invariants, for a command made by Command and started by Start or Run:
//
//   - Linux: the child leads a process group of its own (Setpgid) and is
//     sent SIGKILL if the tool's thread that started it dies (Pdeathsig).
//     When the context is done (a timeout, a cancel, SIGINT or SIGTERM
//     turned into a cancel) the whole group is killed, not only the child.
//     When the child exits by itself, whatever is left of its group (a
//     grandchild such as `sleep 3600` holding the child's stdout) is killed
//     at once, so that its pipes reach end of file.
//   - Everywhere: cmd.WaitDelay (DefaultWaitDelay unless the caller set one)
//     bounds how long Wait waits for the pipes once the child exited or was
//     killed; past it the pipes are closed and Wait returns (exec.ErrWaitDelay
//     when the child itself succeeded). A grandchild that left the group
//     (setsid) is bounded by this, and on other OSes every grandchild is.
//   - The child's group is signalled only while the child is not yet
//     reaped (its pid, the group's id, cannot have been reused): the wait
//     function Start returns waits for the child to exit without reaping it,
//     kills the rest of the group, and only then calls cmd.Wait.
//
// The package holds no state; its functions are safe for concurrent use on
// different commands.
package childproc

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"time"
)

// DefaultWaitDelay is the cmd.WaitDelay Command sets: how long Wait waits
// for a child's pipes after the child exited or was killed.
const DefaultWaitDelay = 5 * time.Second

// Command is exec.CommandContext with the process-group setup of the package
// doc: the group is killed when ctx is done, and cmd.WaitDelay is
// DefaultWaitDelay. Start it with Start or Run (or Output), not the Cmd's
// own methods, to get the group killed when the child exits by itself.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = DefaultWaitDelay
	setGroup(cmd)
	return cmd
}

// Start starts cmd and returns the function to wait for it with, instead
// of cmd.Wait: once the child exits, it kills what is left of the child's
// process group (Linux), then calls cmd.Wait. Call it exactly once.
func Start(cmd *exec.Cmd) (wait func() error, err error) {
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = DefaultWaitDelay
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := watch(cmd)
	return func() error {
		<-done
		return cmd.Wait()
	}, nil
}

// Run starts cmd and waits for it (see Start).
func Run(cmd *exec.Cmd) error {
	wait, err := Start(cmd)
	if err != nil {
		return err
	}
	return wait()
}

// Output is cmd.Output through Run: the child's standard output, and its
// standard error in an *exec.ExitError when it fails and cmd.Stderr is nil.
func Output(cmd *exec.Cmd) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	captured := cmd.Stderr == nil
	if captured {
		cmd.Stderr = &stderr
	}
	err := Run(cmd)
	var ee *exec.ExitError
	if captured && errors.As(err, &ee) {
		ee.Stderr = stderr.Bytes()
	}
	return stdout.Bytes(), err
}

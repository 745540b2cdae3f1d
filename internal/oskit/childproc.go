package oskit

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

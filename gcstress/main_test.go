package gcstress

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain makes the test binary a gcstress child when ChildEnv is set, so
// the runner tests re-execute this binary exactly as the command does.
func TestMain(m *testing.M) {
	if spec := os.Getenv(ChildEnv); spec != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := childMain(ctx, spec, os.Stdout)
		stop()
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
		}
		os.Exit(ExitCode(err))
	}
	os.Exit(m.Run())
}

package gcstress

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain makes the test binary a gcstress child when ChildEnv is set, so
// the runner tests re-execute this binary exactly as the command does. The
// test kinds (registry_test.go) are registered by then, in init.
func TestMain(m *testing.M) {
	if spec := os.Getenv(ChildEnv); spec != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := RunChild(ctx, spec, os.Stdout, os.Stderr)
		stop()
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

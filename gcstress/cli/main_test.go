package cli

import (
	"bytes"
	"context"
	"os"
	"sync"
	"testing"

	"github.com/writegc/writegc/gcstress"
)

// TestMain serves scenario children through Main, exactly as a command
// built on this package does: the runs below re-execute this test binary.
func TestMain(m *testing.M) {
	if os.Getenv(gcstress.ChildEnv) != "" {
		os.Exit(Main(context.Background(), nil, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// syncBuf is a goroutine-safe bytes.Buffer.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

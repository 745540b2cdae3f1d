package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/internal/proto"
)

// TestRecordTooLongNamesTheLimit: the parent's error for an over-long
// record names the limit and wraps ErrStream.
func TestRecordTooLongNamesTheLimit(t *testing.T) {
	err := error(ErrRecordTooLong)
	if !strings.Contains(err.Error(), "16 MiB") || !errors.Is(err, proto.ErrStream) {
		t.Fatalf("error %q does not name the limit", err)
	}
}

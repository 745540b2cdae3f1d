package benchgate

import (
	"errors"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

// TestInputsRefuseNonRegularFiles: every file the package reads on the
// user's behalf (a benchmark file, a thresholds file, an accepted-regressions
// file, a profile) is refused with ErrNotRegular, naming it, when it is a
// FIFO, a socket, a directory or a link to a device, and a FIFO without a
// writer does not block (the old code opened it and hung until SIGKILL).
func TestInputsRefuseNonRegularFiles(t *testing.T) {
	readers := map[string]func(string) error{
		"ParseFiles":     func(p string) error { _, err := ParseFiles(p); return err },
		"ReadThresholds": func(p string) error { _, err := ReadThresholds(p); return err },
		"ReadAccepted":   func(p string) error { _, err := ReadAccepted(p); return err },
		"readProfile":    func(p string) error { _, err := readProfile(p); return err },
	}
	for _, pr := range testkit.Hostile(t, "bench.txt") {
		for name, read := range readers {
			err := testkit.Bounded(t, name+" of a "+pr.Kind, func() error { return read(pr.Path) })
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), pr.Path) {
				t.Errorf("%s of a %s: %v, want ErrNotRegular naming %s", name, pr.Kind, err, pr.Path)
			}
		}
	}
}

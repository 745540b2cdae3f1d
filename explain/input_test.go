package explain

import (
	"errors"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

// TestRefusesNonRegularFiles: a profile path that is a FIFO, a socket or a
// link to /dev/zero or /dev/urandom, and a folder whose metrics.json is one,
// are refused with ErrNotRegular naming the file, without blocking (the old
// code read a FIFO until a writer came and /dev/zero until memory ran out).
func TestRefusesNonRegularFiles(t *testing.T) {
	for _, pr := range testkit.Hostile(t, "heap.pprof") {
		if pr.Kind == "directory" {
			continue // a folder is a folder of profiles to explain
		}
		err := testkit.Bounded(t, "Explain of a "+pr.Kind, func() error { _, err := Explain(pr.Path); return err })
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), pr.Path) {
			t.Errorf("Explain of a %s: %v, want ErrNotRegular naming it", pr.Kind, err)
		}
	}
	for _, pr := range testkit.Hostile(t, "metrics.json") {
		if pr.Kind == "directory" {
			continue
		}
		err := testkit.Bounded(t, "Explain with metrics.json a "+pr.Kind, func() error { _, err := Explain(pr.Dir); return err })
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), pr.Path) {
			t.Errorf("metrics.json a %s: %v, want ErrNotRegular naming it", pr.Kind, err)
		}
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

// TestInputsRefuseNonRegularFiles: every input file the command names —
// compare's OLD and NEW, -thresholds, -accept, record's FILE — is refused,
// exit 2, naming it, when it is a FIFO (without blocking: the old code hung
// in open until SIGKILL, Ctrl-C being caught), a socket, a directory or a
// link to /dev/zero or /dev/urandom.
func TestInputsRefuseNonRegularFiles(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	for _, pr := range testkit.Hostile(t, "bench.txt") {
		for _, args := range [][]string{
			{"compare", pr.Path, "testdata/head.txt"},
			{"compare", "testdata/base.txt", pr.Path},
			{"compare", "-thresholds", pr.Path, "testdata/base.txt", "testdata/head.txt"},
			{"compare", "-accept", pr.Path, "testdata/base.txt", "testdata/head.txt"},
			{"record", "-db", db, pr.Path},
		} {
			var code int
			var errOut string
			testkit.Bounded(t, strings.Join(args, " ")+" ("+pr.Kind+")", func() error {
				code, _, errOut = cli(t, args...)
				return nil
			})
			if code != 2 || !strings.Contains(errOut, pr.Path) || !strings.Contains(errOut, "not a regular file") {
				t.Errorf("%s (%s): exit %d, stderr %q; want 2 naming the file, not a regular file", strings.Join(args, " "), pr.Kind, code, errOut)
			}
		}
	}
}

// record -dir with a FIFO, socket or device where the folder should be: a
// refusal at once (opening a FIFO would block), naming it.
func TestRecordDirRefusesNonDirectories(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	for _, pr := range testkit.Hostile(t, "raw") {
		if pr.Kind == "directory" {
			continue
		}
		var code int
		var errOut string
		testkit.Bounded(t, "record -dir ("+pr.Kind+")", func() error {
			code, _, errOut = cli(t, "record", "-db", db, "-dir", pr.Path)
			return nil
		})
		if code != 2 || !strings.Contains(errOut, pr.Path) || !strings.Contains(errOut, "not a directory") {
			t.Errorf("record -dir %s (%s): exit %d, stderr %q; want 2, not a directory", pr.Path, pr.Kind, code, errOut)
		}
	}
}

//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFODB: a FIFO at -db is refused at once by history and record.
func TestFIFODB(t *testing.T) {
	dir := t.TempDir()
	file := historyFiles(t, dir, "CPU A", 1, 9)[0]
	fifo := filepath.Join(dir, "h.db")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"history", "-db", fifo}, {"record", "-db", fifo, file}, {"record", "-db", filepath.Join(dir, "ok.db"), fifo}} {
		code, _, errOut := cliWithin(t, args...)
		if code != 2 || !strings.Contains(errOut, "named pipe") {
			t.Errorf("%v: exit %d, %q; want 2 naming the FIFO", args, code, errOut)
		}
	}
}

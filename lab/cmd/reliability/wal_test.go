package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/writegc/writegc/writepath"
)

// TestWALMatrix runs `reliability wal` end to end with few keys: every
// damage and mode gives a row, no loss is silent, a torn tail is tolerated
// by default and a bit flip before the tail fails the open.
func TestWALMatrix(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"wal", "-keys", "200"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr %s", code, errb.String())
	}
	table, lock, ok := strings.Cut(out.String(), "## WAL directory lock")
	if !ok {
		t.Fatalf("no WAL directory lock table:\n%s", out.String())
	}
	checkWALLockTable(t, lock, 200)
	if n := strings.Count(table, "\n| ") - 1; n != len(walDamages)*3 {
		t.Fatalf("%d rows, want %d:\n%s", n, len(walDamages)*3, table)
	}
	for _, want := range []string{
		"| zero-filled tail, 8 B | tolerate-torn-tail | 200 | 200 | yes | 0 | 8 | no | - |",
		"| zero-filled tail, 4 KiB page | absolute-consistency | 200 | - | - | 0 | 4096 | no | writepath: WAL corrupt",
		"| bit flip mid-file, only log | tolerate-torn-tail | 200 | - | - | 1 |",
		"| bit flip mid-file, middle of 3 logs | skip-corrupted | 200 | 199 | no | 1 |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("no row %q in:\n%s", want, table)
		}
	}
	if strings.Contains(table, "| yes | -") {
		t.Errorf("a silent loss:\n%s", table)
	}
}

func TestWALUsage(t *testing.T) {
	for _, c := range []struct{ args, flag string }{
		{"wal -keys 5", "-keys"}, {"wal -sync always", "-sync"}, {"wal -sync sometimes", "-sync"}, {"wal -bogus", "-bogus"},
	} {
		var out, errb bytes.Buffer
		if code := run(strings.Fields(c.args), &out, &errb); code != 2 || !strings.Contains(errb.String(), c.flag) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming %s", c.args, code, errb.String(), c.flag)
		}
	}
}

// checkWALLockTable: in every recovery mode, a second opener in this
// process and in another is refused with ErrWALLocked naming the holder,
// and every key the holder acknowledged survives.
func checkWALLockTable(t *testing.T, table string, keys int) {
	t.Helper()
	for _, holder := range []string{"this process", "another process"} {
		for _, m := range writepath.WALRecoveryModes() {
			want := fmt.Sprintf("| %s | %v | %d | refused: ErrWALLocked naming the holder's pid | %d | 0 |", holder, m, keys, keys)
			if !strings.Contains(table, want) {
				t.Errorf("no row %q in:\n%s", want, table)
			}
		}
	}
}

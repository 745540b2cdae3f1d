package explain

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// TestGenerateTestdata regenerates the committed profiles under testdata
// with Capture over the test workload: go test -run TestGenerateTestdata
// -update ./explain (not under -race). The golden outputs are then
// rewritten by the golden tests in the same run: -update on this package
// always regenerates the profiles too.
func TestGenerateTestdata(t *testing.T) {
	if !testkit.UpdateGolden() {
		t.Skip("run with -update to regenerate testdata")
	}
	for _, sc := range []struct {
		name  string
		m     putter
		kinds string
	}{
		{"heap", &testList{}, "cpu,heap,allocs,fgprof,trace,mutex,block"},
		{"flat", &flatList{}, "cpu,heap,allocs,fgprof"},
	} {
		dir := filepath.Join("testdata", sc.name)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		k, err := ParseProfiles(sc.kinds)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		c := &Capture{Profiles: k, TraceWindow: 300 * time.Millisecond}
		if err := c.Start(dir); err != nil {
			t.Fatal(err)
		}
		runWorkload(sc.m, 2, 1500*time.Millisecond, func() {
			if err := c.SnapshotHeap(); err != nil {
				t.Error(err)
			}
		})
		if err := c.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}

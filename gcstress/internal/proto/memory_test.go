package proto

import (
	"strings"
	"testing"
)

// TestParseCgroupLimit: a number is a limit; "max", v1's 2^63-page "no
// limit", garbage, a negative or zero value and an over-long file are none.
func TestParseCgroupLimit(t *testing.T) {
	for in, want := range map[string]int64{"4294967296\n": 4 << 30, " 1048576 ": 1 << 20} {
		if n, ok := ParseCgroupLimit([]byte(in)); !ok || n != want {
			t.Errorf("%q: %d %v, want %d", in, n, ok, want)
		}
	}
	for _, in := range []string{"max\n", "9223372036854771712\n", "", "abc", "-1", "0", "12 34", strings.Repeat("1", MaxCgroupFile+1)} {
		if n, ok := ParseCgroupLimit([]byte(in)); ok {
			t.Errorf("%q: %d, want no limit", in, n)
		}
	}
}

// TestMemoryOf: the least of the machine's memory and the limits along
// the cgroup's path to the root, for v2 and v1; unreadable files and
// "max" set none.
func TestMemoryOf(t *testing.T) {
	const gib = int64(1) << 30
	files := map[string]string{
		"/sys/fs/cgroup/memory.max":                                  "max\n",
		"/sys/fs/cgroup/app/memory.max":                              "8589934592\n",
		"/sys/fs/cgroup/app/job/memory.max":                          "max\n",
		"/sys/fs/cgroup/memory/memory.limit_in_bytes":                "9223372036854771712\n",
		"/sys/fs/cgroup/memory/ci/runner/memory.limit_in_bytes":      "4294967296\n",
		"/sys/fs/cgroup/memory/ci/runner/leaf/memory.limit_in_bytes": "6442450944\n",
	}
	read := func(p string) []byte {
		if s, ok := files[p]; ok {
			return []byte(s)
		}
		return nil
	}
	for _, c := range []struct {
		self    string
		machine int64
		want    Memory
	}{
		{"0::/app/job\n", 24 * gib, Memory{Bytes: 8 * gib, Cgroup: true}}, // the parent's limit binds
		{"0::/app/job\n", 4 * gib, Memory{Bytes: 4 * gib}},                // the machine is smaller
		{"4:memory:/ci/runner/leaf\n0::/\n", 24 * gib, Memory{Bytes: 4 * gib, Cgroup: true}},
		{"0::/\n", 24 * gib, Memory{Bytes: 24 * gib}}, // root: max
		{"", 24 * gib, Memory{Bytes: 24 * gib}},
		{"garbage\n", 0, Memory{}},
		{"0::/app\n", 0, Memory{Bytes: 8 * gib, Cgroup: true}}, // machine unknown
	} {
		if got := memoryOf(c.machine, []byte(c.self), read); got != c.want {
			t.Errorf("%q on %d: %+v, want %+v", c.self, c.machine, got, c.want)
		}
	}
	if got := ancestors("/a/b/../c"); strings.Join(got, " ") != "/a/c /a /" {
		t.Errorf("ancestors: %q", got)
	}
	if n := len(ancestors(strings.Repeat("/x", 100))); n != MaxCgroupDepth {
		t.Errorf("%d ancestors, want at most %d", n, MaxCgroupDepth)
	}
}

// TestMachineMemory: on Linux the reading is positive and at most the
// machine's memory.
func TestMachineMemory(t *testing.T) {
	m := MachineMemory()
	if !Supported {
		if m != (Memory{}) {
			t.Fatalf("%+v off Linux", m)
		}
		return
	}
	if m.Bytes <= 0 || m.Bytes > int64(memTotal()) {
		t.Fatalf("%+v, machine %d", m, memTotal())
	}
}

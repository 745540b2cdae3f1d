package proto

import (
	"bufio"
	"bytes"
	"io"
	"path"
	"strconv"
	"strings"
)

// Memory is what a process may use of the machine: the smaller of the
// machine's memory and its cgroup's limit. A plain value; Bytes 0 is
// unknown (no reading on this system).
type Memory struct {
	Bytes int64
	// Cgroup says that Bytes is the cgroup's memory limit (memory.max,
	// memory.limit_in_bytes), which is below the machine's memory.
	Cgroup bool
}

// MaxCgroupFile bounds what is read of one cgroup file: a limit is one
// number or "max".
const MaxCgroupFile = 64

// MaxCgroupDepth bounds the ancestors whose limits are read: the limit
// that binds is the least along the path to the root.
const MaxCgroupDepth = 32

// maxSelfCgroup bounds what is read of /proc/self/cgroup.
const maxSelfCgroup = 64 << 10

// unlimitedCgroup: cgroup v1 writes "no limit" as the largest multiple of
// the page size below 2^63; anything this large is no limit.
const unlimitedCgroup = int64(1) << 62

// ParseCgroupLimit parses a cgroup memory limit file's content (v2
// memory.max, v1 memory.limit_in_bytes): bytes, and false for no limit
// ("max", a value of 2^62 or more) or content that is not one
// non-negative number of at most MaxCgroupFile bytes.
func ParseCgroupLimit(b []byte) (int64, bool) {
	if len(b) > MaxCgroupFile {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= unlimitedCgroup {
		return 0, false
	}
	return n, true
}

// cgroupPaths parses /proc/self/cgroup (at most maxSelfCgroup bytes of
// it): the unified (v2) hierarchy's path ("0::/a/b") and the v1 memory
// controller's ("4:memory:/a/b"), "" where there is none.
func cgroupPaths(r io.Reader) (v2, v1 string) {
	sc := bufio.NewScanner(io.LimitReader(r, maxSelfCgroup))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case controllerIn(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	return v2, v1
}

// controllerIn says whether the comma-separated list names c.
func controllerIn(list, c string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == c {
			return true
		}
	}
	return false
}

// ancestors are cgroup path p and its parents up to the root, at most
// MaxCgroupDepth of them: "/a/b" gives "/a/b", "/a", "/".
func ancestors(p string) []string {
	p = path.Clean("/" + p)
	out := []string{p}
	for p != "/" && len(out) < MaxCgroupDepth {
		p = path.Dir(p)
		out = append(out, p)
	}
	return out
}

// leastLimit is the least limit read by read (a file's content, nil when
// it cannot be read) of the files under root for cgroup path p and its
// ancestors; false when none sets one.
func leastLimit(read func(string) []byte, root, p, file string) (int64, bool) {
	least, found := int64(0), false
	for _, a := range ancestors(p) {
		if n, ok := ParseCgroupLimit(read(path.Join(root, a, file))); ok && (!found || n < least) {
			least, found = n, true
		}
	}
	return least, found
}

// memoryOf is the smaller of the machine's memory (machine bytes, 0:
// unknown) and the cgroup limits read through read, for the cgroup paths
// in selfCgroup (/proc/self/cgroup's content): v2's files under
// /sys/fs/cgroup and v1's under /sys/fs/cgroup/memory, up to the root's
// (where a container whose cgroup namespace hides its path has its own).
func memoryOf(machine int64, selfCgroup []byte, read func(string) []byte) Memory {
	m := Memory{Bytes: machine}
	v2, v1 := cgroupPaths(bytes.NewReader(selfCgroup))
	try := func(root, p, file string) {
		if n, ok := leastLimit(read, root, p, file); ok && (m.Bytes == 0 || n < m.Bytes) {
			m = Memory{Bytes: n, Cgroup: true}
		}
	}
	if v2 != "" {
		try("/sys/fs/cgroup", v2, "memory.max")
	}
	if v1 != "" {
		try("/sys/fs/cgroup/memory", v1, "memory.limit_in_bytes")
	}
	return m
}

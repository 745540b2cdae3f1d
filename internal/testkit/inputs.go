package testkit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Probe is one hostile input: a file of kind Kind at Path, Dir/Name.
type Probe struct {
	Kind string // "fifo", "socket", "directory", "/dev/zero link", "/dev/urandom link"
	Dir  string // the folder holding it, nothing else
	Path string
}

// HostileWait is how long Bounded lets a call run: far more than a refusal takes,
// far less than the test's own timeout.
const HostileWait = 20 * time.Second

// Hostile makes every probe kind this system allows, each named name in a
// folder of its own. A FIFO and a socket are only made where the system has
// them (see fifo, socket); the links only where /dev/zero and /dev/urandom
// exist.
func Hostile(t testing.TB, name string) []Probe {
	t.Helper()
	var ps []Probe
	add := func(kind string, make func(path string) error) {
		dir, err := os.MkdirTemp("", "hostile-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		p := filepath.Join(dir, name)
		if err := make(p); err != nil {
			t.Logf("testkit: no %s probe: %v", kind, err)
			return
		}
		ps = append(ps, Probe{Kind: kind, Dir: dir, Path: p})
	}
	add("fifo", fifo)
	add("socket", func(p string) error { return socket(t, p) })
	add("directory", func(p string) error { return os.Mkdir(p, 0o755) })
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err == nil {
			add(dev+" link", func(p string) error { return os.Symlink(dev, p) })
		}
	}
	return ps
}

// Bounded runs f in a goroutine and returns its error; when f has not
// returned within HostileWait it fails the test (the goroutine is left blocked:
// the test binary exits soon after).
func Bounded(t testing.TB, what string, f func() error) error {
	t.Helper()
	return Within(t, HostileWait, what+" (a FIFO or device opened or read before its type was checked?)", f)
}

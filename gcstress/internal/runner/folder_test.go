package runner

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/oskit"
	"github.com/writegc/writegc/internal/usage"
)

// holdEnv makes this test binary a process that holds a build folder
// (newFolder) until its stdin closes: TestSweepAfterKill kills it.
const holdEnv = "BUILDENVS_TEST_HOLD_FOLDER"

// holdFolderChild is TestMain's branch for a test child that holds a folder.
func holdFolderChild() {
	if os.Getenv(holdEnv) != "" {
		dir, _, err := newFolder()
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(dir + "\n")
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
}

func needSweep(t *testing.T) {
	t.Helper()
	if !sweepSupported || !oskit.AcrossProcesses {
		t.Skip("no sweep on this OS")
	}
}

// A build folder whose process was killed (SIGKILL: no cleanup ran) is
// removed by the next sweep; while its process lives, it is not.
func TestSweepAfterKill(t *testing.T) {
	needSweep(t)
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"=1", "TMPDIR="+tmp)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the holder wrote no folder: %v", err)
	}
	dir := strings.TrimSpace(line)
	if n := SweepStale(tmp); n != 0 || !exists(dir) {
		t.Errorf("a live run's folder was swept (%d removed)", n)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !exists(dir) {
		t.Fatal("the killed holder's folder vanished by itself: the test proves nothing")
	}
	if n := SweepStale(tmp); n != 1 || exists(dir) {
		t.Errorf("SweepStale after the kill removed %d; folder still there: %v", n, exists(dir))
	}
}

// Only a provably stale build folder is removed: one with an unlocked
// marker file that starts with the marker line. A folder without a marker,
// with another file under the marker's name, with a link for a marker, a
// link named as a build folder, another name, or a locked marker is kept,
// and nothing outside TMPDIR is touched.
func TestSweepOnlyProvablyStale(t *testing.T) {
	needSweep(t)
	tmp, outside := t.TempDir(), t.TempDir()
	mk := func(name, marker string) string {
		d := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "sub", "data"), []byte("keep"), 0o600); err != nil {
			t.Fatal(err)
		}
		if marker != "" {
			if err := os.WriteFile(filepath.Join(d, markerName), []byte(marker), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	good := markerMagic + "\npid 123\n"
	stale := mk(DirPrefix+"stale", good)
	kept := []string{
		mk(DirPrefix+"nomarker", ""),
		mk(DirPrefix+"wrongmarker", "hello\n"),
		mk(DirPrefix+"nopid", markerMagic+"\n"),
		mk("other-build-1", good),
		mk(DirPrefix+"locked", good),
	}
	lock, err := os.Open(filepath.Join(tmp, DirPrefix+"locked", markerName))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if ok, err := oskit.TryLock(lock); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	// A link for the marker, to a marker-looking file outside.
	if err := os.WriteFile(filepath.Join(outside, markerName), []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	linked := mk(DirPrefix+"linkedmarker", "")
	kept = append(kept, linked)
	if err := os.Symlink(filepath.Join(outside, markerName), filepath.Join(linked, markerName)); err != nil {
		t.Fatal(err)
	}
	// A link named as a build folder, to a stale-looking folder outside.
	if err := os.WriteFile(filepath.Join(outside, "data"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tmp, DirPrefix+"link")); err != nil {
		t.Fatal(err)
	}
	if n := SweepStale(tmp); n != 1 || exists(stale) {
		t.Errorf("SweepStale removed %d; the stale folder exists: %v", n, exists(stale))
	}
	for _, d := range kept {
		if !exists(filepath.Join(d, "sub", "data")) {
			t.Errorf("%s was removed", filepath.Base(d))
		}
	}
	if !exists(filepath.Join(outside, "data")) || !exists(filepath.Join(outside, markerName)) || !exists(filepath.Join(tmp, DirPrefix+"link")) {
		t.Error("a link or what it points to was removed")
	}
}

// A folder this process made is its own and never swept, and Remove
// deletes it; its marker is locked against other opens meanwhile.
func TestFolderLockedWhileHeld(t *testing.T) {
	needSweep(t)
	t.Setenv("TMPDIR", t.TempDir())
	dir, lock, err := newFolder()
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.Open(filepath.Join(dir, markerName))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if ok, err := oskit.TryLock(other); ok || err != nil {
		t.Errorf("a second open took the marker's lock: %v, %v", ok, err)
	}
	if n := SweepStale(os.TempDir()); n != 0 || !exists(dir) {
		t.Errorf("this process's folder was swept (%d)", n)
	}
	removeFolder(dir, lock)
	if exists(dir) {
		t.Error("removeFolder left the folder")
	}
}

// Build refuses what Check and CheckPkg refuse before any go command runs
// (a caller that skipped them), and names each environment's folder by
// its index: a name never becomes a path.
func TestBuildFoldersByIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	t.Setenv("TMPDIR", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	errInt := errors.New("interrupted")
	for _, c := range []struct {
		pkg  string
		envs []Env
	}{
		{"../../testdata/brokenmain", []Env{{Name: ".."}}},
		{"-toolexec=/bin/false", []Env{{Name: "a"}}},
		{"std", []Env{{Name: "a"}}},
	} {
		if b, err := Build(ctx, c.pkg, c.envs, io.Discard, errInt); !errors.Is(err, usage.ErrUsage) || b != nil {
			t.Errorf("Build(%q, %q) = %v, %v; want usage", c.pkg, c.envs[0].Name, b, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "*")); len(left) != 0 {
		t.Errorf("refused builds left %q", left)
	}
	b, err := Build(ctx, "../../testdata/brokenmain", []Env{{Name: "x.y"}, {Name: "z"}}, io.Discard, errInt)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Remove()
	for i, name := range []string{"x.y", "z"} {
		exe, _, ok := b.ExeFor(name)
		if want := filepath.Join(b.dir, []string{"env0", "env1"}[i], "gcstress-child"); !ok || exe != want || !exists(exe) {
			t.Errorf("ExeFor(%s) = %s, %v; want %s, built", name, exe, ok, want)
		}
	}
	ents, _ := os.ReadDir(b.dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"env0", "env1", markerName}; !slices.Equal(names, want) {
		t.Errorf("build folder holds %q, want %q", names, want)
	}
	b.Remove()
	if exists(b.dir) {
		t.Error("Remove left the folder")
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

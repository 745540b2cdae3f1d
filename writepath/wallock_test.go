package writepath

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/oskit"
)

func lockKey(i int) []byte { return fmt.Appendf(nil, "lock-key-%06d", i) }

func putLockKeys(t *testing.T, s *Server, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := s.Put(lockKey(i), valueFor(i, 40)); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
}

func checkLockKeys(t *testing.T, s *Server, n int) {
	t.Helper()
	for i := range n {
		if v, ok, _ := s.Get(lockKey(i)); !ok || !bytes.Equal(v, valueFor(i, 40)) {
			t.Fatalf("acknowledged key %d lost (%d keys written)", i, n)
		}
	}
}

// TestWALLockSecondServer: while a server holds a WAL directory, a second
// NewServer on it fails with ErrWALLocked naming this process, in every
// recovery mode and by any path to the directory; the first server's
// acknowledged keys all survive its Close, and the directory opens again
// once it is closed.
func TestWALLockSecondServer(t *testing.T) {
	for _, first := range WALRecoveryModes() {
		t.Run("first="+first.String(), func(t *testing.T) {
			dir := t.TempDir()
			opts := ServerOptions{Kind: "btree",
				WAL: WALOptions{Dir: filepath.Join(dir, "wal"), Sync: SyncBatch, Recovery: first}}
			s1, err := NewServer(opts)
			if err != nil {
				t.Fatal(err)
			}
			putLockKeys(t, s1, 0, 500)
			os.Symlink(opts.WAL.Dir, filepath.Join(dir, "link")) // where symlinks exist
			for _, m := range WALRecoveryModes() {
				for _, d := range []string{opts.WAL.Dir, opts.WAL.Dir + "/.", filepath.Join(dir, "link")} {
					o := opts
					o.WAL.Dir, o.WAL.Recovery = d, m
					if _, err := os.Stat(d); err != nil {
						continue
					}
					s2, err := NewServer(o)
					var le *WALLockedError
					if !errors.Is(err, ErrWALLocked) || !errors.As(err, &le) || le.PID != os.Getpid() {
						if s2 != nil {
							s2.Close()
						}
						t.Fatalf("second open of %s in mode %v: %v, want ErrWALLocked naming pid %d", d, m, err, os.Getpid())
					}
				}
			}
			putLockKeys(t, s1, 500, 1000) // the refused opens disturbed nothing
			if err := s1.Close(); err != nil {
				t.Fatal(err)
			}
			opts.WAL.Recovery = WALAbsoluteConsistency
			s3 := newTestServer(t, opts)
			checkLockKeys(t, s3, 1000)
		})
	}
}

// TestWALLockReleasedOnFailedOpen: an open that fails (here on a torn tail
// in WALAbsoluteConsistency) releases the lock, so the next open succeeds;
// the lock file holds the holder's pid while it is held.
func TestWALLockReleasedOnFailedOpen(t *testing.T) {
	dir := t.TempDir()
	opts := ServerOptions{Kind: "btree", WAL: WALOptions{Dir: dir, Sync: SyncBatch}}
	s := newTestServer(t, opts)
	putLockKeys(t, s, 0, 100)
	if data, err := os.ReadFile(filepath.Join(dir, WALLockName)); err != nil || strings.TrimSpace(string(data)) != fmt.Sprint(os.Getpid()) {
		t.Fatalf("lock file holds %q (%v), want pid %d", data, err, os.Getpid())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "wal-*.log"))
	f, err := os.OpenFile(logs[len(logs)-1], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 64))
	f.Close()
	opts.WAL.Recovery = WALAbsoluteConsistency
	if _, err := NewServer(opts); !errors.Is(err, ErrWALCorrupt) {
		t.Fatalf("open of a torn log in mode %v: %v, want ErrWALCorrupt", opts.WAL.Recovery, err)
	}
	for _, m := range []WALRecoveryMode{WALTolerateTornTail, WALSkipCorrupted} {
		opts.WAL.Recovery = m
		s2, err := NewServer(opts)
		if err != nil {
			t.Fatalf("open in mode %v after a failed open: %v", m, err)
		}
		checkLockKeys(t, s2, 100)
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

const lockHelperEnv = "WRITEGC_WAL_LOCK_HELPER"

// TestHelperWALLockHolder is the child of TestWALLockAcrossProcesses: it
// opens a server on the directory in lockHelperEnv, acknowledges 300 keys,
// prints "ready" and holds the directory until killed or its stdin ends.
func TestHelperWALLockHolder(t *testing.T) {
	dir := os.Getenv(lockHelperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	s, err := NewServer(ServerOptions{Kind: "btree", WAL: WALOptions{Dir: dir, Sync: SyncBatch}})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	putLockKeys(t, s, 0, 300)
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	s.Close()
}

// TestWALLockAcrossProcesses: a WAL directory held by another process is
// refused with ErrWALLocked naming that process; once the holder is
// killed (SIGKILL: no Close), the kernel has dropped its lock, the
// directory opens and every key the holder acknowledged is there.
func TestWALLockAcrossProcesses(t *testing.T) {
	if os.Getenv(lockHelperEnv) != "" {
		t.Skip()
	}
	if !oskit.AcrossProcesses {
		t.Skip("no flock(2) on this OS: the WAL lock holds within a process only")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWALLockHolder$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if l := sc.Text(); l == "ready" || strings.HasPrefix(l, "open:") {
				ready <- l
				break
			}
		}
		close(ready)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case l := <-ready:
		if l != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("holder: %q; stderr: %s", l, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("holder not ready; stderr: %s", stderr.String())
	}
	opts := ServerOptions{Kind: "btree", WAL: WALOptions{Dir: dir, Sync: SyncBatch}}
	for _, m := range WALRecoveryModes() {
		opts.WAL.Recovery = m
		s, err := NewServer(opts)
		var le *WALLockedError
		if !errors.As(err, &le) || !errors.Is(err, ErrWALLocked) || le.PID != cmd.Process.Pid || le.InProcess {
			if s != nil {
				s.Close()
			}
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("open in mode %v while process %d holds it: %v", m, cmd.Process.Pid, err)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	opts.WAL.Recovery = WALTolerateTornTail
	s := newTestServer(t, opts)
	checkLockKeys(t, s, 300)
}

// TestWALReplayFlushes: a replay that fills memtables past FlushThreshold
// flushes them while the WAL is still being opened; the flushers must not
// trim logs before the open ends (a data race under -race before), and the
// segments they write are fsynced. Every acknowledged key is then in a
// memtable or a segment.
func TestWALReplayFlushes(t *testing.T) {
	dir := t.TempDir()
	opts := ServerOptions{Kind: "btree", WAL: WALOptions{Dir: filepath.Join(dir, "wal"), Sync: SyncBatch}}
	s := newTestServer(t, opts)
	putLockKeys(t, s, 0, 3000)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	opts.FlushThreshold, opts.FlushDir = 16<<10, filepath.Join(dir, "seg")
	s2 := newTestServer(t, opts)
	found := map[string]bool{}
	for i := range 3000 {
		if v, ok, _ := s2.Get(lockKey(i)); ok && bytes.Equal(v, valueFor(i, 40)) {
			found[string(lockKey(i))] = true
		}
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(opts.FlushDir, "*.seg"))
	for _, p := range segs {
		if _, err := ScanSegment(p, func(k, v []byte) error {
			found[string(k)] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if len(segs) == 0 || len(found) != 3000 {
		t.Fatalf("%d segments, %d of 3000 keys found", len(segs), len(found))
	}
}

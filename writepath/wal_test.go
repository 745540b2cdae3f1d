package writepath

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/workload"
)

func TestWALReplayAfterClose(t *testing.T) {
	for _, mode := range []SyncMode{SyncNone, SyncBatch, SyncAlways} {
		t.Run("sync="+mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			opts := ServerOptions{Kind: "btree", Regions: 2, WAL: WALOptions{Dir: dir, Sync: mode}}
			s, err := NewServer(opts)
			if err != nil {
				t.Fatal(err)
			}
			keys := workload.NewKeys(500, 16, 4)
			c := NewDirect(NewInProc(s))
			for i := range keys.Len() {
				if err := c.Put(keys.Key(i), valueFor(i, 30)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s2 := newTestServer(t, opts)
			if st := s2.Stats(); st.Replayed != int64(keys.Len()) {
				t.Fatalf("replayed %d, want %d", st.Replayed, keys.Len())
			}
			for i := range keys.Len() {
				v, ok, _ := s2.Get(keys.Key(i))
				if !ok || !bytes.Equal(v, valueFor(i, 30)) {
					t.Fatalf("key %d lost", i)
				}
			}
		})
	}
}

// TestWALTornTail: a torn last record ends the log; earlier records survive.
func TestWALTornTail(t *testing.T) {
	dir := t.TempDir()
	opts := ServerOptions{Kind: "btree", WAL: WALOptions{Dir: dir, Sync: SyncBatch}}
	s, _ := NewServer(opts)
	for i := range 10 {
		s.Put([]byte{byte(i + 1)}, []byte("value"))
	}
	s.Close()
	logs, _ := listLogs(dir)
	p := filepath.Join(dir, walName(logs[len(logs)-1]))
	data, _ := os.ReadFile(p)
	os.WriteFile(p, data[:len(data)-3], 0o644)
	s2 := newTestServer(t, opts)
	if st := s2.Stats(); st.Replayed != 9 || st.ReplayTorn != 1 {
		t.Fatalf("replayed %d torn %d, want 9 and 1", st.Replayed, st.ReplayTorn)
	}
}

// TestWALTrimmedAfterFlush: logs whose entries are all flushed go away.
func TestWALTrimmedAfterFlush(t *testing.T) {
	dir := t.TempDir()
	s := newTestServer(t, ServerOptions{Kind: "btree", FlushThreshold: 64 << 10,
		WAL: WALOptions{Dir: dir, Sync: SyncNone, RollSize: 32 << 10}})
	keys := workload.NewKeys(20000, 16, 4)
	for i := range keys.Len() {
		s.Put(keys.Key(i), valueFor(i, 40))
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.Stats().PendingFlushes > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	s.trimWAL()
	st := s.Stats()
	if st.Flushes == 0 || st.WALFiles > 6 {
		t.Fatalf("flushes %d, WAL files %d (written %d B)", st.Flushes, st.WALFiles, st.WALBytes)
	}
}

const helperEnv = "WRITEGC_WAL_HELPER"

// TestHelperWriter is the child process of TestWALSurvivesSIGKILL: it writes
// forever and appends the index of every acknowledged Put to acks.txt.
func TestHelperWriter(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("helper process only")
	}
	var dir, modeS string
	fmt.Sscanf(spec, "%s %s", &dir, &modeS)
	mode, _ := ParseSyncMode(modeS)
	s, err := NewServer(serverForCrash(dir, mode))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	acks, err := os.OpenFile(filepath.Join(dir, "acks.txt"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		os.Exit(3)
	}
	c := NewDirect(NewInProc(s))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := make([]byte, 16)
			for i := w; ; i += 4 {
				workload.KeyAt(key, 42, uint64(i))
				if err := c.Put(key, valueFor(i, 100)); err != nil {
					os.Exit(4)
				}
				mu.Lock()
				fmt.Fprintln(acks, i) // page cache: survives SIGKILL of this process
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func serverForCrash(dir string, mode SyncMode) ServerOptions {
	return ServerOptions{Kind: "btree", Regions: 2, FlushThreshold: 256 << 10,
		FlushDir: filepath.Join(dir, "seg"), WAL: WALOptions{Dir: filepath.Join(dir, "wal"), Sync: mode, RollSize: 128 << 10}}
}

// TestWALSurvivesSIGKILL kills a writer process with SIGKILL and checks that
// every write it acknowledged is in the replayed memtables or in a flushed
// segment. Mode always: each ack follows its own fsync; mode batch: each ack
// follows its group's fsync, so no write acknowledged before the last
// completed group can be lost.
func TestWALSurvivesSIGKILL(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip()
	}
	for _, mode := range []SyncMode{SyncAlways, SyncBatch} {
		t.Run("sync="+mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperEnv+"="+dir+" "+mode.String())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Let it write (and flush, and trim the WAL) for a while.
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				if countLines(filepath.Join(dir, "acks.txt")) >= 4000 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			err := cmd.Wait()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
				t.Fatalf("child did not die of SIGKILL: %v; stderr: %s", err, stderr.String())
			}
			acked := readAcks(t, filepath.Join(dir, "acks.txt"))
			if len(acked) < 100 {
				t.Fatalf("child acknowledged only %d writes; stderr: %s", len(acked), stderr.String())
			}
			s := newTestServer(t, serverForCrash(dir, mode))
			flushed := map[string][]byte{}
			segs, _ := filepath.Glob(filepath.Join(dir, "seg", "*.seg"))
			for _, p := range segs {
				if _, err := ScanSegment(p, func(k, v []byte) error {
					flushed[string(k)] = append([]byte(nil), v...)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			key := make([]byte, 16)
			lost := 0
			for _, i := range acked {
				workload.KeyAt(key, 42, uint64(i))
				v, ok, _ := s.Get(key)
				if !ok {
					v, ok = flushed[string(key)]
				}
				if !ok || !bytes.Equal(v, valueFor(i, 100)) {
					lost++
				}
			}
			st := s.Stats()
			t.Logf("acked %d, replayed %d, segments %d, torn logs %d", len(acked), st.Replayed, len(segs), st.ReplayTorn)
			if lost > 0 {
				t.Fatalf("%d of %d acknowledged writes lost", lost, len(acked))
			}
		})
	}
}

func countLines(p string) int {
	data, _ := os.ReadFile(p)
	return bytes.Count(data, []byte{'\n'})
}

func readAcks(t *testing.T, p string) []int {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		i, err := strconv.Atoi(sc.Text())
		if err != nil {
			break // a torn last line
		}
		out = append(out, i)
	}
	return out
}

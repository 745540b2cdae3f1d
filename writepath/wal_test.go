package writepath

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
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

// TestWALTornTail: a torn last record ends the log; earlier records survive
// and the loss is reported.
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
	rep := s2.WALReplay()
	if rep.TornTailBytes != int64(walHeader+len(encodeOne([]byte{10}, []byte("value"))))-3 || rep.RecordsSkipped != 1 {
		t.Fatalf("report %+v", rep)
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

// encodeOne is the batch payload of one Put.
func encodeOne(k, v []byte) []byte {
	b := NewBatch(0)
	b.Add(k, v)
	return b.Bytes()
}

func walKey(i int) []byte { return fmt.Appendf(nil, "key-%08d", i) }

// writeWAL writes n keys, one record each, through a server on dir's WAL
// and closes it cleanly. With roll > 0 (the RollSize) every record is its
// own write, so that the logs roll at that size.
func writeWAL(t *testing.T, dir string, n int, roll int64) {
	t.Helper()
	mode := SyncNone
	if roll > 0 {
		mode = SyncAlways
	}
	s, err := NewServer(ServerOptions{Kind: "btree", WAL: WALOptions{Dir: dir, Sync: mode, RollSize: roll}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := s.Put(walKey(i), valueFor(i, 20)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// walPaths returns dir's log files, oldest first.
func walPaths(t *testing.T, dir string) []string {
	t.Helper()
	nums, err := listLogs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, n := range nums {
		ps = append(ps, filepath.Join(dir, walName(n)))
	}
	return ps
}

// recordStarts returns the offsets of the valid records of a clean log.
func recordStarts(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	r := &logReader{f: f, size: fi.Size()}
	var offs []int64
	for off := walFileHeader; off < r.size; {
		c, err := r.check(off)
		if err != nil || c.reason != "" {
			t.Fatalf("%s at %d: %v %s", path, off, err, c.reason)
		}
		offs = append(offs, off)
		off += c.n
	}
	return offs
}

func appendTo(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func flipBit(t *testing.T, path string, off int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[off] ^= 0x10
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func openWALServer(dir string, mode WALRecoveryMode) (*Server, error) {
	return NewServer(ServerOptions{Kind: "btree", WAL: WALOptions{Dir: dir, Sync: SyncNone, Recovery: mode}})
}

// missingKeys returns the indexes of keys 0..n-1 that s lacks.
func missingKeys(t *testing.T, s *Server, n int) []int {
	t.Helper()
	var miss []int
	for i := range n {
		v, ok, _ := s.Get(walKey(i))
		if !ok {
			miss = append(miss, i)
		} else if !bytes.Equal(v, valueFor(i, 20)) {
			t.Fatalf("key %d has a wrong value", i)
		}
	}
	return miss
}

// TestWALZeroTail: zeros after the last record (a preallocated or half
// written page) are a torn tail: the open succeeds, every record is
// replayed, the zeros are reported and cut off. Before the record checksum
// covered the length, 8 zero bytes read as an empty record and failed the
// open.
func TestWALZeroTail(t *testing.T) {
	for _, n := range []int{8, 4096} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			writeWAL(t, dir, 50, 0)
			ps := walPaths(t, dir)
			last := ps[len(ps)-1]
			fi, _ := os.Stat(last)
			appendTo(t, last, make([]byte, n))
			s := openTolerant(t, dir)
			defer s.Close()
			if miss := missingKeys(t, s, 50); len(miss) > 0 {
				t.Fatalf("lost keys %v", miss)
			}
			rep := s.WALReplay()
			if rep.TornTailBytes != int64(n) || rep.BytesIgnored != int64(n) || rep.RecordsSkipped != 0 || rep.Damaged != 1 {
				t.Fatalf("report %+v", rep)
			}
			if d := rep.Logs[len(rep.Logs)-1].Damage; len(d) != 1 || !d[0].TornTail || d[0].Offset != fi.Size() {
				t.Fatalf("damage %+v, want a torn tail at %d", d, fi.Size())
			}
			if fi2, _ := os.Stat(last); fi2.Size() != fi.Size() {
				t.Fatalf("torn tail not cut: %d B, want %d", fi2.Size(), fi.Size())
			}
		})
	}
}

// TestWALZeroedNewestLog: the log a server creates at open, zero-filled by
// a crash before any of it reached the disk, is a torn tail too.
func TestWALZeroedNewestLog(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 20, 0)
	s := openTolerant(t, dir)
	s.Close()
	ps := walPaths(t, dir)
	if err := os.WriteFile(ps[len(ps)-1], make([]byte, 512), 0o644); err != nil {
		t.Fatal(err)
	}
	wantTornTail(t, dir, 20, 512)
}

// TestWALGarbageTail: bytes that are no record after the last one are a
// torn tail.
func TestWALGarbageTail(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 50, 0)
	ps := walPaths(t, dir)
	appendTo(t, ps[len(ps)-1], []byte("this is not a WAL record, nor is this"))
	wantTornTail(t, dir, 50, 37)
}

// TestWALTornTailCutOnce: the torn tail is cut at the first open, so that
// the next open, which finds the damaged log no longer the last, does not
// take it for corruption.
func TestWALTornTailCutOnce(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 50, 0)
	ps := walPaths(t, dir)
	appendTo(t, ps[len(ps)-1], []byte{1, 2, 3})
	s := openTolerant(t, dir)
	s.Put(walKey(50), valueFor(50, 20))
	s.Close()
	s = openTolerant(t, dir)
	defer s.Close()
	if miss := missingKeys(t, s, 51); len(miss) > 0 || !s.WALReplay().Lossless() {
		t.Fatalf("lost %v, report %+v", miss, s.WALReplay())
	}
}

// openTolerant opens the WAL server of dir with WALTolerateTornTail.
func openTolerant(t *testing.T, dir string) *Server {
	t.Helper()
	s, err := openWALServer(dir, WALTolerateTornTail)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wantTornTail opens dir's WAL server with WALTolerateTornTail and checks
// that missingKeys finds none of keys missing and a torn tail of torn
// bytes was cut.
func wantTornTail(t *testing.T, dir string, keys int, torn int64) {
	t.Helper()
	s := openTolerant(t, dir)
	defer s.Close()
	if miss := missingKeys(t, s, keys); len(miss) > 0 || s.WALReplay().TornTailBytes != torn {
		t.Fatalf("lost %v, report %+v", miss, s.WALReplay())
	}
}

// corruptError checks that err is a *WALCorruptError for path at off.
func corruptError(t *testing.T, err error, path string, off int64) *WALCorruptError {
	t.Helper()
	var ce *WALCorruptError
	if !errors.Is(err, ErrWALCorrupt) || !errors.As(err, &ce) {
		t.Fatalf("err %v, want a *WALCorruptError", err)
	}
	if ce.Path != path || ce.Damage.Offset != off {
		t.Fatalf("damage in %s at %d, want %s at %d", ce.Path, ce.Damage.Offset, path, off)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, fmt.Sprintf("byte offset %d", off)) {
		t.Fatalf("message %q names no file and offset", msg)
	}
	return ce
}

// TestWALBitFlipFailsOpen: one flipped bit in the middle of the only log
// used to end its replay there, silently dropping every later record; now
// the open fails naming the file and the record's offset.
func TestWALBitFlipFailsOpen(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 200, 0)
	p := walPaths(t, dir)[0]
	offs := recordStarts(t, p)
	flipBit(t, p, offs[100]+walHeader+3)
	_, err := openWALServer(dir, WALTolerateTornTail)
	ce := corruptError(t, err, p, offs[100])
	if ce.Damage.TornTail || ce.Damage.Length != offs[101]-offs[100] || ce.Replay.Records != 100 {
		t.Fatalf("error %+v", ce)
	}
}

// TestWALBitFlipMiddleFile: damage in a log that is not the last fails the
// open, and names that log.
func TestWALBitFlipMiddleFile(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 150, 2<<10)
	ps := walPaths(t, dir)
	if len(ps) < 3 {
		t.Fatalf("%d logs, want 3 or more", len(ps))
	}
	mid := ps[len(ps)/2]
	offs := recordStarts(t, mid)
	flipBit(t, mid, offs[len(offs)/2]+1)
	_, err := openWALServer(dir, WALTolerateTornTail)
	corruptError(t, err, mid, offs[len(offs)/2])
}

// TestWALCutNonLastLog: a log that is not the last and ends in a partial
// record was damaged after it was complete (each log is fsynced before the
// next one exists): corruption, not a torn tail.
func TestWALCutNonLastLog(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 150, 2<<10)
	ps := walPaths(t, dir)
	fi, _ := os.Stat(ps[0])
	if err := os.Truncate(ps[0], fi.Size()-5); err != nil {
		t.Fatal(err)
	}
	_, err := openWALServer(dir, WALTolerateTornTail)
	var ce *WALCorruptError
	if !errors.As(err, &ce) || ce.Path != ps[0] || !strings.Contains(ce.Why, "not the last") {
		t.Fatalf("err %v", err)
	}
}

// TestWALSkipCorrupted: mode skip-corrupted replays around a damaged record
// and reports exactly what it lost.
func TestWALSkipCorrupted(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 150, 2<<10)
	ps := walPaths(t, dir)
	mid := ps[len(ps)/2]
	offs := recordStarts(t, mid)
	victim := offs[len(offs)/2]
	flipBit(t, mid, victim+walHeader+2)
	s, err := openWALServer(dir, WALSkipCorrupted)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	miss := missingKeys(t, s, 150)
	rep := s.WALReplay()
	if len(miss) != 1 || rep.RecordsSkipped != 1 || rep.BytesIgnored != offs[len(offs)/2+1]-victim || rep.Records != 149 {
		t.Fatalf("missing %v, report %+v", miss, rep)
	}
	if st := s.Stats(); st.ReplaySkipped != 1 || st.ReplayIgnored != rep.BytesIgnored {
		t.Fatalf("stats %+v", st)
	}
}

// TestWALAbsoluteConsistency: any damage fails the open, a torn tail too;
// a clean log opens.
func TestWALAbsoluteConsistency(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 50, 0)
	s, err := openWALServer(dir, WALAbsoluteConsistency)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	ps := walPaths(t, dir)
	last := ps[len(ps)-1]
	fi, _ := os.Stat(last)
	appendTo(t, last, make([]byte, 8))
	_, err = openWALServer(dir, WALAbsoluteConsistency)
	if ce := corruptError(t, err, last, fi.Size()); !ce.Damage.TornTail || ce.Replay.TornTailBytes != 8 {
		t.Fatalf("error %+v", ce)
	}
}

// TestWALForeignFileHeader: a file that is not a log of this format (a
// version 1 log: no file header) fails the open in every mode rather than
// being taken for a torn tail and dropped.
func TestWALForeignFileHeader(t *testing.T) {
	payload := encodeOne([]byte("key"), []byte("value"))
	var v1 []byte
	v1 = binary.LittleEndian.AppendUint32(v1, uint32(len(payload)))
	v1 = binary.LittleEndian.AppendUint32(v1, crc32.Checksum(payload, crcTable))
	v1 = append(v1, payload...)
	for _, mode := range WALRecoveryModes() {
		dir := t.TempDir()
		p := filepath.Join(dir, walName(1))
		os.WriteFile(p, v1, 0o644)
		_, err := openWALServer(dir, mode)
		corruptError(t, err, p, 0)
	}
}

// TestWALRecordLengthBounded: a forged length is checked against the file
// before any buffer is allocated for the payload.
func TestWALRecordLengthBounded(t *testing.T) {
	dir := t.TempDir()
	var hdr [walHeader]byte
	binary.LittleEndian.PutUint32(hdr[4:], 60<<20)
	binary.LittleEndian.PutUint32(hdr[:4], crc32.Checksum(hdr[4:], crcTable))
	os.WriteFile(filepath.Join(dir, walName(1)), append(appendFileHeader(nil, 1), hdr[:]...), 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	st, _, _, err := replayWAL(dir, []uint64{1}, WALTolerateTornTail, func(uint64, []byte) (int, error) { return 0, nil })
	runtime.ReadMemStats(&after)
	if err != nil || st.TornTailBytes != walHeader || st.RecordsSkipped != 1 {
		t.Fatalf("err %v, report %+v", err, st)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("replay allocated %d B for a 20-byte log", d)
	}
}

// TestWALForgedHeadersBounded: a log whose every few bytes hold a record
// header with a valid checksum, each claiming the rest of the file, fails
// the open quickly instead of checksumming the file once per header.
func TestWALForgedHeadersBounded(t *testing.T) {
	dir := t.TempDir()
	const size = int(walFileHeader) + 250000*walHeader
	data := appendFileHeader(make([]byte, 0, size), 1)
	for len(data) < size {
		var hdr [walHeader]byte
		binary.LittleEndian.PutUint32(hdr[4:], uint32(size-len(data)-walHeader))
		binary.LittleEndian.PutUint32(hdr[8:], 1) // no payload checks
		binary.LittleEndian.PutUint32(hdr[:4], crc32.Checksum(hdr[4:], crcTable))
		data = append(data, hdr[:]...)
	}
	os.WriteFile(filepath.Join(dir, walName(1)), data, 0o644)
	t0 := time.Now()
	_, err := openWALServer(dir, WALSkipCorrupted)
	if !errors.Is(err, ErrWALCorrupt) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("open took %v", d)
	}
}

// TestWALRecoveryModeOption: the mode parses and round-trips; an unknown
// value is an invalid option.
func TestWALRecoveryModeOption(t *testing.T) {
	for _, m := range WALRecoveryModes() {
		if got, err := ParseWALRecoveryMode(m.String()); err != nil || got != m {
			t.Fatalf("%v: %v %v", m, got, err)
		}
	}
	if _, err := ParseWALRecoveryMode("lenient"); !errors.Is(err, ErrInvalidOption) {
		t.Fatal(err)
	}
	_, err := NewServer(ServerOptions{WAL: WALOptions{Dir: t.TempDir(), Recovery: 7}})
	if !errors.Is(err, ErrInvalidOption) {
		t.Fatal(err)
	}
}

// TestWALNonLastLogCutAtRecord: a log that is not the last, cut exactly at
// a record boundary, has no damaged bytes; the next log's first record
// number shows the missing records. Mode skip-corrupted reports them.
func TestWALNonLastLogCutAtRecord(t *testing.T) {
	dir := t.TempDir()
	writeWAL(t, dir, 150, 2<<10)
	ps := walPaths(t, dir)
	offs := recordStarts(t, ps[0])
	if err := os.Truncate(ps[0], offs[len(offs)-2]); err != nil {
		t.Fatal(err)
	}
	_, err := openWALServer(dir, WALTolerateTornTail)
	corruptError(t, err, ps[0], offs[len(offs)-2])
	s, err := openWALServer(dir, WALSkipCorrupted)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if miss, rep := missingKeys(t, s, 150), s.WALReplay(); len(miss) != 2 || rep.RecordsSkipped != 2 {
		t.Fatalf("missing %v, report %+v", miss, rep)
	}
}

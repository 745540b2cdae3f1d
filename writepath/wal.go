package writepath

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// SyncMode says when the WAL makes an append durable, and so when a Put is
// acknowledged.
type SyncMode int

const (
	// SyncNone: the append is queued for the WAL writer and acknowledged at
	// once; a crash (even SIGKILL) may lose the last group.
	SyncNone SyncMode = iota
	// SyncBatch: group commit. Appends that arrive while the writer is busy
	// form one group, written with one write(2) and one fsync; every append
	// is acknowledged after its group's fsync.
	SyncBatch
	// SyncAlways: every append is written and fsynced on its own before it
	// is acknowledged (no grouping).
	SyncAlways
)

var syncModeNames = [...]string{"none", "batch", "always"}

func (m SyncMode) String() string {
	if m >= 0 && int(m) < len(syncModeNames) {
		return syncModeNames[m]
	}
	return fmt.Sprintf("SyncMode(%d)", int(m))
}

// ParseSyncMode parses "none", "batch" or "always".
func ParseSyncMode(s string) (SyncMode, error) {
	for i, n := range syncModeNames {
		if strings.EqualFold(s, n) {
			return SyncMode(i), nil
		}
	}
	return 0, fmt.Errorf("%w: sync mode %q (known: none, batch, always)", ErrInvalidOption, s)
}

// WALOptions configure the server's write-ahead log.
type WALOptions struct {
	// Dir holds the log files wal-NNNNNNNNNNNNNNNN.log; "" = no WAL.
	Dir  string
	Sync SyncMode
	// RollSize starts a new log file once the current one reaches it
	// (default 64 MiB). Whole files are deleted once everything they hold
	// has been flushed.
	RollSize int64
}

// DefaultWALRollSize is WALOptions.RollSize's default.
const DefaultWALRollSize = 64 << 20

// WAL record format, in every log file, appended back to back:
//
//	length uint32 LE   (of payload)
//	crc    uint32 LE   (CRC-32C of payload)
//	payload            (an encoded Batch)
//
// Replay reads records until end of file or the first short or corrupt
// record: a torn tail left by a crash ends the file, and the next log starts
// fresh.
const walHeader = 8

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type walGroup struct {
	done chan struct{}
	err  error
}

// wal is the server's log. Concurrency: append is safe for concurrent use;
// one writer goroutine performs the grouped writes (modes none and batch).
// A failed background write is sticky: every later append returns it.
type wal struct {
	dir      string
	mode     SyncMode
	rollSize int64

	mu       sync.Mutex // guards buf, cur, inflight, bgErr, closed
	buf      []byte
	cur      *walGroup
	inflight map[uint64]int // log number -> appends not yet in a memtable
	bgErr    error
	closed   bool
	kick     chan struct{}
	quit     chan struct{}
	stopped  chan struct{}
	spare    []byte

	fileMu  sync.Mutex // guards f, written, logs
	f       *os.File
	num     atomic.Uint64 // current log number
	written int64
	logs    []uint64 // live log files, ascending

	groups, syncs, bytes atomic.Int64
}

func walName(n uint64) string { return fmt.Sprintf("wal-%016d.log", n) }

// listLogs returns the log numbers in dir, ascending.
func listLogs(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var nums []uint64
	for _, e := range ents {
		var n uint64
		if _, err := fmt.Sscanf(e.Name(), "wal-%016d.log", &n); err == nil && e.Name() == walName(n) {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums, nil
}

// replayLog calls fn with each intact record's payload in log n. It stops at
// the first torn or corrupt record and reports how many records it read.
func replayLog(dir string, n uint64, fn func(payload []byte) error) (records int, torn bool, err error) {
	f, err := os.Open(filepath.Join(dir, walName(n)))
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var hdr [walHeader]byte
	var payload []byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if err == io.EOF {
				return records, false, nil
			}
			return records, true, nil
		}
		l := binary.LittleEndian.Uint32(hdr[:])
		if l > maxFrame {
			return records, true, nil
		}
		if cap(payload) < int(l) {
			payload = make([]byte, l)
		}
		payload = payload[:l]
		if _, err := io.ReadFull(r, payload); err != nil {
			return records, true, nil
		}
		if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(hdr[4:]) {
			return records, true, nil
		}
		if err := fn(payload); err != nil {
			return records, false, err
		}
		records++
	}
}

// openWAL starts a new log after the existing ones (which the caller replays
// first and which stay live until flushed).
func openWAL(opts WALOptions, existing []uint64) (*wal, error) {
	w := &wal{
		dir:      opts.Dir,
		mode:     opts.Sync,
		rollSize: opts.RollSize,
		inflight: map[uint64]int{},
		kick:     make(chan struct{}, 1),
		quit:     make(chan struct{}),
		stopped:  make(chan struct{}),
		cur:      &walGroup{done: make(chan struct{})},
		logs:     slices.Clone(existing),
	}
	if w.rollSize <= 0 {
		w.rollSize = DefaultWALRollSize
	}
	next := uint64(1)
	if len(existing) > 0 {
		next = existing[len(existing)-1] + 1
	}
	if err := w.startLog(next); err != nil {
		return nil, err
	}
	if w.mode != SyncAlways {
		go w.writer()
	} else {
		close(w.stopped)
	}
	return w, nil
}

// startLog creates log n and makes it current. Caller holds fileMu (or is opening).
func (w *wal) startLog(n uint64) error {
	f, err := os.OpenFile(filepath.Join(w.dir, walName(n)), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if w.f != nil {
		if w.mode != SyncNone {
			w.f.Sync()
		}
		w.f.Close()
	}
	// Make the new file's directory entry durable.
	if d, err := os.Open(w.dir); err == nil {
		d.Sync()
		d.Close()
	}
	w.f, w.written = f, 0
	w.logs = append(w.logs, n)
	w.num.Store(n)
	return nil
}

// writeLocked writes p to the current log, rolling first if it is full, and
// syncs when sync is true. Caller holds fileMu.
func (w *wal) writeLocked(p []byte, sync bool) error {
	if w.written >= w.rollSize {
		if err := w.startLog(w.num.Load() + 1); err != nil {
			return err
		}
	}
	if _, err := w.f.Write(p); err != nil {
		return err
	}
	w.written += int64(len(p))
	w.bytes.Add(int64(len(p)))
	w.groups.Add(1)
	if sync {
		w.syncs.Add(1)
		return w.f.Sync()
	}
	return nil
}

func appendRecord(dst, payload []byte) []byte {
	var hdr [walHeader]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(hdr[4:], crc32.Checksum(payload, crcTable))
	dst = append(dst, hdr[:]...)
	return append(dst, payload...)
}

// append logs one encoded batch and returns once it is durable per the sync
// mode. It returns the log number to charge the batch to; the caller must
// call release(num) once the batch is in the memtables (even on error).
func (w *wal) append(payload []byte) (uint64, error) {
	switch w.mode {
	case SyncAlways:
		rec := appendRecord(make([]byte, 0, walHeader+len(payload)), payload)
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return 0, ErrClosed
		}
		n := w.num.Load()
		w.inflight[n]++
		w.mu.Unlock()
		w.fileMu.Lock()
		err := w.writeLocked(rec, true)
		w.fileMu.Unlock()
		return n, err
	default:
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return 0, ErrClosed
		}
		if err := w.bgErr; err != nil {
			w.mu.Unlock()
			return 0, err
		}
		n := w.num.Load()
		w.inflight[n]++
		w.buf = appendRecord(w.buf, payload)
		g := w.cur
		w.mu.Unlock()
		select {
		case w.kick <- struct{}{}:
		default:
		}
		if w.mode == SyncNone {
			return n, nil
		}
		<-g.done
		return n, g.err
	}
}

// release marks one append charged to log n as applied to a memtable.
func (w *wal) release(n uint64) {
	w.mu.Lock()
	if c := w.inflight[n] - 1; c > 0 {
		w.inflight[n] = c
	} else {
		delete(w.inflight, n)
	}
	w.mu.Unlock()
}

// minInflight returns the smallest log number with appends not yet applied
// (MaxUint64 if none).
func (w *wal) minInflight() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := uint64(math.MaxUint64)
	for n := range w.inflight {
		m = min(m, n)
	}
	return m
}

// writer is the group-commit loop (modes none and batch).
func (w *wal) writer() {
	defer close(w.stopped)
	for {
		select {
		case <-w.kick:
		case <-w.quit:
			w.flushGroup()
			return
		}
		w.flushGroup()
	}
}

func (w *wal) flushGroup() {
	w.mu.Lock()
	buf, g := w.buf, w.cur
	if len(buf) == 0 {
		w.mu.Unlock()
		return
	}
	w.buf = w.spare[:0]
	w.cur = &walGroup{done: make(chan struct{})}
	w.mu.Unlock()
	w.fileMu.Lock()
	err := w.writeLocked(buf, w.mode == SyncBatch)
	w.fileMu.Unlock()
	if err != nil {
		w.mu.Lock()
		if w.bgErr == nil {
			w.bgErr = err
		}
		w.mu.Unlock()
	}
	g.err = err
	close(g.done)
	w.spare = buf
}

// deleteBelow removes every log file whose number is below keep, except the
// current one.
func (w *wal) deleteBelow(keep uint64) {
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	cur := w.num.Load()
	i := 0
	for i < len(w.logs) && w.logs[i] < keep && w.logs[i] != cur {
		os.Remove(filepath.Join(w.dir, walName(w.logs[i])))
		i++
	}
	w.logs = w.logs[i:]
}

// liveLogs reports how many log files exist.
func (w *wal) liveLogs() int {
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	return len(w.logs)
}

// close writes what is queued and closes the file; later appends get ErrClosed.
func (w *wal) close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	if w.mode != SyncAlways {
		close(w.quit)
	}
	<-w.stopped
	w.fileMu.Lock()
	defer w.fileMu.Unlock()
	var err error
	if w.mode != SyncNone {
		err = w.f.Sync()
	}
	return errors.Join(err, w.f.Close())
}

package writepath

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
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

func (m SyncMode) String() string { return enumString(syncModeNames[:], m, "SyncMode") }

// ParseSyncMode parses "none", "batch" or "always".
func ParseSyncMode(s string) (SyncMode, error) {
	return parseEnum[SyncMode](syncModeNames[:], s, "sync mode")
}

// WALOptions configure the server's write-ahead log.
type WALOptions struct {
	// Dir holds the log files wal-NNNNNNNNNNNNNNNN.log; "" = no WAL. The
	// server holds the directory (WALLockName) from NewServer to Close;
	// a second server on it fails with ErrWALLocked.
	Dir  string
	Sync SyncMode
	// RollSize starts a new log file once the current one reaches it
	// (default 64 MiB). Whole files are deleted once everything they hold
	// has been flushed.
	RollSize int64
	// Recovery says what NewServer does with damaged logs when it replays
	// them (default WALTolerateTornTail). Whatever the mode, the damage
	// found is reported in Server.WALReplay.
	Recovery WALRecoveryMode
}

// DefaultWALRollSize is WALOptions.RollSize's default.
const DefaultWALRollSize = 64 << 20

// WALRecoveryMode is how replay treats a damaged log: bytes that do not
// form a valid record where one should start. Replay tells two kinds of
// damage apart:
//
//   - a torn tail: damage that runs to the end of the last log file with no
//     valid record after it, which is what a crash in the middle of a write,
//     or a preallocated or half-written page of zeros, leaves;
//   - corruption: damage with a valid record after it in the same file, or
//     any damage in a log file that is not the last. Each file is fsynced
//     before the next one is created, so a crash cannot leave one.
type WALRecoveryMode int

const (
	// WALTolerateTornTail (the default): a torn tail is cut off (the file
	// is truncated to its last valid record, so that later opens find it
	// clean) and reported; corruption fails the open with a
	// *WALCorruptError.
	WALTolerateTornTail WALRecoveryMode = iota
	// WALAbsoluteConsistency: any damage fails the open, a torn tail too.
	// For logs that must be exactly what was written, e.g. after a clean
	// Close.
	WALAbsoluteConsistency
	// WALSkipCorrupted: replay skips every damaged region, resumes at the
	// next valid record and reports what it skipped; a torn tail is cut off
	// as in WALTolerateTornTail. The replayed data may then have holes: a
	// batch logged after a lost one is applied without it. Skipped regions
	// stay in their file, so every later open reports them again until the
	// file is deleted after a flush.
	WALSkipCorrupted
)

var walRecoveryNames = [...]string{"tolerate-torn-tail", "absolute-consistency", "skip-corrupted"}

func (m WALRecoveryMode) String() string {
	return enumString(walRecoveryNames[:], m, "WALRecoveryMode")
}

// ParseWALRecoveryMode parses "tolerate-torn-tail", "absolute-consistency"
// or "skip-corrupted".
func ParseWALRecoveryMode(s string) (WALRecoveryMode, error) {
	return parseEnum[WALRecoveryMode](walRecoveryNames[:], s, "WAL recovery mode")
}

// WALRecoveryModes lists the recovery modes in order.
func WALRecoveryModes() []WALRecoveryMode {
	return []WALRecoveryMode{WALTolerateTornTail, WALAbsoluteConsistency, WALSkipCorrupted}
}

// Log file format, version 2. A file starts with a 20-byte header,
//
//	magic     8 bytes    walMagic
//	firstSeq  uint64 LE  sequence number of the file's first record
//	fcrc      uint32 LE  CRC-32C of magic and firstSeq
//
// and holds records back to back, numbered from firstSeq on (the number is
// implied by the position, not stored). Each log's firstSeq is the previous
// log's plus its record count, so replay knows how many records a log that
// is not the last must hold, and a log cut short at a record boundary is
// found. A record:
//
//	hcrc    uint32 LE  CRC-32C of the next 8 bytes (length and pcrc)
//	length  uint32 LE  payload bytes, in [4, MaxWALRecord]
//	pcrc    uint32 LE  CRC-32C of the payload
//	payload            an encoded Batch
//
// The header checksum covers the length, so a run of zeros is never a
// record (the CRC-32C of 8 zero bytes is not 0), and replay can look for the
// next valid record after damage by checking 8 bytes at each offset. Version
// 1 logs (no file header; length and payload CRC only) are not readable: a
// file that does not start with walMagic fails the open in every mode.
const (
	walMagic      = "WGWAL02\n"
	walFileHeader = int64(len(walMagic) + 12)
	walHeader     = 12
	// MaxWALRecord bounds one WAL record's payload, that is one batch: a
	// larger batch fails its append with ErrFrameTooLarge, and replay
	// reads a larger length as damage.
	MaxWALRecord = 1 << 30
)

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

	mu       sync.Mutex // guards buf, bufRecs, cur, inflight, bgErr, closed
	buf      []byte
	bufRecs  int // records in buf
	cur      *walGroup
	inflight map[uint64]int // log number -> appends not yet in a memtable
	bgErr    error
	closed   bool
	kick     chan struct{}
	quit     chan struct{}
	stopped  chan struct{}
	spare    []byte

	fileMu   sync.Mutex // guards f, written, firstSeq, fileRecs, logs
	f        *os.File
	num      atomic.Uint64 // current log number
	written  int64
	firstSeq uint64   // the current log's first record number
	fileRecs uint64   // records written to the current log
	logs     []uint64 // live log files, ascending

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

// openWAL starts a new log after the existing ones (which the caller replays
// first and which stay live until flushed), numbering its records from
// nextSeq.
func openWAL(opts WALOptions, existing []uint64, nextSeq uint64) (*wal, error) {
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
	if err := w.startLog(next, nextSeq); err != nil {
		return nil, err
	}
	if w.mode != SyncAlways {
		go w.writer()
	} else {
		close(w.stopped)
	}
	return w, nil
}

// appendFileHeader appends a log file header.
func appendFileHeader(dst []byte, firstSeq uint64) []byte {
	dst = binary.LittleEndian.AppendUint64(append(dst, walMagic...), firstSeq)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[len(dst)-16:], crcTable))
}

// startLog creates log n, whose first record will be number firstSeq,
// writes its file header and makes it current. Caller holds fileMu (or is
// opening). The previous log is fsynced first, in every sync mode, so that
// only the last log file can ever end torn.
func (w *wal) startLog(n, firstSeq uint64) error {
	if w.f != nil {
		if err := w.f.Sync(); err != nil {
			return err
		}
	}
	p := filepath.Join(w.dir, walName(n))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(appendFileHeader(nil, firstSeq)); err != nil {
		f.Close()
		os.Remove(p)
		return err
	}
	if w.f != nil {
		w.f.Close()
	}
	// Make the new file's directory entry durable.
	if d, err := os.Open(w.dir); err == nil {
		d.Sync()
		d.Close()
	}
	w.f, w.written = f, walFileHeader
	w.firstSeq, w.fileRecs = firstSeq, 0
	w.logs = append(w.logs, n)
	w.num.Store(n)
	return nil
}

// writeLocked writes p, nrec records, to the current log, rolling first if
// it is full, and syncs when sync is true. Caller holds fileMu.
func (w *wal) writeLocked(p []byte, nrec int, sync bool) error {
	if w.written >= w.rollSize {
		if err := w.startLog(w.num.Load()+1, w.firstSeq+w.fileRecs); err != nil {
			return err
		}
	}
	if _, err := w.f.Write(p); err != nil {
		return err
	}
	w.fileRecs += uint64(nrec)
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
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(hdr[8:], crc32.Checksum(payload, crcTable))
	binary.LittleEndian.PutUint32(hdr[:4], crc32.Checksum(hdr[4:], crcTable))
	dst = append(dst, hdr[:]...)
	return append(dst, payload...)
}

// append logs one encoded batch and returns once it is durable per the sync
// mode. It returns the log number to charge the batch to; the caller must
// call release(num) once the batch is in the memtables (even on error), when
// num is not 0.
func (w *wal) append(payload []byte) (uint64, error) {
	if len(payload) > MaxWALRecord {
		return 0, fmt.Errorf("%w: %d B batch, WAL record limit %d B", ErrFrameTooLarge, len(payload), MaxWALRecord)
	}
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
		err := w.writeLocked(rec, 1, true)
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
		w.bufRecs++
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
	buf, nrec, g := w.buf, w.bufRecs, w.cur
	if len(buf) == 0 {
		w.mu.Unlock()
		return
	}
	w.buf, w.bufRecs = w.spare[:0], 0
	w.cur = &walGroup{done: make(chan struct{})}
	w.mu.Unlock()
	w.fileMu.Lock()
	err := w.writeLocked(buf, nrec, w.mode == SyncBatch)
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

// WALDamage is one damaged region of a log file: bytes from Offset where a
// valid record should start, up to the next valid record or the end of the
// file.
type WALDamage struct {
	Log    string // file name in WALOptions.Dir
	Offset int64  // byte offset of the first bad byte in the file
	Length int64  // bytes in the region, none of them replayed
	// Records is how many records the region lost, as far as can be told:
	// the intact record headers in it, plus one for a damaged header at its
	// start unless those bytes are all zero (padding, not a record), and at
	// least one for damage before the tail. Damage that wiped out whole
	// headers hides records; the record numbers in the next log's header
	// then tell how many more a log that is not the last lost (reported as
	// a region of length 0 at its end).
	Records int64
	// TornTail: the region runs to the end of the last log file with no
	// valid record after it (see WALRecoveryMode).
	TornTail bool
	// Reason says what the bytes at Offset failed, e.g. "payload checksum
	// mismatch".
	Reason string
}

// WALLogReplay is one log file's part of a replay.
type WALLogReplay struct {
	Name    string // file name in WALOptions.Dir
	Size    int64  // bytes in the file when replay read it
	Records int64  // records replayed
	Entries int64  // entries replayed
	// Damage lists the file's damaged regions in file order, at most
	// maxDamageListed of them; DamageUnlisted counts the rest (they are
	// in the totals of WALReplayStats all the same).
	Damage         []WALDamage
	DamageUnlisted int
}

// maxDamageListed bounds WALLogReplay.Damage, so that a log of garbage
// cannot make the report itself large.
const maxDamageListed = 64

// WALReplayStats reports what replaying the logs at open found. Every byte
// of every log file is either in a replayed record (or a file header) or
// counted in BytesIgnored. It is a value: the caller owns its slices.
type WALReplayStats struct {
	Mode           WALRecoveryMode
	Records        int64 // records replayed
	Entries        int64 // entries replayed
	RecordsSkipped int64 // records lost to damage (sum of WALDamage.Records)
	BytesIgnored   int64 // bytes not replayed: damaged regions, torn tail included
	// TornTailBytes is the part of BytesIgnored in a torn tail; with modes
	// other than WALAbsoluteConsistency it was cut off the last log.
	TornTailBytes int64
	Damaged       int // damaged regions, torn tail included
	Logs          []WALLogReplay
}

// Lossless reports whether replay found no damage at all.
func (s WALReplayStats) Lossless() bool { return s.Damaged == 0 }

func (s WALReplayStats) clone() WALReplayStats {
	s.Logs = slices.Clone(s.Logs)
	for i := range s.Logs {
		s.Logs[i].Damage = slices.Clone(s.Logs[i].Damage)
	}
	return s
}

// WALCorruptError is NewServer's error when replay finds damage that its
// recovery mode does not allow. It wraps ErrWALCorrupt.
type WALCorruptError struct {
	Path   string    // the damaged log file
	Damage WALDamage // the region that failed the open
	// Why says why the region failed the open: valid records follow it,
	// it is in a log that is not the last, the mode tolerates no torn
	// tail, or the file is not a log of this format.
	Why string
	// Replay is the replay up to and including the damage; the records it
	// counts were discarded with the server that failed to open.
	Replay WALReplayStats
}

func (e *WALCorruptError) Error() string {
	return fmt.Sprintf("%v: %s at byte offset %d: %s (%d bytes damaged; %s; recovery mode %s)",
		ErrWALCorrupt, e.Path, e.Damage.Offset, e.Damage.Reason, e.Damage.Length, e.Why, e.Replay.Mode)
}

func (e *WALCorruptError) Unwrap() error { return ErrWALCorrupt }

// logReader reads one log file through a window: sequentially, as replay
// does, or at any offset, as the search for the next valid record does.
type logReader struct {
	f    *os.File
	size int64
	buf  []byte // file bytes [off, off+len(buf))
	off  int64
	es   []entry // scratch for validating payloads
	// budget bounds the payload bytes that resync may checksum, so that
	// a file full of forged record headers fails instead of stalling.
	budget int64
}

// logWindow is logReader's read size.
const logWindow = 1 << 20

// at returns the n bytes at off, valid until the next call. The caller
// checks that off+n <= size, so n is bounded by the file before the window
// grows to hold it.
func (r *logReader) at(off int64, n int) ([]byte, error) {
	if off >= r.off && off+int64(n) <= r.off+int64(len(r.buf)) {
		return r.buf[off-r.off : off-r.off+int64(n)], nil
	}
	w := int(min(r.size-off, int64(max(n, logWindow))))
	if cap(r.buf) < w {
		r.buf = nil // let the old window go before allocating the new one
		r.buf = make([]byte, w)
	}
	r.buf = r.buf[:w]
	if _, err := r.f.ReadAt(r.buf, off); err != nil {
		r.buf = r.buf[:0]
		return nil, err
	}
	r.off = off
	return r.buf[:n], nil
}

// recordCheck is the verdict on the bytes at one offset.
type recordCheck struct {
	n        int64  // record length, header included (valid records only)
	payload  []byte // valid until the next read
	headerOK bool   // the header's own checksum holds
	zero     bool   // the header bytes there are all zero
	reason   string // "" = a valid record
	summed   int64  // payload bytes checksummed
}

func headerOK(hb []byte) bool {
	return crc32.Checksum(hb[4:walHeader], crcTable) == binary.LittleEndian.Uint32(hb)
}

// check tells whether a valid record starts at off: header checksum,
// length bounds (before reading the payload), payload checksum, and a
// payload that decodes as a batch within the memtable limits.
func (r *logReader) check(off int64) (recordCheck, error) {
	left := r.size - off
	hb, err := r.at(off, int(min(left, walHeader)))
	if err != nil {
		return recordCheck{}, err
	}
	c := recordCheck{zero: !slices.ContainsFunc(hb, func(b byte) bool { return b != 0 })}
	switch {
	case left < walHeader:
		c.reason = fmt.Sprintf("partial record header (%d of %d bytes)", left, walHeader)
		return c, nil
	case c.zero:
		c.reason = "zero-filled record header"
		return c, nil
	case !headerOK(hb):
		c.reason = "record header checksum mismatch"
		return c, nil
	}
	c.headerOK = true
	l := int64(binary.LittleEndian.Uint32(hb[4:]))
	pcrc := binary.LittleEndian.Uint32(hb[8:])
	if l < 4 || l > MaxWALRecord {
		c.reason = fmt.Sprintf("record length %d outside [4, %d]", l, MaxWALRecord)
		return c, nil
	}
	if l > left-walHeader {
		c.reason = fmt.Sprintf("record of %d payload bytes runs %d bytes past the end of the file", l, l-(left-walHeader))
		return c, nil
	}
	p, err := r.at(off+walHeader, int(l))
	if err != nil {
		return recordCheck{}, err
	}
	c.summed = l
	if crc32.Checksum(p, crcTable) != pcrc {
		c.reason = "payload checksum mismatch"
		return c, nil
	}
	if r.es, _, err = decodeBatch(p, r.es[:0]); err != nil {
		c.reason = "payload is not a valid batch: " + err.Error()
		return c, nil
	}
	c.n, c.payload = walHeader+l, p
	return c, nil
}

// errResyncBudget: resync checksummed more than its budget allows.
var errResyncBudget = errors.New("too many forged record headers to search for the next valid record")

// resync returns the offset of the first valid record at or after from
// (-1: none before the end of the file) and how many intact record headers
// it passed on the way.
func (r *logReader) resync(from int64) (next, headers int64, err error) {
	for p := from; p+walHeader <= r.size; p++ {
		hb, err := r.at(p, walHeader)
		if err != nil {
			return -1, headers, err
		}
		if !headerOK(hb) {
			continue
		}
		c, err := r.check(p)
		if err != nil {
			return -1, headers, err
		}
		if c.reason == "" {
			return p, headers, nil
		}
		headers++
		if r.budget -= c.summed; r.budget < 0 {
			return -1, headers, errResyncBudget
		}
	}
	return -1, headers, nil
}

// replayer replays a WAL directory's logs in order.
type replayer struct {
	dir      string
	mode     WALRecoveryMode
	apply    func(n uint64, payload []byte) (entries int, err error)
	st       WALReplayStats
	fileLost int64  // records lost before the tail in the current file
	nextSeq  uint64 // number for the next log's first record
}

// replayWAL replays the logs nums of dir in order, calling apply with each
// valid record's payload (the payload is only valid during the call), and
// handles damage per mode. A torn tail that the mode tolerates is cut off
// the last log (truncate and fsync; a last log left without a whole file
// header is removed), so that the log the server starts next does not make
// it damage in a log that is not the last. It returns the report, the logs
// still there, the number for the next log's first record and, for damage
// the mode does not allow, a *WALCorruptError.
func replayWAL(dir string, nums []uint64, mode WALRecoveryMode, apply func(n uint64, payload []byte) (int, error)) (WALReplayStats, []uint64, uint64, error) {
	p := &replayer{dir: dir, mode: mode, apply: apply, st: WALReplayStats{Mode: mode}, nextSeq: 1}
	heads := make([]fileHead, len(nums))
	for i, n := range nums {
		var err error
		if heads[i], err = readFileHead(filepath.Join(dir, walName(n))); err != nil {
			return p.st, nil, 0, err
		}
	}
	var live []uint64
	for i, n := range nums {
		path := filepath.Join(dir, walName(n))
		last := i == len(nums)-1
		p.fileLost = 0
		tail, err := p.replayFile(n, heads[i], last)
		if err == nil && !last && heads[i].ok && heads[i+1].ok {
			err = p.checkCount(path, heads[i], heads[i+1])
		}
		if err != nil {
			return p.st, nil, 0, err
		}
		if heads[i].ok {
			p.nextSeq = max(p.nextSeq, heads[i].firstSeq+uint64(p.st.Logs[i].Records+p.fileLost))
		}
		switch {
		case tail == 0:
			err = os.Remove(path)
		case tail > 0:
			err = cutTail(path, tail)
		}
		if err != nil {
			return p.st, nil, 0, fmt.Errorf("writepath: cutting the torn tail of %s at byte offset %d: %w", path, tail, err)
		}
		if tail != 0 {
			live = append(live, n)
		}
	}
	return p.st, live, p.nextSeq, nil
}

func cutTail(path string, at int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(at)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// fileHead is a log file's header as replay found it.
type fileHead struct {
	size     int64
	raw      []byte // the first walFileHeader bytes, or fewer
	ok       bool   // a whole header with a valid checksum
	firstSeq uint64 // if ok
	foreign  bool   // not a header of this format (nor a torn or zeroed one)
}

func readFileHead(path string) (fileHead, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileHead{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileHead{}, err
	}
	h := fileHead{size: fi.Size(), raw: make([]byte, min(fi.Size(), walFileHeader))}
	if _, err := f.ReadAt(h.raw, 0); err != nil {
		return fileHead{}, fmt.Errorf("writepath: reading %s: %w", path, err)
	}
	m := min(len(h.raw), len(walMagic))
	switch {
	case string(h.raw[:m]) != walMagic[:m]:
		h.foreign = slices.ContainsFunc(h.raw, func(b byte) bool { return b != 0 })
	case len(h.raw) == int(walFileHeader):
		h.ok = crc32.Checksum(h.raw[:16], crcTable) == binary.LittleEndian.Uint32(h.raw[16:])
		h.firstSeq = binary.LittleEndian.Uint64(h.raw[8:])
	}
	return h, nil
}

// checkCount compares the records found in the log at path (replayed, or
// counted lost in damaged regions) with the count the next log's header
// implies: a log cut short at a record boundary shows no damaged bytes, only
// missing records.
func (p *replayer) checkCount(path string, cur, next fileHead) error {
	lr := &p.st.Logs[len(p.st.Logs)-1]
	found := uint64(lr.Records + p.fileLost)
	want := next.firstSeq - cur.firstSeq
	if next.firstSeq < cur.firstSeq || uint64(lr.Records) > want {
		d := WALDamage{Log: lr.Name, Offset: cur.size, Reason: fmt.Sprintf(
			"%d records where the next log's first record number (%d) leaves room for %d", lr.Records, next.firstSeq, int64(want))}
		p.count(lr, d)
		if p.mode == WALSkipCorrupted {
			return nil
		}
		return &WALCorruptError{Path: path, Damage: d, Replay: p.st.clone(), Why: "the logs' record numbers disagree"}
	}
	if found >= want {
		return nil
	}
	d := WALDamage{Log: lr.Name, Offset: cur.size, Records: int64(want - found),
		Reason: fmt.Sprintf("log ends %d records short of the next log's first record number %d", want-found, next.firstSeq)}
	p.count(lr, d)
	if p.mode == WALSkipCorrupted {
		return nil
	}
	return &WALCorruptError{Path: path, Damage: d, Replay: p.st.clone(), Why: "damage in a log file that is not the last"}
}

// replayFile replays log n. It returns where a tolerated torn tail starts
// (-1: none).
func (p *replayer) replayFile(n uint64, h fileHead, last bool) (tail int64, err error) {
	path := filepath.Join(p.dir, walName(n))
	f, err := os.Open(path)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	r := &logReader{f: f, size: h.size, budget: 4*h.size + logWindow}
	p.st.Logs = append(p.st.Logs, WALLogReplay{Name: walName(n), Size: r.size})
	lr := &p.st.Logs[len(p.st.Logs)-1]
	off, first, err := p.fileHeader(h, lr, path)
	if err != nil {
		return -1, err
	}
	for off < r.size || first.reason != "" {
		c := first
		if first.reason != "" {
			first.reason = ""
		} else if c, err = r.check(off); err != nil {
			return -1, fmt.Errorf("writepath: reading %s at byte offset %d: %w", path, off, err)
		}
		if c.reason == "" {
			k, err := p.apply(n, c.payload)
			if err != nil {
				return -1, fmt.Errorf("writepath: replaying %s at byte offset %d: %w", path, off, err)
			}
			lr.Records++
			lr.Entries += int64(k)
			p.st.Records++
			p.st.Entries += int64(k)
			off += c.n
			continue
		}
		next, err := p.damaged(r, lr, path, off, c, last)
		if err != nil {
			return -1, err
		}
		if next < 0 {
			return off, nil // a tolerated torn tail
		}
		off = next
	}
	return -1, nil
}

// fileHeader returns where the records of a log with header h start or,
// for a header cut short, zeroed or failing its checksum, offset 0 and the
// check to treat as damage there. A header of another format fails in every
// mode.
func (p *replayer) fileHeader(h fileHead, lr *WALLogReplay, path string) (int64, recordCheck, error) {
	switch {
	case h.ok:
		return walFileHeader, recordCheck{}, nil
	case !h.foreign:
		reason := "file header checksum mismatch"
		if len(h.raw) < int(walFileHeader) {
			reason = fmt.Sprintf("partial file header (%d of %d bytes)", len(h.raw), walFileHeader)
		} else if !slices.ContainsFunc(h.raw, func(b byte) bool { return b != 0 }) {
			reason = "zero-filled file header"
		}
		// zero: true, as a file header is no record to count as lost.
		return 0, recordCheck{zero: true, reason: reason}, nil
	}
	d := WALDamage{Log: lr.Name, Length: h.size, Records: 1,
		Reason: fmt.Sprintf("file header %q does not start with %q", h.raw, walMagic)}
	p.count(lr, d)
	return 0, recordCheck{}, &WALCorruptError{Path: path, Damage: d, Replay: p.st.clone(),
		Why: "not a log of this format (version 1 logs are not readable); no recovery mode skips a file header"}
}

// damaged handles the damaged region that starts at off: it finds where
// it ends, reports it, and returns where replay goes on (-1: a tolerated
// torn tail, replay of this file ends) or a *WALCorruptError.
func (p *replayer) damaged(r *logReader, lr *WALLogReplay, path string, off int64, c recordCheck, last bool) (int64, error) {
	next, headers, err := r.resync(off)
	if err != nil && !errors.Is(err, errResyncBudget) {
		return -1, fmt.Errorf("writepath: reading %s after byte offset %d: %w", path, off, err)
	}
	end := next
	if next < 0 {
		end = r.size
	}
	d := WALDamage{Log: lr.Name, Offset: off, Length: end - off, Records: headers, Reason: c.reason}
	if !c.headerOK && !c.zero {
		d.Records++
	}
	if err != nil {
		d.Reason += "; " + err.Error()
		p.count(lr, d)
		return -1, &WALCorruptError{Path: path, Damage: d, Replay: p.st.clone(), Why: "no recovery mode can tell where it ends"}
	}
	d.TornTail = next < 0 && last
	if !d.TornTail {
		d.Records = max(d.Records, 1) // the bytes before a valid record were one once
	}
	p.count(lr, d)
	var why string
	switch {
	case d.TornTail && p.mode != WALAbsoluteConsistency:
		return -1, nil
	case d.TornTail:
		why = "a torn tail, which this mode does not tolerate"
	case p.mode == WALSkipCorrupted:
		return end, nil
	case next >= 0:
		why = fmt.Sprintf("a valid record follows at byte offset %d", next)
	default:
		why = "damage in a log file that is not the last"
	}
	return -1, &WALCorruptError{Path: path, Damage: d, Replay: p.st.clone(), Why: why}
}

// count adds d to the report.
func (p *replayer) count(lr *WALLogReplay, d WALDamage) {
	if len(lr.Damage) < maxDamageListed {
		lr.Damage = append(lr.Damage, d)
	} else {
		lr.DamageUnlisted++
	}
	p.st.Damaged++
	p.st.RecordsSkipped += d.Records
	if !d.TornTail {
		p.fileLost += d.Records
	}
	p.st.BytesIgnored += d.Length
	if d.TornTail {
		p.st.TornTailBytes += d.Length
	}
}

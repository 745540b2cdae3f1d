package writepath

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Segment file format (what a flusher writes for one full memtable, named
// seg-RRRR-SSSSSSSSSSSS.seg for region R and server-wide flush sequence S):
//
//	magic   "WGSEG001"                          8 bytes
//	entries count × { klen uvarint, vlen uvarint, key, value }, ascending key order
//	footer  count uint64 LE, entry bytes uint64 LE, CRC-32C of entries uint32 LE,
//	        "WGSEGEND"                          28 bytes
//
// The file is written under a .tmp name, fsynced when the server has a WAL
// (the WAL is deleted on the strength of it), then renamed into place.
const (
	segMagic    = "WGSEG001"
	segEndMagic = "WGSEGEND"
	segFooter   = 8 + 8 + 4 + 8
)

// flushQueue is the server-wide queue of full memtables.
type flushQueue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	items []*memEntry
	stop  bool
}

func (q *flushQueue) push(m *memEntry) {
	q.mu.Lock()
	q.items = append(q.items, m)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *flushQueue) pop() (*memEntry, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.stop {
		q.cond.Wait()
	}
	if q.stop {
		return nil, false
	}
	m := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	return m, true
}

func (q *flushQueue) close() {
	q.mu.Lock()
	q.stop = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// limiter is a byte-rate limit shared by all flushers (one disk).
type limiter struct {
	rate int64 // bytes/s; 0 = unlimited
	mu   sync.Mutex
	next time.Time
}

// wait blocks until n more bytes fit under the rate, or stop is set.
func (l *limiter) wait(n int, stop *atomic.Bool) {
	if l.rate <= 0 || n <= 0 {
		return
	}
	d := time.Duration(float64(n) / float64(l.rate) * float64(time.Second))
	l.mu.Lock()
	now := time.Now()
	if l.next.Before(now) {
		l.next = now
	}
	l.next = l.next.Add(d)
	until := l.next
	l.mu.Unlock()
	for !stop.Load() {
		w := time.Until(until)
		if w <= 0 {
			return
		}
		time.Sleep(min(w, 50*time.Millisecond))
	}
}

// errFlushStopped aborts a flush at server Close.
var errFlushStopped = errors.New("writepath: flush stopped by Close")

// flusher runs until the queue closes.
func (s *Server) flusher() {
	defer s.flushWG.Done()
	for {
		m, ok := s.flushq.pop()
		if !ok {
			return
		}
		n, err := s.flushOne(m)
		if err != nil {
			if errors.Is(err, errFlushStopped) {
				return
			}
			s.flushErrors.Add(1)
			s.logger.Error("writepath: flush failed; will retry", "region", m.r.id, "err", err)
			time.Sleep(100 * time.Millisecond)
			s.flushq.push(m) // keep the data (and its WAL) until a flush succeeds
			continue
		}
		s.flushes.Add(1)
		s.flushedBytes.Add(n)
		m.r.flushed(m)
		s.trimWAL()
	}
}

// countingDiscard counts bytes and drops them.
type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// flushOne writes m as a segment (or to the discard sink) and returns the
// key+value bytes written.
func (s *Server) flushOne(m *memEntry) (int64, error) {
	seq := s.flushSeq.Add(1)
	var (
		f          *os.File
		sink       io.Writer
		tmp, final string
	)
	if s.opts.FlushDir != "" {
		final = filepath.Join(s.opts.FlushDir, fmt.Sprintf("seg-%04d-%012d.seg", m.r.id, seq))
		tmp = final + ".tmp"
		var err error
		f, err = os.Create(tmp)
		if err != nil {
			return 0, err
		}
		sink = f
	} else {
		sink = &countingDiscard{}
	}
	bw := bufio.NewWriterSize(sink, 256<<10)
	crc := crc32.New(crcTable)
	var count, kvBytes, entryBytes uint64
	var hdr [2 * binary.MaxVarintLen64]byte
	bw.WriteString(segMagic)
	pendingLimit := 0
	var err error
	for k, v := range m.mt.All() {
		if s.flushStop.Load() {
			err = errFlushStopped
			break
		}
		h := binary.AppendUvarint(hdr[:0], uint64(len(k)))
		h = binary.AppendUvarint(h, uint64(len(v)))
		bw.Write(h)
		bw.Write(k)
		bw.Write(v)
		crc.Write(h)
		crc.Write(k)
		crc.Write(v)
		n := len(h) + len(k) + len(v)
		entryBytes += uint64(n)
		kvBytes += uint64(len(k) + len(v))
		count++
		if pendingLimit += n; pendingLimit >= 64<<10 {
			s.limit.wait(pendingLimit, &s.flushStop)
			pendingLimit = 0
		}
	}
	s.limit.wait(pendingLimit, &s.flushStop)
	if err == nil {
		var foot [segFooter]byte
		binary.LittleEndian.PutUint64(foot[0:], count)
		binary.LittleEndian.PutUint64(foot[8:], entryBytes)
		binary.LittleEndian.PutUint32(foot[16:], crc.Sum32())
		copy(foot[20:], segEndMagic)
		bw.Write(foot[:])
		err = bw.Flush()
	}
	if f != nil {
		// With a WAL (also while it is replayed), the segment is fsynced:
		// trimWAL may delete the logs it was flushed from.
		if err == nil && s.opts.WAL.Dir != "" {
			err = f.Sync()
		}
		err = errors.Join(err, f.Close())
		if err == nil {
			err = os.Rename(tmp, final)
		}
		if err != nil {
			os.Remove(tmp)
		}
	}
	if s.flushStop.Load() && err == nil {
		// Completed despite Close: still counts.
		return int64(kvBytes), nil
	}
	return int64(kvBytes), err
}

// ScanSegment calls fn for each entry of a segment file in key order after
// checking magic, footer and checksum. The slices are valid only during fn.
func ScanSegment(path string, fn func(key, value []byte) error) (count int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if len(data) < len(segMagic)+segFooter || string(data[:8]) != segMagic || string(data[len(data)-8:]) != segEndMagic {
		return 0, fmt.Errorf("%w: %s: bad magic or too short", ErrSegmentCorrupt, path)
	}
	foot := data[len(data)-segFooter:]
	want := binary.LittleEndian.Uint64(foot[0:])
	body := data[8 : len(data)-segFooter]
	if uint64(len(body)) != binary.LittleEndian.Uint64(foot[8:]) || crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(foot[16:]) {
		return 0, fmt.Errorf("%w: %s: length or checksum mismatch", ErrSegmentCorrupt, path)
	}
	var prev []byte
	for len(body) > 0 {
		kl, a := binary.Uvarint(body)
		if a <= 0 {
			return count, fmt.Errorf("%w: %s: entry %d", ErrSegmentCorrupt, path, count)
		}
		body = body[a:]
		vl, b := binary.Uvarint(body)
		if b <= 0 || kl > uint64(len(body)-b) || vl > uint64(len(body)-b)-kl {
			return count, fmt.Errorf("%w: %s: entry %d", ErrSegmentCorrupt, path, count)
		}
		body = body[b:]
		k, v := body[:kl], body[kl:kl+vl]
		body = body[kl+vl:]
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			return count, fmt.Errorf("%w: %s: keys out of order at entry %d", ErrSegmentCorrupt, path, count)
		}
		prev = k
		if err := fn(k, v); err != nil {
			return count, err
		}
		count++
	}
	if uint64(count) != want {
		return count, fmt.Errorf("%w: %s: %d entries, footer says %d", ErrSegmentCorrupt, path, count, want)
	}
	return count, nil
}

package gcstress

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/writegc/writegc/gcstress/internal/outfolder"
	"github.com/writegc/writegc/gcstress/results"
)

// The child's stream (the protocol between a scenario's child and its
// parent) runs on a pipe of its own, not on the child's stdout: the parent
// passes the pipe's write end as the child's file descriptor StreamFD
// (exec.Cmd.ExtraFiles) and names it in StreamEnv. A user's engine may then
// print anything on stdout or stderr without touching the stream: the
// parent drains both continuously (the child never blocks on them), keeps
// the first and last CaptureKeep bytes of each in the scenario's folder
// (ChildStdoutFile, ChildStderrFile) and counts all of them
// (Result.Foreign). The stream is one JSON record (Sample) per line; the
// parent refuses a record longer than MaxRecord before buffering it.
const (
	// StreamEnv is the environment variable naming the child's stream
	// descriptor. Without it (a child started by hand) RunChild streams on
	// its stdout argument, as before protocol version 2.
	StreamEnv = "WRITEGC_GCSTRESS_STREAM"
	// StreamFD is the descriptor the parent passes: ExtraFiles[0].
	StreamFD = 3
	// StreamProto is the protocol version on every start line (Sample.Proto):
	// 2 is the stream on its own descriptor, and the parent's exit lines.
	StreamProto = results.StreamProto
	// MaxRecord is the longest record (line) the parent reads: a longer one
	// is skipped, and the scenario names the limit.
	MaxRecord = results.MaxRecord
	// CaptureKeep is how much of each end of a child's stdout and stderr
	// the parent keeps.
	CaptureKeep = 64 << 10
	// ChildStdoutFile and ChildStderrFile, in the scenario's folder
	// (Scenario.Dir), hold what the child printed outside its stream: the
	// first and last CaptureKeep bytes, with a line between them saying how
	// many were left out. Written only when the child printed something.
	ChildStdoutFile = "child-stdout.txt"
	ChildStderrFile = "child-stderr.txt"
)

var errRecordTooLong = fmt.Errorf("%w: a record longer than the %d MiB limit (MaxRecord) was skipped", ErrStream, MaxRecord>>20)

// recordReader reads a stream's records (lines without their newline),
// each at most limit bytes, checked before it is buffered. Not safe for
// concurrent use.
type recordReader struct {
	br    *bufio.Reader
	limit int
	buf   []byte
}

func newRecordReader(r io.Reader, limit int) *recordReader {
	return &recordReader{br: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// next returns the next record, valid until the next call. At the end of
// the stream it returns io.EOF; a last record without its newline (a child
// killed while writing) is dropped. A record over the limit is skipped up
// to its newline and reported as errRecordTooLong; reading may go on.
func (r *recordReader) next() ([]byte, error) {
	r.buf = r.buf[:0]
	over := false
	for {
		frag, err := r.br.ReadSlice('\n')
		if !over && len(r.buf)+len(frag) > r.limit+1 { // +1: the newline
			over, r.buf = true, r.buf[:0]
		}
		if !over {
			r.buf = append(r.buf, frag...)
		}
		switch {
		case err == nil && over:
			return nil, errRecordTooLong
		case err == nil:
			return r.buf[:len(r.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("%w: read the child's stream: %v", ErrStream, err)
		}
	}
}

// capture keeps the first and last keep bytes written to it and counts
// them all. Write never fails and never blocks for long, so a child
// writing to it through a pipe is never held up. Safe for concurrent use.
type capture struct {
	mu    sync.Mutex
	keep  int
	head  []byte
	tail  []byte // a ring of up to keep bytes; pos is where the next byte goes
	pos   int
	total int64
}

func newCapture(keep int) *capture { return &capture{keep: keep} }

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if room := c.keep - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > c.keep {
		p = p[len(p)-c.keep:]
	}
	for len(p) > 0 {
		if len(c.tail) < c.keep {
			k := min(c.keep-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			c.pos = len(c.tail) % c.keep
			continue
		}
		k := copy(c.tail[c.pos:], p)
		p = p[k:]
		c.pos = (c.pos + k) % c.keep
	}
	return n, nil
}

// Total is how many bytes were written.
func (c *capture) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// lastBytes returns the last bytes written after the head, oldest first.
func (c *capture) lastBytes() []byte {
	if len(c.tail) < c.keep {
		return append([]byte(nil), c.tail...)
	}
	return append(append([]byte(nil), c.tail[c.pos:]...), c.tail[:c.pos]...)
}

// Tail returns the last n <= keep bytes written (fewer if fewer were): the
// ring alone once it is full, else head and ring, which then adjoin.
func (c *capture) Tail(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	all := append(append([]byte(nil), c.head...), c.lastBytes()...)
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return string(all)
}

// contents is what the capture file holds: the head, a line saying how
// many bytes were left out when any were, and the tail.
func (c *capture) contents() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b bytes.Buffer
	b.Write(c.head)
	tail := c.lastBytes()
	if left := c.total - int64(len(c.head)) - int64(len(tail)); left > 0 {
		fmt.Fprintf(&b, "\n[gcstress: %d bytes left out: the first and last %d bytes of %d are kept]\n", left, c.keep, c.total)
	}
	b.Write(tail)
	return b.Bytes()
}

// writeFileAtomic writes b to path with writeAtomic (the results folder's
// one atomic writer), creating the folder. Errors wrap ErrStream and
// ErrWrite and name path.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%w: %w: %s: %w", ErrStream, ErrWrite, path, err)
	}
	_, err := outfolder.WriteAtomic(nil, path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStream, err)
	}
	return nil
}

// keepForeign writes a child's stdout and stderr captures that hold
// anything into dir (none when dir is "") and returns the account.
func keepForeign(dir string, stdout, stderr *capture, exitedOK bool) (*ForeignOutput, error) {
	f := &ForeignOutput{StdoutBytes: stdout.Total(), StderrBytes: stderr.Total(), ExitedOK: exitedOK}
	if f.StdoutBytes == 0 && f.StderrBytes == 0 {
		return nil, nil
	}
	if dir == "" {
		return f, nil
	}
	for _, c := range []struct {
		cap  *capture
		name string
		dst  *string
	}{{stdout, ChildStdoutFile, &f.StdoutFile}, {stderr, ChildStderrFile, &f.StderrFile}} {
		if c.cap.Total() == 0 {
			continue
		}
		p := filepath.Join(dir, c.name)
		if err := writeFileAtomic(p, c.cap.contents()); err != nil {
			return f, err
		}
		*c.dst = p
	}
	return f, nil
}

// streamFDFromEnv returns the descriptor StreamEnv names, or -1 when it is
// not set.
func streamFDFromEnv() (int, error) {
	v := os.Getenv(StreamEnv)
	if v == "" {
		return -1, nil
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return -1, fmt.Errorf("%w: bad %s=%q: want a file descriptor from 3 up", ErrChild, StreamEnv, v)
	}
	return fd, nil
}

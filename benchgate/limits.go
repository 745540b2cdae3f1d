package benchgate

import (
	"bytes"
	"fmt"
	"io"

	"github.com/writegc/writegc/internal/inputfile"
)

// Input limits of a Parser.
const (
	// DefaultMaxBytes is the default size limit of one input (64 MiB, about
	// half a million result lines).
	DefaultMaxBytes = 64 << 20
	// DefaultMaxLineBytes is the default, and largest allowed, length of one
	// line (without its newline). The benchmark format reader cannot read a
	// longer line, so this is also MaxLineBytes's upper bound.
	DefaultMaxLineBytes = 64<<10 - 1
)

// Parser reads benchmark files under size limits. The zero value uses the
// defaults; Parse and ParseFiles are Parser{}.Parse and Parser{}.ParseFiles.
//
// A Parser is a plain value with no state: it may be copied and used from
// several goroutines at once.
type Parser struct {
	// MaxBytes bounds the bytes read from one input; 0 means DefaultMaxBytes.
	// Reading stops at the first byte past the limit (ErrTooLarge), so an
	// endless input such as /dev/zero costs at most MaxBytes of memory.
	MaxBytes int64
	// MaxLineBytes bounds the length of one line; 0 means
	// DefaultMaxLineBytes, which is also the largest value allowed. Reading
	// stops at the first line past it (ErrTooLarge, naming file:line).
	MaxLineBytes int
}

func (p Parser) withDefaults() (Parser, error) {
	if p.MaxBytes < 0 || p.MaxLineBytes < 0 || p.MaxLineBytes > DefaultMaxLineBytes {
		return p, fmt.Errorf("%w: Parser{MaxBytes: %d, MaxLineBytes: %d}: want MaxBytes >= 0 and MaxLineBytes in [0, %d]",
			errBadOption, p.MaxBytes, p.MaxLineBytes, DefaultMaxLineBytes)
	}
	if p.MaxBytes == 0 {
		p.MaxBytes = DefaultMaxBytes
	}
	if p.MaxLineBytes == 0 {
		p.MaxLineBytes = DefaultMaxLineBytes
	}
	return p, nil
}

// openFile opens the named file for a bounded read: see openInput.
func (p Parser) openFile(path string) (*inputfile.File, error) {
	return openInput(path, p.MaxBytes)
}

// openInput opens a file the user named (a benchmark file, a thresholds or
// accepted-regressions file, a profile) through inputfile: only a regular
// file is opened (a FIFO, a device, a socket or a directory is refused with
// an error wrapping ErrNotRegular, without blocking on a FIFO), one larger
// than limit is refused before anything is read, and reads stop at the first
// byte past limit; both size errors wrap ErrTooLarge.
func openInput(path string, limit int64) (*inputfile.File, error) {
	f, err := inputfile.Open(path, limit)
	return f, inputfile.Also(err, inputfile.ErrTooLarge, ErrTooLarge)
}

// read reads all of in, failing as soon as the input exceeds MaxBytes or a
// line exceeds MaxLineBytes. p must have its defaults filled in. (Benchmark
// files are not read this way but streamed through a limitReader; this is
// for small files such as the accepted regressions.)
func (p Parser) read(in io.Reader, fileName string) ([]byte, error) {
	lr := p.limit(in, fileName)
	data, err := io.ReadAll(lr)
	if lr.err != nil {
		return nil, lr.err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	return data, nil
}

// limit wraps in in a limitReader with p's limits.
func (p Parser) limit(in io.Reader, fileName string) *limitReader {
	return &limitReader{in: in, max: p.MaxBytes, name: fileName, lines: lineCounter{line: 1, max: p.MaxLineBytes}}
}

// limitReader passes an input through while enforcing a Parser's limits:
// past MaxBytes, or on a line longer than MaxLineBytes, it returns (and
// keeps in err) an error wrapping ErrTooLarge that names the file (and
// line). It also notes whether any non-blank byte went by, for the
// empty-input check. Not safe for concurrent use.
type limitReader struct {
	in       io.Reader
	max, n   int64
	name     string
	lines    lineCounter
	err      error
	nonBlank bool
}

func (r *limitReader) Read(buf []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.in.Read(buf)
	if r.n+int64(n) > r.max {
		r.err = fmt.Errorf("%s: more than the limit of %d bytes: %w", r.name, r.max, ErrTooLarge)
		return 0, r.err
	}
	if !r.lines.add(buf[:n]) {
		r.err = fmt.Errorf("%s:%d: line longer than the limit of %d bytes: %w", r.name, r.lines.line, r.lines.max, ErrTooLarge)
		return 0, r.err
	}
	r.n += int64(n)
	if !r.nonBlank {
		r.nonBlank = len(bytes.TrimLeft(buf[:n], " \t\r\n")) > 0
	}
	return n, err
}

// lineCounter follows the line number and the length of the current line
// across the chunks of an input.
type lineCounter struct {
	line, len, max int
}

// add scans the next chunk; it reports false, with line set to the offending
// line, when a line grows longer than max.
func (c *lineCounter) add(chunk []byte) bool {
	for {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			c.len += len(chunk)
			return c.len <= c.max
		}
		if c.len+i > c.max {
			return false
		}
		c.line, c.len, chunk = c.line+1, 0, chunk[i+1:]
	}
}

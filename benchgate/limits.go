package benchgate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
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
			ErrBadOption, p.MaxBytes, p.MaxLineBytes, DefaultMaxLineBytes)
	}
	if p.MaxBytes == 0 {
		p.MaxBytes = DefaultMaxBytes
	}
	if p.MaxLineBytes == 0 {
		p.MaxLineBytes = DefaultMaxLineBytes
	}
	return p, nil
}

// readFile reads the named file within p's limits. A regular file larger than
// MaxBytes is refused before anything is read.
func (p Parser) readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > p.MaxBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the limit of %d: %w", path, fi.Size(), p.MaxBytes, ErrTooLarge)
	}
	return p.read(f, path)
}

// read reads all of in, failing as soon as the input exceeds MaxBytes or a
// line exceeds MaxLineBytes. p must have its defaults filled in.
func (p Parser) read(in io.Reader, fileName string) ([]byte, error) {
	var data []byte
	buf := make([]byte, 32<<10)
	lines := lineCounter{line: 1, max: p.MaxLineBytes}
	for {
		n, err := in.Read(buf)
		if int64(len(data))+int64(n) > p.MaxBytes {
			return nil, fmt.Errorf("%s: more than the limit of %d bytes: %w", fileName, p.MaxBytes, ErrTooLarge)
		}
		if !lines.add(buf[:n]) {
			return nil, fmt.Errorf("%s:%d: line longer than the limit of %d bytes: %w", fileName, lines.line, p.MaxLineBytes, ErrTooLarge)
		}
		data = append(data, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fileName, err)
		}
	}
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

package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

var errTooLong, errFault = errors.New("too long"), errors.New("fault")

// TestRecordReaderLimit: a record over the limit is refused before it is
// buffered, skipped to its newline, and reading goes on; a last record
// without its newline is dropped.
func TestRecordReaderLimit(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nnext\n" + strings.Repeat("y", 16) + "\npartial"
	rr := NewReader(strings.NewReader(in), 16, errTooLong, errFault)
	var got []string
	for {
		b, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errTooLong) {
			got = append(got, "TOO LONG")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
		if cap(rr.buf) > 64 {
			t.Fatalf("buffered %d bytes for a limit of 16", cap(rr.buf))
		}
	}
	if want := []string{"short", "TOO LONG", "next", strings.Repeat("y", 16)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("records %q, want %q", got, want)
	}
}

// TestCaptureKeepsBothEnds: a capture keeps the first and last keep bytes
// and counts everything, whatever the write sizes.
func TestCaptureKeepsBothEnds(t *testing.T) {
	var all bytes.Buffer
	c := NewCapture(8)
	for i, n := range []int{3, 20, 1, 7, 30, 2} {
		p := bytes.Repeat([]byte{byte('a' + i)}, n)
		all.Write(p)
		c.Write(p)
	}
	b := all.Bytes()
	got := string(c.Contents())
	want := string(b[:8]) + fmt.Sprintf("\n[gcstress: %d bytes left out: the first and last 8 bytes of %d are kept]\n", len(b)-16, len(b)) + string(b[len(b)-8:])
	if c.Total() != int64(len(b)) || got != want {
		t.Fatalf("total %d contents %q, want %d %q", c.Total(), got, len(b), want)
	}
	if tail := c.Tail(5); tail != string(b[len(b)-5:]) {
		t.Fatalf("tail %q", tail)
	}
	small := NewCapture(8)
	small.Write([]byte("abcdefghij"))
	if string(small.Contents()) != "abcdefghij" || small.Tail(8) != "cdefghij" {
		t.Fatalf("small: %q %q", small.Contents(), small.Tail(8))
	}
}

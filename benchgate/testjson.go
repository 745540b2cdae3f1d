package benchgate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"
)

// `go test -json` input. The go command's -json flag (test2json) wraps
// every line a test binary prints in a JSON event, {"Action":"output",
// "Package":...,"Output":"..."}, one event a line; a benchmark's result
// line may come in several events ("BenchmarkX-8   \t", then
// "    1000\t  12 ns/op\n"). An input whose first non-blank byte is '{' is
// read as such a stream: the Output of its "output" events, joined per
// package (packages may interleave), is the benchmark text parsed, under
// the same limits as a text input: the raw input's bytes and lines by the
// limitReader, and each reassembled line by MaxLineBytes. A line that is
// not JSON is passed through as text (the go command prints a build
// failure that way); a line that starts with '{' but does not decode is a
// malformed line, named by its line in the input.

// maxSniff bounds the blank bytes looked through for the first non-blank
// one: past it the input is read as text.
const maxSniff = 64 << 10

// sniff returns the reader of lr's content and, when that content is `go
// test -json` output (its first non-blank byte is '{'), the testJSON
// extracting its benchmark text, which is then the reader.
func (p Parser) sniff(lr *limitReader, fileName string) (io.Reader, *testJSON) {
	br := bufio.NewReaderSize(lr, 64<<10)
	var blank []byte
	for len(blank) < maxSniff {
		c, err := br.ReadByte()
		if err != nil {
			break
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			blank = append(blank, c)
			continue
		}
		br.UnreadByte()
		if c == '{' {
			return p.newTestJSON(io.MultiReader(bytes.NewReader(blank), br), fileName)
		}
		break
	}
	return io.MultiReader(bytes.NewReader(blank), br), nil
}

// testJSON is an io.Reader of the benchmark text in a `go test -json`
// stream (see above). Not safe for concurrent use.
type testJSON struct {
	sc        *bufio.Scanner
	name      string
	maxLine   int
	line      int               // the input line last read
	partial   map[string][]byte // per package, the output line begun
	order     []string          // packages in first-seen order
	out       []byte            // text ready to be read
	lines     []int             // lines[i]: the input line that ended text line i+1
	malformed []*benchfmt.SyntaxError
	events    int // lines that decoded as events (with an Action)
	err       error
}

func (p Parser) newTestJSON(in io.Reader, fileName string) (io.Reader, *testJSON) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), p.MaxLineBytes+2) // the limitReader refuses a longer line first
	j := &testJSON{sc: sc, name: fileName, maxLine: p.MaxLineBytes, partial: map[string][]byte{}}
	return j, j
}

func (j *testJSON) Read(buf []byte) (int, error) {
	for len(j.out) == 0 {
		if j.err != nil {
			return 0, j.err
		}
		if !j.sc.Scan() {
			j.flush()
			j.err = j.sc.Err()
			if j.err == nil {
				j.err = io.EOF
			}
			continue
		}
		j.line++
		if err := j.event(j.sc.Bytes()); err != nil {
			j.err = err
		}
	}
	n := copy(buf, j.out)
	j.out = j.out[n:]
	return n, nil
}

// event handles one input line: an output event's text is added to its
// package's line, other events are skipped, a line that is not JSON is
// text.
func (j *testJSON) event(raw []byte) error {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0:
		return nil
	case t[0] != '{':
		j.emit(raw)
		return nil
	}
	var ev struct{ Action, Package, Output string }
	if err := json.Unmarshal(t, &ev); err != nil {
		j.malformed = append(j.malformed, &benchfmt.SyntaxError{FileName: j.name, Line: j.line, Msg: "go test -json: " + err.Error()})
		return nil
	}
	if ev.Action != "" {
		j.events++
	}
	if ev.Action != "output" {
		return nil
	}
	if _, ok := j.partial[ev.Package]; !ok {
		j.order = append(j.order, ev.Package)
	}
	cur := append(j.partial[ev.Package], ev.Output...)
	for {
		i := bytes.IndexByte(cur, '\n')
		if i < 0 {
			break
		}
		j.emit(cur[:i])
		cur = cur[i+1:]
	}
	if len(cur) > j.maxLine {
		return fmt.Errorf("%s:%d: go test -json output line longer than the limit of %d bytes: %w", j.name, j.line, j.maxLine, ErrTooLarge)
	}
	j.partial[ev.Package] = append(j.partial[ev.Package][:0], cur...)
	return nil
}

// emit adds one line of text, ended at the current input line.
func (j *testJSON) emit(line []byte) {
	j.out = append(append(j.out, line...), '\n')
	j.lines = append(j.lines, j.line)
}

// flush emits the lines still begun at the end of the input.
func (j *testJSON) flush() {
	for _, pkg := range j.order {
		if l := j.partial[pkg]; len(l) > 0 {
			j.emit(l)
			j.partial[pkg] = nil
		}
	}
}

// inputLine maps a line of the extracted text to the input line that ended
// it (the line itself when out of range).
func (j *testJSON) inputLine(textLine int) int {
	if textLine >= 1 && textLine <= len(j.lines) {
		return j.lines[textLine-1]
	}
	return textLine
}

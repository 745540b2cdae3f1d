package results

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/writegc/writegc/internal/inputfile"
)

// ReadResults rebuilds scenario Results from a samples.jsonl stream (one
// or many scenarios, in order) and classifies them with th. The parent's
// exit line (SampleExit) gives how a child ended and why the parent
// stopped it. A scenario with no end line is a child that died, unless its
// stream is of protocol version 2 or later (Sample.Proto on its start
// line) and has no exit line either: its parent stopped recording, so
// gcstress itself was killed while it ran, and it is Interrupted. A start
// line of a name already started begins another Result (the runs of -count,
// a capacity step run again). It lets
// a recorded stream be re-read and re-classified (the classifier's golden
// tests use it). Lines that are not JSON, and lines over MaxRecord, are
// skipped (ReadSamples says which); only a read error fails it.
func ReadResults(r io.Reader, th Thresholds) ([]Result, error) {
	rs, _, err := ReadSamples(r, th)
	return rs, err
}

// SkippedLine is a line of a samples.jsonl a replay left out.
type SkippedLine struct {
	Line int    // 1-based
	Why  string // "longer than the limit of 16777216 bytes", "not a JSON sample: ..."
}

// ReadSamples is ReadResults that also returns the lines it skipped, in
// order: a line over MaxRecord bytes (read to its end and dropped, so one
// costs at most MaxRecord of memory) or one that is not a JSON sample (a
// line cut short when a run was killed, say). Blank lines are not counted.
// A rebuild recovers what the rest of the file holds; the caller reports
// the skipped lines (SkipWarning).
func ReadSamples(r io.Reader, th Thresholds) ([]Result, []SkippedLine, error) {
	rp := replay{idx: map[string]int{}, proto: map[int]int{}, exited: map[int]bool{}, started: map[int]bool{}}
	var skipped []SkippedLine
	lr := lineReader{br: bufio.NewReaderSize(r, 64<<10), max: MaxRecord}
	for {
		line, long, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return rp.finish(th), skipped, fmt.Errorf("gcstress: read samples: line %d: %w", lr.line+1, err)
		}
		var s Sample
		switch {
		case long:
			skipped = append(skipped, SkippedLine{lr.line, fmt.Sprintf("longer than the limit of %d bytes", MaxRecord)})
			continue
		case len(bytes.TrimSpace(line)) == 0:
			continue
		}
		if err := json.Unmarshal(line, &s); err != nil {
			skipped = append(skipped, SkippedLine{lr.line, "not a JSON sample: " + err.Error()})
			continue
		}
		rp.add(s)
	}
	return rp.finish(th), skipped, nil
}

// maxNamedSkips is how many skipped lines SkipWarning names one by one.
const maxNamedSkips = 5

// SkipWarning is the one-line warning for the lines of file a replay
// skipped ("" when none): how many, and the first maxNamedSkips by number
// and cause.
func SkipWarning(file string, skipped []SkippedLine) string {
	if len(skipped) == 0 {
		return ""
	}
	parts := make([]string, 0, maxNamedSkips+1)
	for i, sk := range skipped {
		if i == maxNamedSkips {
			parts = append(parts, fmt.Sprintf("and %d more", len(skipped)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("line %d %s", sk.Line, sk.Why))
	}
	return fmt.Sprintf("%s: %d line(s) skipped, the rest replayed: %s", file, len(skipped), strings.Join(parts, "; "))
}

// replay is ReadSamples's state: idx is the index in out of each name's
// latest run; proto, exited and started are by index in out.
type replay struct {
	out             []Result
	idx             map[string]int
	proto           map[int]int
	exited, started map[int]bool
}

func (rp *replay) add(s Sample) {
	start := s.Type == SampleStart && s.Spec != nil
	i, ok := rp.idx[s.Scenario]
	// A start line of a name already started is another run of it (a
	// repeat of -count, a capacity step run again): a Result of its own.
	if !ok || (start && rp.started[i]) {
		i = len(rp.out)
		rp.idx[s.Scenario] = i
		rp.out = append(rp.out, Result{Scenario: Scenario{Name: s.Scenario}})
	}
	res := &rp.out[i]
	remeasure(&s)
	switch {
	case start:
		res.Scenario = *s.Spec
		rp.proto[i], rp.started[i] = s.Proto, true
	case s.Type == SampleExit && s.Exit != nil:
		res.Exit, res.Stopped = *s.Exit, s.Reason
		rp.exited[i] = true
	}
	res.Add(s)
}

// finish settles how each run ended and classifies it.
func (rp *replay) finish(th Thresholds) []Result {
	for i := range rp.out {
		res := &rp.out[i]
		switch {
		case rp.exited[i]:
		case res.End == nil && rp.proto[i] >= StreamProto:
			res.Exit, res.Stopped = Exit{Interrupted: true, Message: "parent killed: gcstress stopped recording before the scenario ended"}, StopInterrupted
		case res.End == nil:
			res.Exit = Exit{Died: true, Message: "no end record"}
		default:
			if e, ok := ExitOfEnd(res.End); ok {
				res.Exit = e
			}
		}
		res.Verdict = ClassifyScenario(res.Scenario, res.Windows, res.Exit, th)
	}
	return rp.out
}

// lineReader yields the lines of a stream, each of at most max bytes: a
// longer line is read to its end and reported as long, its bytes dropped,
// so memory stays bounded by max. Not safe for concurrent use.
type lineReader struct {
	br   *bufio.Reader
	max  int
	line int // the number of the line next returned
	buf  []byte
}

// next returns the next line without its newline (valid until the next
// call), whether it was over max, or io.EOF after the last line.
func (l *lineReader) next() (line []byte, long bool, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		if !long && len(l.buf)+len(bytes.TrimSuffix(chunk, []byte("\n"))) > l.max {
			long, l.buf = true, l.buf[:0]
		}
		if !long {
			l.buf = append(l.buf, chunk...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (len(l.buf) > 0 || long), err == nil:
			l.line++
			return bytes.TrimSuffix(l.buf, []byte("\n")), long, nil
		default:
			return nil, false, err
		}
	}
}

// remeasure recomputes a window or end line's MB/s from its byte counts:
// streams recorded before MB/s meant 10^6 B/s (it was MiB/s) replay in the
// current unit, and a replay never depends on the unit of the recording.
func remeasure(s *Sample) {
	switch s.Type {
	case SampleWindow:
		s.MBps = MBps(s.WinBytes, s.Dur)
	case SampleEnd:
		s.MBps = MBps(s.Bytes, s.T)
	}
}

// Exit's keys renamed to snake_case, by their former CamelCase names:
// summary.json files and samples.jsonl exit lines written before the
// rename still decode (Thresholds' are health's, as is its decoder).
var exitRenamed = map[string]string{"Died": "died", "RSSCap": "rss_cap", "Message": "message"}

// UnmarshalJSON decodes an Exit under its current or its former key names.
func (e *Exit) UnmarshalJSON(b []byte) error {
	type plain Exit
	return unmarshalRenamed(b, (*plain)(e), exitRenamed)
}

// unmarshalRenamed decodes the JSON object b into v after renaming each
// key of renamed to its current name; a current key wins over a former
// one. v must not have an UnmarshalJSON method (it would recurse).
func unmarshalRenamed(b []byte, v any, renamed map[string]string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil { // null
		return nil
	}
	for old, cur := range renamed {
		raw, ok := m[old]
		if !ok {
			continue
		}
		delete(m, old)
		if _, dup := m[cur]; !dup {
			m[cur] = raw
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Input limits of a replay, checked before a byte is read (and while
// reading, for a file that grows).
const (
	// MaxSummaryBytes bounds summary.json: a run of the whole matrix writes
	// well under 1 MiB (about 0.7 MiB with capacity searches), so 16 MiB is
	// room for long -count runs while a mistaken path (a 200 MB file) is
	// refused at once.
	MaxSummaryBytes int64 = 16 << 20
	// MaxSamplesBytes bounds samples.jsonl, which is streamed (memory grows
	// with the windows kept, not the file): a matrix run writes a few MiB.
	MaxSamplesBytes int64 = 4 << 30
)

// ReadSummary reads dir/summary.json, or, where a results/ folder keeps
// it compressed, dir/summary.json.gz; a folder with neither gives a
// Summary with the default thresholds. Only a regular file of at most
// MaxSummaryBytes is read, and a compressed one's stream to at most
// MaxSummaryBytes too: anything else (a FIFO, a device such as /dev/zero,
// a socket, a directory) is an error wrapping inputfile.ErrNotRegular, a
// larger file one wrapping inputfile.ErrTooLarge, both naming the file,
// before anything is read (and a FIFO without blocking).
func ReadSummary(dir string) (*Summary, error) {
	sum := &Summary{Thresholds: DefaultThresholds(), SpanNote: SpanNote, Out: dir}
	path := filepath.Join(dir, SummaryFile)
	b, err := inputfile.ReadFile(path, MaxSummaryBytes)
	if errors.Is(err, fs.ErrNotExist) {
		path = filepath.Join(dir, ArchivedSummaryFile)
		b, err = readGzip(path, MaxSummaryBytes)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sum.Rules = sum.Thresholds.String()
		return sum, nil
	case err != nil:
		return nil, fmt.Errorf("gcstress: %w", err)
	}
	if err := json.Unmarshal(b, sum); err != nil {
		return nil, fmt.Errorf("gcstress: %s: %w", path, err)
	}
	if sum.Rules == "" {
		sum.Rules = sum.Thresholds.String()
	}
	return sum, nil
}

// SummaryFile is a run's summary; ArchivedSummaryFile the same compressed,
// as results/ keeps it.
const (
	SummaryFile         = "summary.json"
	ArchivedSummaryFile = "summary.json.gz"
)

// HasSummary reports whether dir holds a summary, plain or compressed.
func HasSummary(dir string) bool {
	for _, name := range []string{SummaryFile, ArchivedSummaryFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// readGzip reads the compressed file at path, which must be a regular file
// of at most limit bytes, to at most limit uncompressed bytes.
func readGzip(path string, limit int64) ([]byte, error) {
	f, err := inputfile.Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(&limitedReader{r: zr, left: limit, limit: limit, path: path})
}

// MergeResults gives each scenario replayed from samples.jsonl what only
// summary.json holds of it (the parent's view: exit, stop, accounts,
// machine load), reclassifying it when the exit differs. Runs are matched
// by name and repeat, in order: the k-th run of a name and repeat replayed
// takes from the k-th recorded one (a capacity step run again has the
// same name and repeat).
func MergeResults(replayed, recorded []Result, th Thresholds) []Result {
	type runKey struct {
		name   string
		repeat int
		nth    int
	}
	keyOf := func(seen map[runKey]int, s Scenario) runKey {
		k := runKey{name: s.Name, repeat: s.Repeat}
		n := seen[k]
		seen[k] = n + 1
		k.nth = n
		return k
	}
	byRun, seen := map[runKey]Result{}, map[runKey]int{}
	for _, r := range recorded {
		byRun[keyOf(seen, r.Scenario)] = r
	}
	seen = map[runKey]int{}
	for i := range replayed {
		r := &replayed[i]
		old, ok := byRun[keyOf(seen, r.Scenario)]
		if !ok {
			continue
		}
		r.Account, r.Headline, r.Machine, r.Flight = old.Account, old.Headline, old.Machine, old.Flight
		r.Stopped, r.Stderr, r.Wall = old.Stopped, old.Stderr, old.Wall
		r.Foreign, r.StreamErr = old.Foreign, old.StreamErr
		if old.Exit != r.Exit {
			r.Exit = old.Exit
			r.Verdict = ClassifyScenario(r.Scenario, r.Windows, r.Exit, th)
		}
	}
	return replayed
}

// ReadArchived reads a results folder as results/ keeps it: dir/summary.json
// (ReadSummary) and dir/samples.jsonl.gz, the samples replayed with the
// summary's thresholds (ReadSamples). The compressed file is checked as
// ReadSummary checks summary.json (regular, at most MaxSamplesBytes), and
// its uncompressed stream is read to at most MaxSamplesBytes as well: a
// longer one is an error wrapping inputfile.ErrTooLarge. It returns the
// lines the replay skipped.
func ReadArchived(dir string) (*Summary, []Result, []SkippedLine, error) {
	sum, err := ReadSummary(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	path := filepath.Join(dir, "samples.jsonl.gz")
	f, err := inputfile.Open(path, MaxSamplesBytes)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gcstress: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gcstress: %s: %w", path, err)
	}
	lim := &limitedReader{r: zr, left: MaxSamplesBytes, limit: MaxSamplesBytes, path: path}
	rs, skipped, err := ReadSamples(lim, sum.Thresholds)
	if err != nil {
		return nil, nil, nil, err
	}
	return sum, rs, skipped, nil
}

// limitedReader fails with inputfile.ErrTooLarge past limit bytes (left
// of them remain).
type limitedReader struct {
	r           io.Reader
	left, limit int64
	path        string
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("%s uncompressed: %w (limit %d bytes)", l.path, inputfile.ErrTooLarge, l.limit)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

package gchealth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"time"

	"github.com/writegc/writegc/internal/syncdir"
)

// Capture files, inside each capture folder. explain detects a file's
// type from its content; these are the names gcstress uses.
const (
	FlightFile = "flight.out"  // the flight recorder's last seconds
	HeapFile   = "heap.pprof"  // a heap profile (inuse and alloc)
	ChangeFile = "change.json" // the Change that called for the capture
)

// capturePrefix starts every capture folder's name; tmpPrefix every
// folder still being written.
const (
	capturePrefix = "gchealth-"
	tmpPrefix     = ".tmp-gchealth-"
)

// syncFile is what a capture writes into: an *os.File, or a test's fake.
type syncFile interface {
	io.Writer
	Sync() error
	Close() error
}

// capturer writes captures into one folder. Only the Monitor's goroutine
// uses it, and close after that goroutine ended.
type capturer struct {
	dir      string
	maxN     int
	maxBytes int64
	every    time.Duration
	last     time.Time
	seq      int
	fr       *trace.FlightRecorder
	frErr    error
	create   func(path string) (syncFile, error)
}

func newCapturer(o Options) *capturer {
	c := &capturer{dir: o.CaptureDir, maxN: o.MaxCaptures, maxBytes: o.MaxCaptureBytes, every: o.CaptureEvery,
		create: func(p string) (syncFile, error) { return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644) }}
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: o.FlightWindow, MaxBytes: o.FlightMaxBytes})
	if err := fr.Start(); err != nil {
		c.frErr = err
	} else {
		c.fr = fr
	}
	c.removeStale()
	return c
}

// removeStale removes folders a crash left half written.
func (c *capturer) removeStale() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), tmpPrefix) {
			os.RemoveAll(filepath.Join(c.dir, e.Name()))
		}
	}
}

func (c *capturer) close() {
	if c.fr != nil {
		c.fr.Stop()
	}
}

// capture writes one capture folder for ch, unless one was written less
// than CaptureEvery ago, and prunes old ones. It returns the files
// written; on failure nothing of this capture is left and the error wraps
// ErrCapture. A flight recorder that could not start leaves the heap
// profile written and the error reported.
func (c *capturer) capture(ch Change) ([]string, error) {
	if !c.last.IsZero() && ch.At.Sub(c.last) < c.every {
		return nil, nil
	}
	c.last = ch.At
	c.seq++
	name := fmt.Sprintf("%s%s-%04d-%s", capturePrefix, ch.At.UTC().Format("20060102T150405.000Z"), c.seq%10000, ch.To)
	files, err := c.write(name, ch)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCapture, filepath.Join(c.dir, name), err)
	}
	c.prune()
	if c.frErr != nil {
		return files, fmt.Errorf("%w: no %s: flight recorder: %v", ErrCapture, FlightFile, c.frErr)
	}
	return files, nil
}

// write writes the folder under a temporary name, syncs it and renames it.
func (c *capturer) write(name string, ch Change) ([]string, error) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(c.dir, tmpPrefix)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	var names []string
	if c.fr != nil {
		names = append(names, FlightFile)
		if err := c.writeFile(filepath.Join(tmp, FlightFile), func(w io.Writer) error { _, err := c.fr.WriteTo(w); return err }); err != nil {
			return nil, err
		}
	}
	names = append(names, HeapFile, ChangeFile)
	if err := c.writeFile(filepath.Join(tmp, HeapFile), func(w io.Writer) error { return pprof.Lookup("heap").WriteTo(w, 0) }); err != nil {
		return nil, err
	}
	if err := c.writeFile(filepath.Join(tmp, ChangeFile), func(w io.Writer) error { return writeChange(w, ch) }); err != nil {
		return nil, err
	}
	if err := syncdir.Sync(tmp); err != nil {
		return nil, err
	}
	final := filepath.Join(c.dir, name)
	if err := os.Rename(tmp, final); err != nil {
		return nil, err
	}
	ok = true
	if err := syncdir.Sync(c.dir); err != nil {
		return nil, err // renamed, not yet durable: reported, kept
	}
	files := make([]string, len(names))
	for i, n := range names {
		files[i] = filepath.Join(final, n)
	}
	return files, nil
}

func (c *capturer) writeFile(path string, fill func(io.Writer) error) error {
	f, err := c.create(path)
	if err != nil {
		return err
	}
	err = errors.Join(fill(f), f.Sync())
	return errors.Join(err, f.Close())
}

func writeChange(w io.Writer, ch Change) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		From    State     `json:"from"`
		To      State     `json:"to"`
		Causes  []Cause   `json:"causes"`
		Figures Figures   `json:"figures"`
		At      time.Time `json:"at"`
	}{ch.From, ch.To, ch.Causes, ch.Figures, ch.At})
}

// prune removes the oldest capture folders until at most maxN remain and
// they hold at most maxBytes; the newest always stays.
func (c *capturer) prune() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type capDir struct {
		name string
		size int64
	}
	var caps []capDir
	var total int64
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), capturePrefix) {
			continue
		}
		d := capDir{name: e.Name(), size: dirSize(filepath.Join(c.dir, e.Name()))}
		caps, total = append(caps, d), total+d.size
	}
	slices.SortFunc(caps, func(a, b capDir) int { return strings.Compare(a.name, b.name) })
	for len(caps) > 1 && (len(caps) > c.maxN || total > c.maxBytes) {
		if os.RemoveAll(filepath.Join(c.dir, caps[0].name)) != nil {
			return
		}
		total -= caps[0].size
		caps = caps[1:]
	}
}

func dirSize(dir string) int64 {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

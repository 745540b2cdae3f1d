package gchealth

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"time"

	"github.com/writegc/writegc/internal/atomicfile"
)

// Capture files, inside each capture folder. explain detects a file's
// type from its content; these are the names gcstress uses.
const (
	FlightFile = "flight.out"  // the flight recorder's last seconds
	HeapFile   = "heap.pprof"  // a heap profile (inuse and alloc)
	ChangeFile = "change.json" // the Change that called for the capture, with the Monitor's id
)

// captureFiles are the only names a capture folder of this package holds.
var captureFiles = []string{FlightFile, HeapFile, ChangeFile}

// capturePrefix starts every capture folder's name, tmpPrefix every folder
// still being written; both are followed by the Monitor's id.
const (
	capturePrefix = "gchealth-"
	tmpPrefix     = ".tmp-gchealth-"
	idBytes       = 6 // a Monitor id is 12 hex digits
	// maxChangeJSON bounds the change.json read back to prove a folder is
	// this Monitor's (a few hundred bytes written).
	maxChangeJSON = 64 << 10
)

// captureName is a capture folder's exact name: prefix, Monitor id, UTC
// time, sequence, state.
var captureName = regexp.MustCompile(`^gchealth-[0-9a-f]{12}-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z-[0-9]{4}-(degraded|failing)$`)

// newID returns a Monitor id: random, so that two Monitors (two replicas,
// or a process and its restart) sharing a CaptureDir never share one.
func newID() string {
	b := make([]byte, idBytes)
	rand.Read(b) // never fails (crypto/rand crashes the program instead)
	return hex.EncodeToString(b)
}

// errFlightRecorder: the runtime's flight recorder did not start.
var errFlightRecorder = errors.New("flight recorder unavailable")

// syncFile is what a capture writes into: an *os.File, or a test's fake.
type syncFile interface {
	io.Writer
	Sync() error
	Close() error
}

// ownCapture is a capture folder this capturer wrote: its name, the bytes
// of its files, and its directory's identity when it was renamed into
// place (os.SameFile proves a folder found later is that one).
type ownCapture struct {
	name string
	size int64
	info fs.FileInfo
}

// capturer writes captures into one folder. Only the Monitor's goroutine
// uses it, and close after that goroutine ended. It removes nothing but
// the folders listed in caps, each checked first (remove).
type capturer struct {
	dir      string
	id       string
	maxN     int
	maxBytes int64
	every    time.Duration
	last     time.Time
	lastTo   State // the state of the last capture written
	seq      int
	caps     []ownCapture // oldest first
	fr       *trace.FlightRecorder
	frErr    error
	create   func(path string) (syncFile, error)
}

func newCapturer(o Options, id string) *capturer {
	c := &capturer{dir: o.CaptureDir, id: id, maxN: o.MaxCaptures, maxBytes: o.MaxCaptureBytes, every: o.CaptureEvery,
		create: func(p string) (syncFile, error) { return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644) }}
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: o.FlightWindow, MaxBytes: o.FlightMaxBytes})
	if err := fr.Start(); err != nil {
		c.frErr = fmt.Errorf("%w: %v", errFlightRecorder, err)
	} else {
		c.fr = fr
	}
	return c
}

func (c *capturer) close() {
	if c.fr != nil {
		c.fr.Stop()
	}
}

// due says whether ch calls for a capture now, and if not, why: a
// transition into a state worse than the last capture's always does; one
// within CaptureEvery of the last capture otherwise does not.
func (c *capturer) due(ch Change) (bool, string) {
	if c.last.IsZero() || ch.To.Rank() > c.lastTo.Rank() {
		return true, ""
	}
	if ago := ch.At.Sub(c.last); ago < c.every {
		return false, fmt.Sprintf("within CaptureEvery (%v): the last capture, into %s, was %v ago", c.every, c.lastTo, ago.Round(time.Millisecond))
	}
	return true, ""
}

// capture writes one capture folder for ch and prunes this capturer's old
// ones; the caller checked due. It returns the files written; on failure
// nothing of this capture is left and the error wraps ErrCapture. A flight
// recorder that could not start leaves the heap profile written and the
// error reported.
func (c *capturer) capture(ch Change) ([]string, error) {
	c.last, c.lastTo = ch.At, ch.To
	c.seq++
	name := fmt.Sprintf("%s%s-%s-%04d-%s", capturePrefix, c.id, ch.At.UTC().Format("20060102T150405.000Z"), c.seq%10000, ch.To)
	files, err := c.write(name, ch)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCapture, filepath.Join(c.dir, name), err)
	}
	c.prune()
	if c.frErr != nil {
		return files, fmt.Errorf("%w: no %s: %w", ErrCapture, FlightFile, c.frErr)
	}
	return files, nil
}

// write writes the folder under a temporary name, syncs it, renames it and
// records it as this capturer's.
func (c *capturer) write(name string, ch Change) ([]string, error) {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(c.dir, tmpPrefix+c.id+"-")
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok { // only the files this call created, then the (empty) folder
			for _, n := range captureFiles {
				os.Remove(filepath.Join(tmp, n))
			}
			os.Remove(tmp)
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
	if err := c.writeFile(filepath.Join(tmp, ChangeFile), func(w io.Writer) error { return writeChange(w, c.id, ch) }); err != nil {
		return nil, err
	}
	if err := atomicfile.SyncDir(tmp); err != nil {
		return nil, err
	}
	own := ownCapture{name: name}
	for _, n := range names {
		if fi, err := os.Lstat(filepath.Join(tmp, n)); err == nil {
			own.size += fi.Size()
		}
	}
	final := filepath.Join(c.dir, name)
	if err := os.Rename(tmp, final); err != nil {
		return nil, err
	}
	ok = true
	if own.info, err = os.Lstat(final); err == nil && own.info.IsDir() {
		c.caps = append(c.caps, own)
	}
	if err := atomicfile.SyncDir(c.dir); err != nil {
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

// changeJSON is change.json: the Change, and the id of the Monitor that
// wrote the folder (what prune checks before it removes anything).
type changeJSON struct {
	Monitor string    `json:"monitor"`
	From    State     `json:"from"`
	To      State     `json:"to"`
	Causes  []Cause   `json:"causes"`
	Figures Figures   `json:"figures"`
	At      time.Time `json:"at"`
}

func writeChange(w io.Writer, id string, ch Change) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(changeJSON{id, ch.From, ch.To, ch.Causes, ch.Figures, ch.At})
}

// prune removes this capturer's oldest capture folders until at most maxN
// remain and they hold at most maxBytes; the newest always stays. A folder
// that is no longer provably its own (remove says why) is forgotten, left
// as it is, and no longer counted.
func (c *capturer) prune() {
	var total int64
	for _, o := range c.caps {
		total += o.size
	}
	for len(c.caps) > 1 && (len(c.caps) > c.maxN || total > c.maxBytes) {
		old := c.caps[0]
		if err := c.remove(old); errors.Is(err, errNotOwn) || err == nil {
			total -= old.size
			c.caps = slices.Delete(c.caps, 0, 1)
			continue
		}
		return // it could not be removed now (permissions, I/O): try again at the next capture
	}
}

// errNotOwn: a folder is not (or no longer) provably this capturer's.
var errNotOwn = errors.New("not this monitor's capture")

// remove removes capture folder o after proving it is this capturer's:
// its exact name, the very directory renamed into place (os.SameFile),
// only regular files named in captureFiles, and a change.json naming this
// Monitor's id. It removes those files one by one, through a handle on the
// proven directory, then the empty folder; it never removes recursively,
// so a file someone added since the check stops it.
func (c *capturer) remove(o ownCapture) error {
	if !captureName.MatchString(o.name) {
		return errNotOwn
	}
	path := filepath.Join(c.dir, o.name)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return errNotOwn // someone removed it: nothing of ours left to count
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() || !os.SameFile(fi, o.info) {
		return errNotOwn
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return err
	}
	defer root.Close()
	files, err := c.ownFiles(root, o.info)
	if err != nil {
		return err
	}
	for _, n := range files {
		if err := root.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if fi, err := os.Lstat(path); err != nil || !os.SameFile(fi, o.info) {
		return errNotOwn
	}
	if err := os.Remove(path); err != nil { // not empty: someone added a file after the check
		return errNotOwn
	}
	return nil
}

// ownFiles checks the directory open at root: it is the one recorded
// (info), holds only regular files named in captureFiles, and its
// change.json names this Monitor. It returns the files' names.
func (c *capturer) ownFiles(root *os.Root, info fs.FileInfo) ([]string, error) {
	if fi, err := root.Stat("."); err != nil || !os.SameFile(fi, info) {
		return nil, errNotOwn
	}
	d, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	ents, err := d.ReadDir(len(captureFiles) + 1) // bounded: one more than a capture holds
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(ents) > len(captureFiles) {
		return nil, errNotOwn
	}
	var names []string
	for _, e := range ents {
		if !e.Type().IsRegular() || !slices.Contains(captureFiles, e.Name()) {
			return nil, errNotOwn
		}
		names = append(names, e.Name())
	}
	f, err := root.Open(ChangeFile)
	if err != nil {
		return nil, errNotOwn
	}
	defer f.Close()
	var cj changeJSON
	if err := json.NewDecoder(io.LimitReader(f, maxChangeJSON)).Decode(&cj); err != nil || cj.Monitor != c.id {
		return nil, errNotOwn
	}
	return names, nil
}

// errorClass names the class of a capture failure for the status page and
// JSON, which must not show paths or the OS's own text (Change.CaptureErr,
// for the service's own code, has both).
func errorClass(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errFlightRecorder):
		return "capture incomplete: flight recorder unavailable (one per process)"
	case diskFull(err):
		return "capture failed: disk full"
	case readOnly(err):
		return "capture failed: read-only file system"
	case errors.Is(err, fs.ErrPermission):
		return "capture failed: permission denied"
	case errors.Is(err, fs.ErrNotExist) || notADir(err):
		return "capture failed: capture folder missing or not a folder"
	}
	return "capture failed: write error"
}

// relative returns files (inside dir) as paths relative to dir, for the
// status page and JSON.
func relative(dir string, files []string) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		if r, err := filepath.Rel(dir, f); err == nil && filepath.IsLocal(r) {
			out = append(out, filepath.ToSlash(r))
		}
	}
	return out
}

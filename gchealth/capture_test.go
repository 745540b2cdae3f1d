package gchealth

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// testCapturer is a capturer of its own id on dir keeping maxN captures,
// one capture allowed per call (CaptureEvery 1 ns), closed at cleanup.
func testCapturer(t *testing.T, dir string, maxN int) *capturer {
	t.Helper()
	o := Options{CaptureDir: dir, MaxCaptures: maxN, CaptureEvery: time.Nanosecond, MaxCaptureBytes: 1 << 40}
	if _, err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	c := newCapturer(o, newID())
	t.Cleanup(c.close)
	return c
}

// tree maps every path under dir (relative, slash-separated) to its
// contents ("<dir>" for a folder, "-> target" for a link).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == ".":
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[filepath.ToSlash(rel)] = "-> " + target
		case d.IsDir():
			out[filepath.ToSlash(rel)] = "<dir>"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mkfile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// captureN has c write n captures into degraded, a second apart, and
// returns their folders' names.
func captureN(t *testing.T, c *capturer, n int, at time.Time) []string {
	t.Helper()
	var names []string
	for i := range n {
		files, err := c.capture(Change{From: Healthy, To: Degraded, At: at.Add(time.Duration(i) * time.Second)})
		if err != nil && !errors.Is(err, errFlightRecorder) { // one recorder per process: a second capturer has none
			t.Fatal(err)
		}
		names = append(names, filepath.Base(filepath.Dir(files[0])))
	}
	return names
}

// TestPruneLeavesForeignFolders: what a CaptureDir holds besides a
// Monitor's own captures survives its pruning unchanged, however it is
// named: a user's folder with the capture prefix and data inside, a
// folder in the old capture name format, another Monitor's capture with
// its own id, a half-written folder of another Monitor, plain files.
func TestPruneLeavesForeignFolders(t *testing.T) {
	dir := t.TempDir()
	foreign := map[string]string{
		"gchealth-0-keep/sub/data":                                             "user data",
		"gchealth-20000101T000000.000Z-0001-degraded/flight.out":               "old format",
		"gchealth-00000000abcd-20000101T000000.000Z-0001-degraded/heap.pprof":  "another monitor",
		"gchealth-00000000abcd-20000101T000000.000Z-0001-degraded/change.json": `{"monitor":"00000000abcd"}`,
		".tmp-gchealth-00000000abcd-123/heap.pprof":                            "half written",
		"gchealth-notes.txt":                                                   "a file",
	}
	for p, data := range foreign {
		mkfile(t, filepath.Join(dir, p), data)
	}
	before := tree(t, dir)
	c := testCapturer(t, dir, 2)
	own := captureN(t, c, 5, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	after := tree(t, dir)
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: %q, was %q", p, after[p], v)
		}
	}
	for i, n := range own {
		_, kept := after[n]
		if kept != (i >= 3) {
			t.Errorf("own capture %d (%s): kept %v, want only the last two", i, n, kept)
		}
	}
}

// TestTwoMonitorsOneDir: two Monitors sharing a CaptureDir each keep their
// own MaxCaptures and never remove the other's; New leaves another
// Monitor's half-written folder alone.
func TestTwoMonitorsOneDir(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, tmpPrefix+"00000000abcd-42")
	mkfile(t, filepath.Join(tmp, HeapFile), "being written")
	m := newMonitor(t, Options{Window: time.Hour, CaptureDir: dir})
	if _, err := os.Stat(filepath.Join(tmp, HeapFile)); err != nil {
		t.Fatalf("New removed another monitor's temporary folder: %v", err)
	}
	a, b := testCapturer(t, dir, 2), testCapturer(t, dir, 2)
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var an, bn []string
	for i := range 4 {
		an = append(an, captureN(t, a, 1, at.Add(time.Duration(2*i)*time.Second))...)
		bn = append(bn, captureN(t, b, 1, at.Add(time.Duration(2*i+1)*time.Second))...)
	}
	got := tree(t, dir)
	for _, n := range append(an[2:], bn[2:]...) {
		if got[n] != "<dir>" || got[n+"/"+ChangeFile] == "" {
			t.Errorf("%s: missing; dir holds %v", n, slices.Sorted(mapsKeys(got)))
		}
	}
	for _, n := range append(an[:2], bn[:2]...) {
		if _, ok := got[n]; ok {
			t.Errorf("%s: not pruned by its own monitor", n)
		}
	}
	if !strings.Contains(an[0], a.id) || strings.Contains(an[0], b.id) || m.ID() == "" || m.ID() == a.id {
		t.Errorf("names %v %v, ids %s %s %s", an, bn, m.ID(), a.id, b.id)
	}
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestPruneProvesOwnership: a Monitor's own capture that something else
// changed since it was written is no longer provably its own and is left
// untouched: a file added into it, the folder replaced by another one of
// the same name (with a change.json naming the Monitor), the folder
// replaced by a link to a user's folder, a change.json rewritten.
func TestPruneProvesOwnership(t *testing.T) {
	for name, tamper := range map[string]func(t *testing.T, c *capturer, folder string){
		"file added": func(t *testing.T, _ *capturer, folder string) {
			mkfile(t, filepath.Join(folder, "notes"), "mine")
		},
		"folder replaced": func(t *testing.T, c *capturer, folder string) {
			os.Rename(folder, folder+".moved")
			mkfile(t, filepath.Join(folder, ChangeFile), `{"monitor":"`+c.id+`"}`)
		},
		"link to a user's folder": func(t *testing.T, _ *capturer, folder string) {
			user := filepath.Join(t.TempDir(), "user")
			mkfile(t, filepath.Join(user, HeapFile), "user data")
			os.Rename(folder, folder+".moved")
			if err := os.Symlink(user, folder); err != nil {
				t.Skip(err)
			}
		},
		"change.json of another monitor": func(t *testing.T, _ *capturer, folder string) {
			mkfile(t, filepath.Join(folder, ChangeFile), `{"monitor":"00000000abcd"}`)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c := testCapturer(t, dir, 1)
			at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			first := captureN(t, c, 1, at)[0]
			folder := filepath.Join(dir, first)
			tamper(t, c, folder)
			before := tree(t, dir)
			captureN(t, c, 2, at.Add(time.Minute))
			after := tree(t, dir)
			for p, v := range before {
				if strings.HasPrefix(p, first) && after[p] != v {
					t.Errorf("%s: %q, was %q", p, after[p], v)
				}
			}
			if len(c.caps) != 1 {
				t.Errorf("still counts %d captures as its own, want the newest only", len(c.caps))
			}
		})
	}
}

// TestStatusHidesPaths: the JSON and the page name a capture relative to
// CaptureDir and a failure by its class, never CaptureDir's absolute path
// or the OS's error text (Change.CaptureErr, for the service, has both).
func TestStatusHidesPaths(t *testing.T) {
	dir := t.TempDir()
	m := newMonitor(t, Options{Window: time.Hour, CaptureDir: dir})
	ch := degrade(t, m)
	if ch.CaptureErr != nil && !errors.Is(ch.CaptureErr, errFlightRecorder) {
		t.Fatal(ch.CaptureErr)
	}
	check := func(what string, wantErr string) {
		t.Helper()
		st := m.State()
		js, _ := json.Marshal(st)
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		for _, body := range []string{string(js), rec.Body.String()} {
			if strings.Contains(body, dir) || strings.Contains(body, "no space") {
				t.Errorf("%s: shows a path or OS text: %.300s", what, body)
			}
		}
		if st.LastCaptureError != wantErr {
			t.Errorf("%s: last_capture_error %q, want %q", what, st.LastCaptureError, wantErr)
		}
	}
	check("written", errorClass(ch.CaptureErr))
	if st := m.State(); len(st.LastCapture) < 2 || !strings.HasPrefix(st.LastCapture[0], capturePrefix+m.ID()+"-") ||
		filepath.IsAbs(st.LastCapture[0]) {
		t.Errorf("last_capture %v", st.LastCapture)
	}
	m2 := newMonitor(t, Options{Window: time.Hour, CaptureDir: t.TempDir()})
	m2.cap.create = func(p string) (syncFile, error) {
		f, err := os.Create(p)
		return fullFile{f}, err
	}
	m = m2
	dir = m2.opts.CaptureDir
	if ch := degrade(t, m2); !strings.Contains(ch.CaptureErr.Error(), "no space") || !strings.Contains(ch.CaptureErr.Error(), dir) {
		t.Errorf("Change.CaptureErr lost its details: %v", ch.CaptureErr)
	}
	check("disk full", "capture failed: disk full")
}

// The writer of a gcstress results folder: every
// file written atomically (WriteAtomic: a temporary file in the folder,
// fsync, rename, fsync of the folder) and listed in the folder's manifest
// (ManifestFile, with each file's size and SHA-256 and the folders a run
// created), and Clear, which removes an earlier run's files as its
// manifest lists them (-replace-out). Files is report.Sink. Prepare makes
// a folder ready for a run (created, writable, empty unless -replace-out)
// and NewDir names a run's default one.
//
// Invariants:
//   - A file is listed in the manifest before it is renamed into place,
//     and the manifest itself is written atomically, so at any moment it
//     accounts for every file of the folder a run wrote.
//   - A failed write, sync or rename is an error wrapping ErrWrite that
//     names the file; nothing partial is left under the file's name.
//   - Clear removes only what a manifest lists and is still as recorded
//     (size and SHA-256), then the folders it created once empty; a
//     folder with files but no manifest, or one where a name this run
//     writes would land on an unaccounted file, is refused (ErrUsage) with
//     nothing removed.
//   - A manifest read back is bounded (maxManifestBytes, maxManifestEntries)
//     before it is decoded; its paths must stay inside the folder.
//   - Files is used from one goroutine at a time.
//   - A folder that is not empty is refused by Prepare (ErrUsage, naming
//     -out) unless replace is set; NewDir never names a folder that holds
//     files.

package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/writegc/writegc/internal/inputfile"
)

// Every results folder holds a Manifest, ManifestFile: the files a run (or
// `gcstress report`) wrote there, each with its size and SHA-256, and the
// folders it created. It is rewritten, atomically, after every file, so at
// any moment it lists what is on disk; samples.jsonl is listed from the
// start as partial (it grows while the run goes) and with its digest once
// the run has closed it. A file is listed before it is renamed into
// place, so a Manifest never misses a file of the folder. -replace-out removes only what a Manifest lists
// and is still as recorded (Prepare), never a file a run did not write.

// ManifestFile is the name of the Manifest in a results folder, as
// documented. LegacyManifestFile is the name versions before it wrote by
// mistake: ReadManifest falls back to it, Clear removes it, and Save
// replaces it (a rebuild of an older folder renames its Manifest).
const (
	ManifestFile       = ".gcstress-manifest.json"
	LegacyManifestFile = ".gcstress-Manifest.json"
)

const (
	ManifestTool    = "gcstress"
	ManifestVersion = 1
	// maxManifestBytes and maxManifestEntries bound a Manifest read back
	// (a run writes a few dozen entries, a capacity search a few hundred).
	maxManifestBytes   = 8 << 20
	maxManifestEntries = 50_000
)

// Manifest is the JSON of ManifestFile. A plain value.
type Manifest struct {
	Tool    string       `json:"tool"`
	Version int          `json:"version"`
	Files   []FileRecord `json:"files"`
	Dirs    []string     `json:"dirs,omitempty"` // folders the run created, slash-separated, relative
}

// Files writes the files of one results folder, each atomically
// (WriteAtomic), and keeps the folder's Manifest. Used from one goroutine
// (Run's); it lives as long as the run or the report rebuild that made it.
type Files struct {
	dir    string
	create CreateTempFunc // nil: os.CreateTemp
	man    Manifest
}

// New starts an empty Manifest for a new run's folder.
func New(dir string, create CreateTempFunc) *Files {
	return &Files{dir: dir, create: create, man: Manifest{Tool: ManifestTool, Version: ManifestVersion}}
}

// Open continues the Manifest of dir, or starts one when dir has
// none (a folder written before manifests, or not by a run).
func Open(dir string, create CreateTempFunc) (*Files, error) {
	o := New(dir, create)
	m, err := ReadManifest(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		o.man = *m
	}
	return o, nil
}

// write writes the file name (slash-separated, relative to the folder)
// with fn, atomically, and records it. The Manifest naming the new file is
// saved before the file is renamed into place, so whatever fails, the
// Manifest accounts for every file of the folder: a failed save leaves
// the earlier file (or none), a failed rename the earlier record.
func (o *Files) Write(name string, fn func(io.Writer) error) error {
	pf, err := prepareAtomic(o.create, o.Path(name), fn)
	if err != nil {
		return err
	}
	prev := slices.Clone(o.man.Files)
	rec := pf.rec
	rec.Path = name
	o.put(rec)
	if err := o.Save(); err != nil {
		pf.abort()
		o.man.Files = prev
		return fmt.Errorf("%s not written: %w", o.Path(name), err)
	}
	if err := pf.commit(); err != nil {
		o.man.Files = prev
		_ = o.Save() // best effort: the earlier file's record again; the error below is what matters
		return err
	}
	return nil
}

// Path is where the file name (slash-separated, relative) is on disk.
func (o *Files) Path(name string) string { return filepath.Join(o.dir, filepath.FromSlash(name)) }

// put adds rec to the Manifest, replacing an earlier record of its path.
func (o *Files) put(rec FileRecord) {
	for i := range o.man.Files {
		if o.man.Files[i].Path == rec.Path {
			o.man.Files[i] = rec
			return
		}
	}
	o.man.Files = append(o.man.Files, rec)
}

// recordFile records the file name written otherwise (samples.jsonl,
// a child's captures): partial without a digest, or with its size and
// SHA-256 read back. It does not save.
func (o *Files) RecordFile(name string, partial bool) error {
	rec := FileRecord{Partial: true}
	if !partial {
		var err error
		if rec, err = digestFile(o.Path(name)); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrWrite, o.Path(name), err)
		}
	}
	rec.Path = name
	o.put(rec)
	return nil
}

// recordDir records that the run created (or is about to create) the
// folder name. It does not save.
func (o *Files) RecordDir(name string) {
	if !slices.Contains(o.man.Dirs, name) {
		o.man.Dirs = append(o.man.Dirs, name)
	}
}

// ownsDir reports whether the Manifest lists the folder name.
func (o *Files) OwnsDir(name string) bool { return slices.Contains(o.man.Dirs, name) }

// recordTree records the folder name and every regular file directly in
// it (a scenario's captures), then saves. A missing folder records
// nothing.
func (o *Files) RecordTree(name string) error {
	ents, err := os.ReadDir(o.Path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrWrite, o.Path(name), err)
	}
	o.RecordDir(name)
	for _, e := range ents {
		if e.Type().IsRegular() {
			if err := o.RecordFile(name+"/"+e.Name(), false); err != nil {
				return err
			}
		}
	}
	return o.Save()
}

// save writes the Manifest, atomically.
func (o *Files) Save() error {
	b, err := json.MarshalIndent(o.man, "", "  ")
	if err != nil {
		panic("gcstress: Manifest: " + err.Error()) // plain values
	}
	_, err = WriteAtomic(o.create, o.Path(ManifestFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return err
	}
	return removeLegacyManifest(o.dir)
}

// removeLegacyManifest removes dir's LegacyManifestFile once ManifestFile
// is there, unless the two names are one file (a case-insensitive file
// system). A failure wraps ErrWrite and names the file.
func removeLegacyManifest(dir string) error {
	legacy := filepath.Join(dir, LegacyManifestFile)
	old, err := os.Lstat(legacy)
	if err != nil {
		return nil // none (or unreadable: ReadManifest prefers ManifestFile anyway)
	}
	if cur, err := os.Lstat(filepath.Join(dir, ManifestFile)); err != nil || os.SameFile(old, cur) {
		return nil
	}
	if err := os.Remove(legacy); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: remove %s: %w", ErrWrite, legacy, err)
	}
	return nil
}

// ReadManifest reads dir's Manifest, ManifestFile or, in a folder written
// before that name, LegacyManifestFile; an error wrapping fs.ErrNotExist
// when there is neither. A Manifest that is not a regular file, is too
// large, or names a path outside the folder (absolute, "..", deeper than a
// scenario folder's files) is refused whole.
func ReadManifest(dir string) (*Manifest, error) {
	p := filepath.Join(dir, ManifestFile)
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(filepath.Join(dir, LegacyManifestFile)); lerr == nil {
			p = filepath.Join(dir, LegacyManifestFile)
		}
	}
	return readManifest(p)
}

// readManifest reads and checks the Manifest at p.
func readManifest(p string) (*Manifest, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxManifestBytes {
		return nil, fmt.Errorf("gcstress: %s: not a Manifest (a regular file of at most %d bytes)", p, maxManifestBytes)
	}
	b, err := inputfile.ReadFile(p, maxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("gcstress: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("gcstress: %s: %w", p, err)
	}
	if m.Tool != ManifestTool || m.Version != ManifestVersion {
		return nil, fmt.Errorf("gcstress: %s: tool %q version %d, want %s %d", p, m.Tool, m.Version, ManifestTool, ManifestVersion)
	}
	if len(m.Files)+len(m.Dirs) > maxManifestEntries {
		return nil, fmt.Errorf("gcstress: %s: %d entries, more than %d", p, len(m.Files)+len(m.Dirs), maxManifestEntries)
	}
	for _, f := range m.Files {
		if !manifestPath(f.Path, 2) {
			return nil, fmt.Errorf("gcstress: %s: file %q is not a path inside the folder", p, f.Path)
		}
	}
	for _, d := range m.Dirs {
		if !manifestPath(d, 1) {
			return nil, fmt.Errorf("gcstress: %s: folder %q is not a path inside the folder", p, d)
		}
	}
	return &m, nil
}

// manifestPath reports whether p is a clean, local, slash-separated path
// of at most depth components, other than the Manifest itself.
func manifestPath(p string, depth int) bool {
	return p != "" && p != ManifestFile && p != LegacyManifestFile && path.Clean(p) == p && filepath.IsLocal(filepath.FromSlash(p)) &&
		!strings.Contains(p, `\`) && strings.Count(p, "/") < depth
}

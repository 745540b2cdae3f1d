package gcstress

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
)

// Every results folder holds a manifest, ManifestFile: the files a run (or
// `gcstress report`) wrote there, each with its size and SHA-256, and the
// folders it created. It is rewritten, atomically, after every file, so at
// any moment it lists what is on disk; samples.jsonl is listed from the
// start as partial (it grows while the run goes) and with its digest once
// the run has closed it. A file is listed before it is renamed into
// place, so a manifest never misses a file of the folder. -replace-out removes only what a manifest lists
// and is still as recorded (outdir.go), never a file a run did not write.

// ManifestFile is the name of the manifest in a results folder.
const ManifestFile = ".gcstress-manifest.json"

const (
	manifestTool    = "gcstress"
	manifestVersion = 1
	// maxManifestBytes and maxManifestEntries bound a manifest read back
	// (a run writes a few dozen entries, a capacity search a few hundred).
	maxManifestBytes   = 8 << 20
	maxManifestEntries = 50_000
)

// manifest is the JSON of ManifestFile. A plain value.
type manifest struct {
	Tool    string       `json:"tool"`
	Version int          `json:"version"`
	Files   []fileRecord `json:"files"`
	Dirs    []string     `json:"dirs,omitempty"` // folders the run created, slash-separated, relative
}

// outFiles writes the files of one results folder, each atomically
// (writeAtomic), and keeps the folder's manifest. Used from one goroutine
// (Run's); it lives as long as the run or the report rebuild that made it.
type outFiles struct {
	dir    string
	create createTempFunc // nil: os.CreateTemp
	man    manifest
}

// newOutFiles starts an empty manifest for a new run's folder.
func newOutFiles(dir string, create createTempFunc) *outFiles {
	return &outFiles{dir: dir, create: create, man: manifest{Tool: manifestTool, Version: manifestVersion}}
}

// openOutFiles continues the manifest of dir, or starts one when dir has
// none (a folder written before manifests, or not by a run).
func openOutFiles(dir string, create createTempFunc) (*outFiles, error) {
	o := newOutFiles(dir, create)
	m, err := readManifest(dir)
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
// with fn, atomically, and records it. The manifest naming the new file is
// saved before the file is renamed into place, so whatever fails, the
// manifest accounts for every file of the folder: a failed save leaves
// the earlier file (or none), a failed rename the earlier record.
func (o *outFiles) write(name string, fn func(io.Writer) error) error {
	pf, err := prepareAtomic(o.create, o.path(name), fn)
	if err != nil {
		return err
	}
	prev := slices.Clone(o.man.Files)
	rec := pf.rec
	rec.Path = name
	o.put(rec)
	if err := o.save(); err != nil {
		pf.abort()
		o.man.Files = prev
		return fmt.Errorf("%s not written: %w", o.path(name), err)
	}
	if err := pf.commit(); err != nil {
		o.man.Files = prev
		_ = o.save() // best effort: the earlier file's record again; the error below is what matters
		return err
	}
	return nil
}

// Write is write: outFiles is the report package's Sink.
func (o *outFiles) Write(name string, fn func(io.Writer) error) error { return o.write(name, fn) }

func (o *outFiles) path(name string) string { return filepath.Join(o.dir, filepath.FromSlash(name)) }

// put adds rec to the manifest, replacing an earlier record of its path.
func (o *outFiles) put(rec fileRecord) {
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
func (o *outFiles) recordFile(name string, partial bool) error {
	rec := fileRecord{Partial: true}
	if !partial {
		var err error
		if rec, err = digestFile(o.path(name)); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrWrite, o.path(name), err)
		}
	}
	rec.Path = name
	o.put(rec)
	return nil
}

// recordDir records that the run created (or is about to create) the
// folder name. It does not save.
func (o *outFiles) recordDir(name string) {
	if !slices.Contains(o.man.Dirs, name) {
		o.man.Dirs = append(o.man.Dirs, name)
	}
}

// ownsDir reports whether the manifest lists the folder name.
func (o *outFiles) ownsDir(name string) bool { return slices.Contains(o.man.Dirs, name) }

// recordTree records the folder name and every regular file directly in
// it (a scenario's captures), then saves. A missing folder records
// nothing.
func (o *outFiles) recordTree(name string) error {
	ents, err := os.ReadDir(o.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrWrite, o.path(name), err)
	}
	o.recordDir(name)
	for _, e := range ents {
		if e.Type().IsRegular() {
			if err := o.recordFile(name+"/"+e.Name(), false); err != nil {
				return err
			}
		}
	}
	return o.save()
}

// save writes the manifest, atomically.
func (o *outFiles) save() error {
	b, err := json.MarshalIndent(o.man, "", "  ")
	if err != nil {
		panic("gcstress: manifest: " + err.Error()) // plain values
	}
	_, err = writeAtomic(o.create, o.path(ManifestFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	return err
}

// readManifest reads dir's manifest; an error wrapping fs.ErrNotExist when
// there is none. A manifest that is not a regular file, is too large, or
// names a path outside the folder (absolute, "..", deeper than a scenario
// folder's files) is refused whole.
func readManifest(dir string) (*manifest, error) {
	p := filepath.Join(dir, ManifestFile)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxManifestBytes {
		return nil, fmt.Errorf("gcstress: %s: not a manifest (a regular file of at most %d bytes)", p, maxManifestBytes)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("gcstress: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("gcstress: %s: %w", p, err)
	}
	if m.Tool != manifestTool || m.Version != manifestVersion {
		return nil, fmt.Errorf("gcstress: %s: tool %q version %d, want %s %d", p, m.Tool, m.Version, manifestTool, manifestVersion)
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
// of at most depth components, other than the manifest itself.
func manifestPath(p string, depth int) bool {
	return p != "" && p != ManifestFile && path.Clean(p) == p && filepath.IsLocal(filepath.FromSlash(p)) &&
		!strings.Contains(p, `\`) && strings.Count(p, "/") < depth
}

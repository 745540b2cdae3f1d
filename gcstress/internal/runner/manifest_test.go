package runner

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

func writeOne(t *testing.T, o *Files, name, body string) {
	t.Helper()
	if err := o.Write(name, func(w io.Writer) error { _, err := io.WriteString(w, body); return err }); err != nil {
		t.Fatal(err)
	}
}

// TestManifestNameIsDocumented: a run writes its Manifest under the name the
// README and the -replace-out help give, .gcstress-manifest.json (the old
// code wrote .gcstress-Manifest.json).
func TestManifestNameIsDocumented(t *testing.T) {
	dir := t.TempDir()
	writeOne(t, New(dir, nil), "report.md", "# r\n")
	if got, want := testkit.Names(t, dir), []string{".gcstress-manifest.json", "report.md"}; !slices.Equal(got, want) {
		t.Fatalf("folder holds %v, want %v", got, want)
	}
}

// TestLegacyManifestStillRead: a folder written by an older version, its
// Manifest named .gcstress-Manifest.json, is still read; a rebuild there
// (Open, Write) leaves the Manifest under the documented name only, still
// listing the older files; Clear of a legacy-only folder removes its files
// and the legacy Manifest.
func TestLegacyManifestStillRead(t *testing.T) {
	legacyFolder := func() string {
		dir := t.TempDir()
		writeOne(t, New(dir, nil), "old.txt", "old\n")
		if err := os.Rename(filepath.Join(dir, ManifestFile), filepath.Join(dir, LegacyManifestFile)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := legacyFolder()
	m, err := ReadManifest(dir)
	if err != nil || len(m.Files) != 1 || m.Files[0].Path != "old.txt" {
		t.Fatalf("legacy Manifest: %+v, %v", m, err)
	}
	o, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeOne(t, o, "new.txt", "new\n")
	cur, err := os.Stat(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatalf("no %s after a rebuild: %v", ManifestFile, testkit.Names(t, dir))
	}
	if old, err := os.Stat(filepath.Join(dir, LegacyManifestFile)); err == nil && !os.SameFile(old, cur) {
		t.Fatalf("after a rebuild the folder holds both Manifests: %v", testkit.Names(t, dir))
	}
	if m, err := ReadManifest(dir); err != nil || len(m.Files) != 2 {
		t.Fatalf("migrated Manifest: %+v, %v", m, err)
	}

	dir = legacyFolder()
	kept, err := Clear(dir, func(string) bool { return false })
	if err != nil || len(kept) != 0 {
		t.Fatalf("Clear: kept %v, %v", kept, err)
	}
	if got := testkit.Names(t, dir); len(got) != 0 {
		t.Fatalf("Clear left %v", got)
	}
}

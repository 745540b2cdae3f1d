package gcstress

import "github.com/writegc/writegc/gcstress/internal/outfolder"

// The results folder's writer under the names the tests knew it by.
type (
	tempFile   = outfolder.TempFile
	fileRecord = outfolder.FileRecord
	manifest   = outfolder.Manifest
)

const (
	manifestTool    = outfolder.ManifestTool
	manifestVersion = outfolder.ManifestVersion
)

func readManifest(dir string) (*manifest, error) { return outfolder.ReadManifest(dir) }

func clearRun(dir string, runs func(string) bool) ([]string, error) {
	return outfolder.Clear(dir, runs)
}

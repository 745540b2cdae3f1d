package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/oskit"
)

// writeJSON writes the report as JSON to path ("-": stdout), replacing the
// file atomically: a reader sees the old report or the new one, never a
// part. err, the command's error, makes the status "error" and is named.
func writeJSON(rep *benchgate.Report, path string, stdout io.Writer, err error) error {
	j := rep.JSON()
	if err != nil {
		j.Status, j.Error = "error", err.Error()
	}
	data, merr := json.MarshalIndent(j, "", "  ")
	if merr != nil {
		return merr
	}
	data = append(data, '\n')
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to path through a synced temporary file in the
// same folder, renamed over path, and syncs the folder.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Chmod(0o644), f.Sync(), f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return oskit.SyncDir(filepath.Dir(path))
}

package main

import (
	"encoding/json"
	"io"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/atomicfile"
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
	return atomicfile.WriteBytes(path, data)
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/flagval"
)

// The flag convention of every subcommand: one -threshold (a percentage or
// a FILE of per-benchmark thresholds), -count for rounds, and -out DIR with
// -format for what is written there. The older names stay as deprecated
// synonyms (the CI scripts and actions of earlier releases pass them).

// thresholdFlag is -threshold: a percentage ("10%", or the fraction "0.1")
// or the path of a thresholds file (benchgate calibrate); it may be given
// twice, once each way. -thresholds FILE (deprecated) sets the file.
type thresholdFlag struct {
	pct  pctFlag
	file string
}

func (t *thresholdFlag) String() string {
	if t == nil {
		return ""
	}
	if t.file != "" {
		return t.pct.String() + " and " + t.file
	}
	return t.pct.String()
}

// Set reads a value that parses as a number (with or without %) as the
// percentage, anything else as a file: a mistyped percentage ("10 %")
// then fails when the file is read, naming the flag.
func (t *thresholdFlag) Set(s string) error {
	if numeric(s) {
		return t.pct.Set(s)
	}
	if s == "" {
		return errors.New("want a percentage like 10% or a thresholds FILE")
	}
	t.file = s
	return nil
}

// numeric reports whether s reads as a number, with or without a % sign.
func numeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	return err == nil
}

// fileFlag is the deprecated -thresholds FILE: it sets the file of a
// thresholdFlag.
type fileFlag struct{ t *thresholdFlag }

func (f fileFlag) String() string {
	if f.t == nil {
		return ""
	}
	return f.t.file
}

func (f fileFlag) Set(s string) error { f.t.file = s; return nil }

// Report formats -format writes into -out DIR, and their file names there.
const (
	formatMarkdown = "md"
	formatJSON     = "json"
)

var reportFiles = map[string]string{formatMarkdown: "report.md", formatJSON: "report.json"}

// parseFormats reads -format: comma-separated md and json, each once.
func parseFormats(s string) ([]string, error) {
	fs := flagval.List(s)
	for i, f := range fs {
		if _, ok := reportFiles[f]; !ok || slices.Contains(fs[:i], f) {
			return nil, fmt.Errorf("-format %q: want md, json or md,json (the text report always goes to stdout)", s)
		}
	}
	return fs, nil
}

// writeReports writes each of formats into dir as its reportFiles name
// (replaced, the JSON atomically); err is the command's error, which the
// JSON names.
func writeReports(rep *benchgate.Report, dir string, formats []string, stdout io.Writer, err error) error {
	if len(formats) == 0 {
		return nil
	}
	if mkErr := os.MkdirAll(dir, 0o755); mkErr != nil {
		return fmt.Errorf("-out: %w", mkErr)
	}
	for _, f := range formats {
		path := filepath.Join(dir, reportFiles[f])
		var werr error
		if f == formatJSON {
			werr = writeJSON(rep, path, stdout, err)
		} else {
			werr = writeOutput(path, os.O_TRUNC, stdout, rep.WriteMarkdown)
		}
		if werr != nil {
			return fmt.Errorf("-format %s: %w", f, werr)
		}
	}
	return nil
}

// synonym registers old as a deprecated name of the flag name already in fs.
func synonym(fs *flag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	fs.Var(f.Value, old, "deprecated: the same as -"+name)
}

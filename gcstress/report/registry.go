package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/writegc/writegc/gcstress/results"
)

// Name names a format: its -format value when it prints on a terminal.
// The values do not change.
type Name string

// Sink is where a format writes the files of a results folder: package
// gcstress's folder writer, which writes each file atomically (temporary
// file, fsync, rename) and lists it in the folder's manifest before it
// is renamed into place. Write's error wraps gcstress.ErrWrite and names
// the file; write's own error is returned as it is, wrapped likewise.
type Sink interface {
	Write(name string, write func(io.Writer) error) error
}

// When says which writes of a results folder include a format's files.
type When uint8

const (
	// AtRun is the end of a run (gcstress.Run, gcstress.WriteResults).
	AtRun When = 1 << iota
	// AtRebuild is `gcstress report DIR` (gcstress.RebuildReports):
	// summary.json and samples.jsonl are the inputs and are not rewritten.
	AtRebuild
)

// Format is one rendering of a run. A Format is a plain value; its
// functions only read the Summary and write to what they are given.
type Format struct {
	Name Name
	// Terminal prints the report on a terminal (Config.Format, -format);
	// nil: not a terminal format.
	Terminal func(w io.Writer, sum *results.Summary) error
	// Files writes the format's files of a results folder through sink;
	// written holds the names the formats before it in the registry
	// wrote in this write (report.md links the charts). It returns the
	// names it wrote. nil: the format writes no file.
	Files func(sink Sink, sum *results.Summary, written []string) ([]string, error)
	// Owns reports whether a name at the top of a results folder is one of
	// the format's files: -replace-out's list of what a run writes.
	Owns func(name string) bool
	// When says which folder writes include Files.
	When When
}

// registry is every format, in the order a results folder is written (a
// format may read the names those before it wrote). Adding a format is one
// file defining its Format, its line here and its golden file.
var registry = []Format{
	tableFormat,
	ycsbFormat,
	peFormat,
	jsonFormat,
	summaryFormat,
	benchFormat,
	chartsFormat,
	markdownFormat,
	htmlFormat,
}

// ErrUnknownFormat: a terminal format that is not in the registry.
var ErrUnknownFormat = errors.New("unknown format")

// Formats lists the terminal formats' names, in registry order.
func Formats() []string {
	var out []string
	for _, f := range registry {
		if f.Terminal != nil {
			out = append(out, string(f.Name))
		}
	}
	return out
}

// WriteTerminal prints sum's terminal report in the format named name (""
// is FormatTable). A name that is not a terminal format is an error
// wrapping ErrUnknownFormat.
func WriteTerminal(w io.Writer, name string, sum *results.Summary) error {
	if name == "" {
		name = string(FormatTable)
	}
	for _, f := range registry {
		if string(f.Name) == name && f.Terminal != nil {
			return f.Terminal(w, sum)
		}
	}
	return fmt.Errorf("%w %q", ErrUnknownFormat, name)
}

// WriteFolder writes, through sink, the files of every format whose When
// includes when, in registry order. It stops at the first error; the files
// written before it are whole.
func WriteFolder(sink Sink, sum *results.Summary, when When) error {
	var written []string
	for _, f := range registry {
		if f.Files == nil || f.When&when == 0 {
			continue
		}
		names, err := f.Files(sink, sum, written)
		if err != nil {
			return err
		}
		written = append(written, names...)
	}
	return nil
}

// Owns reports whether name, at the top of a results folder, is a file a
// format of the registry writes.
func Owns(name string) bool {
	for _, f := range registry {
		if f.Owns != nil && f.Owns(name) {
			return true
		}
	}
	return false
}

// one is Files for a format that writes one file, name, with write.
func one(name string, write func(w io.Writer, sum *results.Summary, written []string) error) func(Sink, *results.Summary, []string) ([]string, error) {
	return func(sink Sink, sum *results.Summary, written []string) ([]string, error) {
		if err := sink.Write(name, func(w io.Writer) error { return write(w, sum, written) }); err != nil {
			return nil, err
		}
		return []string{name}, nil
	}
}

// is is Owns for a format that writes the one file name.
func is(name string) func(string) bool { return func(n string) bool { return n == name } }

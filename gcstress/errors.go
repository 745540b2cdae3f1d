package gcstress

import (
	"errors"

	"github.com/writegc/writegc/gcstress/internal/child"
	"github.com/writegc/writegc/gcstress/internal/runner"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/internal/usage"
)

// Sentinel errors. Errors returned by this package wrap one of these; test
// with errors.Is.
var (
	// ErrUsage: bad command-line usage; the message names the flag. The
	// command exits 2.
	ErrUsage = usage.ErrUsage
	// ErrInterrupted: the run was stopped (Ctrl-C); the reports of what
	// finished were still written.
	ErrInterrupted = errors.New("interrupted")
	// ErrRSSCap: a child passed its hard resident-memory cap.
	ErrRSSCap = child.ErrRSSCap
	// ErrChild: the child-side of a scenario failed (bad spec, engine error).
	ErrChild = child.ErrChild
	// ErrStream: a scenario's stream could not be written (samples.jsonl,
	// a child's capture files, the child's own stream to its parent) or
	// read (a record over MaxRecord). A failed write is a tool failure:
	// the command exits 1, naming the file.
	ErrStream = proto.ErrStream
	// ErrWrite: a file of the results folder could not be written (a full
	// disk, say); the message names the file. The command exits 1.
	ErrWrite = runner.ErrWrite
)

// ProcSupported says whether this system gives what a run measures beside
// the Go runtime's figures (RSS and the hard memory caps, machine load,
// process CPU): Linux only. Elsewhere the package builds and runs, and
// those figures read 0.
const ProcSupported = proto.Supported

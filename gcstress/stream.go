package gcstress

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/writegc/writegc/gcstress/internal/outfolder"
	"github.com/writegc/writegc/gcstress/internal/record"
	"github.com/writegc/writegc/gcstress/results"
)

// The child's stream (the protocol between a scenario's child and its
// parent) runs on a pipe of its own, not on the child's stdout: the parent
// passes the pipe's write end as the child's file descriptor StreamFD
// (exec.Cmd.ExtraFiles) and names it in StreamEnv. A user's engine may then
// print anything on stdout or stderr without touching the stream: the
// parent drains both continuously (the child never blocks on them), keeps
// the first and last CaptureKeep bytes of each in the scenario's folder
// (ChildStdoutFile, ChildStderrFile) and counts all of them
// (Result.Foreign). The stream is one JSON record (Sample) per line; the
// parent refuses a record longer than MaxRecord before buffering it.
const (
	// StreamEnv is the environment variable naming the child's stream
	// descriptor. Without it (a child started by hand) RunChild streams on
	// its stdout argument, as before protocol version 2.
	StreamEnv = "WRITEGC_GCSTRESS_STREAM"
	// StreamFD is the descriptor the parent passes: ExtraFiles[0].
	StreamFD = 3
	// StreamProto is the protocol version on every start line (Sample.Proto):
	// 2 is the stream on its own descriptor, and the parent's exit lines.
	StreamProto = results.StreamProto
	// MaxRecord is the longest record (line) the parent reads: a longer one
	// is skipped, and the scenario names the limit.
	MaxRecord = results.MaxRecord
	// CaptureKeep is how much of each end of a child's stdout and stderr
	// the parent keeps.
	CaptureKeep = 64 << 10
	// ChildStdoutFile and ChildStderrFile, in the scenario's folder
	// (Scenario.Dir), hold what the child printed outside its stream: the
	// first and last CaptureKeep bytes, with a line between them saying how
	// many were left out. Written only when the child printed something.
	ChildStdoutFile = "child-stdout.txt"
	ChildStderrFile = "child-stderr.txt"
)

var errRecordTooLong = fmt.Errorf("%w: a record longer than the %d MiB limit (MaxRecord) was skipped", ErrStream, MaxRecord>>20)

// writeFileAtomic writes b to path with writeAtomic (the results folder's
// one atomic writer), creating the folder. Errors wrap ErrStream and
// ErrWrite and name path.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%w: %w: %s: %w", ErrStream, ErrWrite, path, err)
	}
	_, err := outfolder.WriteAtomic(nil, path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStream, err)
	}
	return nil
}

// keepForeign writes a child's stdout and stderr captures that hold
// anything into dir (none when dir is "") and returns the account.
func keepForeign(dir string, stdout, stderr *record.Capture, exitedOK bool) (*results.ForeignOutput, error) {
	f := &results.ForeignOutput{StdoutBytes: stdout.Total(), StderrBytes: stderr.Total(), ExitedOK: exitedOK}
	if f.StdoutBytes == 0 && f.StderrBytes == 0 {
		return nil, nil
	}
	if dir == "" {
		return f, nil
	}
	for _, c := range []struct {
		cap  *record.Capture
		name string
		dst  *string
	}{{stdout, ChildStdoutFile, &f.StdoutFile}, {stderr, ChildStderrFile, &f.StderrFile}} {
		if c.cap.Total() == 0 {
			continue
		}
		p := filepath.Join(dir, c.name)
		if err := writeFileAtomic(p, c.cap.Contents()); err != nil {
			return f, err
		}
		*c.dst = p
	}
	return f, nil
}

// streamFDFromEnv returns the descriptor StreamEnv names, or -1 when it is
// not set.
func streamFDFromEnv() (int, error) {
	v := os.Getenv(StreamEnv)
	if v == "" {
		return -1, nil
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return -1, fmt.Errorf("%w: bad %s=%q: want a file descriptor from 3 up", ErrChild, StreamEnv, v)
	}
	return fd, nil
}

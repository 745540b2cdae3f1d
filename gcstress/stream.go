package gcstress

import (
	"fmt"
	"os"
	"strconv"

	"github.com/writegc/writegc/gcstress/internal/runner"
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
	StreamEnv = runner.StreamEnv
	// StreamFD is the descriptor the parent passes: ExtraFiles[0].
	StreamFD = runner.StreamFD
	// StreamProto is the protocol version on every start line (Sample.Proto):
	// 2 is the stream on its own descriptor, and the parent's exit lines.
	StreamProto = results.StreamProto
	// MaxRecord is the longest record (line) the parent reads: a longer one
	// is skipped, and the scenario names the limit.
	MaxRecord = results.MaxRecord
	// CaptureKeep is how much of each end of a child's stdout and stderr
	// the parent keeps.
	CaptureKeep = runner.CaptureKeep
	// ChildStdoutFile and ChildStderrFile, in the scenario's folder
	// (Scenario.Dir), hold what the child printed outside its stream: the
	// first and last CaptureKeep bytes, with a line between them saying how
	// many were left out. Written only when the child printed something.
	ChildStdoutFile = runner.ChildStdoutFile
	ChildStderrFile = runner.ChildStderrFile
)

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

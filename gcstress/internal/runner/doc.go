// Package runner is the parent's side of a child process and of what a
// run leaves on disk: it builds the children's binaries per build
// environment (buildenvs_doc.go), starts and reads children (this doc),
// frames their stream (record.go) and writes the results folder
// (manifest.go); each of those files' docs states its invariants.
//
// gcstress's Runner starts the child (the scenario as JSON in ChildEnv,
// its GOGC and GOMEMLIMIT, its stream on descriptor StreamFD named in
// StreamEnv, a process group of its own), reads its stream record by
// record into a results.Result, copies each record to the run's samples
// stream, watches the child (Ctrl-C, the parent's RSS cap, a hang, a
// stall) and keeps what it printed outside its stream.
//
// Invariants:
//   - A Runner runs one scenario at a time (Run is not safe for
//     concurrent use); its fields are set before the first Run. Per child,
//     Run's goroutine reads the stream and a watcher goroutine stops or
//     kills the child; what both write is under the child's mutex.
//   - A record longer than results.MaxRecord is skipped before it is
//     buffered (ErrRecordTooLong); at most CaptureKeep bytes of each end
//     of the child's stdout and stderr are kept, and the last stderrTail
//     bytes of stderr go to Result.Stderr.
//   - A child is never left running: a cancelled ctx sends SIGINT, then
//     SIGKILL after Grace; a child over its RSS cap times the slack, or
//     two minutes past its run-time cap, is killed; the pipes are given up
//     pipeDelay after it exited.
//   - Errors are tool failures only (a child that cannot start, a failed
//     write of the samples stream or of a capture file: wrapping
//     proto.ErrStream and naming the file); a child's own failure is
//     its Result's verdict. The package prints nothing.
package runner

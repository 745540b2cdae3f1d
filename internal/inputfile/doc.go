// Package inputfile opens the files writegc's commands read (benchmark files,
// summary.json, samples.jsonl, bench.txt, history databases) so that hostile or
// careless input cannot hang or exhaust the process.
//
// Invariants:
//   - Only regular files are read. A FIFO, a device (a link to /dev/zero), a
//     socket or a directory is refused with ErrNotRegular before anything is
//     read, and, on Linux, without ever blocking in open(2): the file is
//     opened with O_NONBLOCK and checked with fstat on the descriptor itself,
//     so a FIFO swapped in between the check and the open is caught too.
//   - A file larger than the caller's limit is refused with ErrTooLarge before
//     it is read; a file that grows past the limit while it is read fails at
//     the first byte past it, so memory stays bounded by the limit.
//
// The functions are safe for concurrent use; they keep no state.
package inputfile

// Package syncdir makes a folder's entries durable: after a file is created
// in a folder or renamed into it, Sync(folder) fsyncs the folder itself, so
// the new name survives a crash. It is the one such helper of writegc (the
// gcstress results folder's atomic writer and gchealth's captures use it).
//
// Invariants: on Linux, Sync is fsync(2) of the folder; elsewhere it does
// nothing and returns nil (Windows cannot open a folder for fsync, and on
// macOS a folder's fsync does not reach the disk without F_FULLFSYNC), so a
// rename there is durable only as far as the file system makes it. Safe for
// concurrent use; it keeps no state.
package syncdir

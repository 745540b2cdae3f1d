// Package atomicfile writes a file whole or not at all, and makes the
// names in a folder durable.
//
// Invariants:
//   - Write leaves path as it was or holding everything its write function
//     produced, never a part: the bytes go to a temporary file in path's
//     folder (".<name>.*.tmp"), which is fsynced, made 0644 and closed
//     before it is renamed over path, and the folder is fsynced after the
//     rename. On any error before the rename the temporary file is removed
//     and path is untouched; an error of the folder's fsync after it
//     leaves the new file in place and is returned (written, not yet
//     durable).
//   - SyncDir fsyncs a folder so that a name created or renamed into it
//     survives a crash: fsync(2) on Linux; elsewhere it does nothing and
//     returns nil (Windows cannot open a folder for fsync, and macOS needs
//     F_FULLFSYNC), so a rename there is as durable as the file system
//     makes it.
//
// The package keeps no state and its functions are safe for concurrent
// use; two Writes of one path each rename a whole file, and the later
// rename wins.
package atomicfile

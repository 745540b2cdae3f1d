// Package flock takes and drops an exclusive, advisory lock on an open file:
// flock(2) where the OS has it (flock_unix.go), nothing elsewhere
// (flock_other.go, where AcrossProcesses is false and TryLock always
// succeeds, so callers keep their own in-process exclusion).
//
// Invariants: TryLock never waits; a lock belongs to the open file
// description, so a second open of the same file, in this process or
// another, is refused while the first holds it; the kernel drops the lock
// when the descriptor closes, also when the process dies, so a crash leaves
// no stale lock. Safe for concurrent use (the kernel serialises).
package flock

// Package oskit holds writegc's few OS-facing helpers, each with its
// Linux (or Unix) file and a twin for other systems: child processes that
// cannot outlive their run (Command, Start, Run, Output), an advisory file
// lock (TryLock, Unlock) and this process's own counters from /proc/self
// (MinorFaults, RSS).
//
// Child processes, for a command made by Command and started by Start or
// Run: on Linux the child leads a process group of its own (Setpgid) and
// is sent SIGKILL if the thread that started it dies (Pdeathsig); when the
// context is done the whole group is killed, and when the child exits by
// itself whatever is left of its group is killed at once, so that its pipes
// reach end of file. Everywhere, cmd.WaitDelay (DefaultWaitDelay unless the
// caller set one) bounds how long Wait waits for the pipes. The group is
// signalled only while the child is not yet reaped (its pid cannot have
// been reused): Start's wait function waits for the exit without reaping,
// kills the rest of the group, and only then calls cmd.Wait.
//
// File lock: flock(2) where the OS has it; elsewhere AcrossProcesses is
// false and TryLock always succeeds, so callers keep their own in-process
// exclusion. TryLock never waits; the lock belongs to the open file
// description and the kernel drops it when the descriptor closes, also when
// the process dies, so a crash leaves no stale lock.
//
// The /proc/self readers return ok false, never an error or a panic, where
// the file does not exist (not Linux) or does not parse; the parsers are
// pure functions of their bytes.
//
// The package keeps no state; its functions are safe for concurrent use
// (on different commands for the child-process helpers).
package oskit

// Package testkit holds the helpers writegc's tests share: it builds the
// commands they run (Build), makes throwaway git repositories (NeedGoGit,
// Git, CommitAll), writes and reads small file trees (Write, Dir, Tree,
// Names), compares output with golden files (CheckGolden, -update), makes
// the hostile inputs readers are probed with (Hostile, Bounded) and bounds
// waits that might hang (Within, Gone). The browser helper stays in
// internal/browsertest, so that only browser tests depend on chromedp.
//
// Invariants: it is imported only from _test.go files (and test-only
// commands); importing it registers the -update flag, which a test binary
// parses. Every helper fails or skips the test it is given rather than
// return an error, and writes nothing outside the folders the test names
// (probes live in folders of their own, removed when the test ends).
// CheckGolden never rewrites a file without -update and never passes when
// the bytes differ. Build runs the running toolchain's go and passes no
// -race (the race detector's shadow memory would make resident-memory
// figures meaningless). Within never returns before the call or the limit;
// on the limit it fails the test and leaves the call's goroutine blocked. A
// probe kind the system cannot make is left out, never faked. The helpers
// are safe to call from parallel tests that do not share a folder, except
// NeedGoGit (t.Setenv).
package testkit

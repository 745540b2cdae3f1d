package gcstress

import "github.com/writegc/writegc/gcstress/internal/runner"

// Runner starts one child process per scenario and collects its stream
// (package gcstress/internal/runner).
//
// Lifetime: a Runner runs one scenario at a time (Run is not safe for
// concurrent use); its fields are set before the first Run. Samples, when
// set, receives every record a child streams, as it arrives (one Write per
// line), so a child that is killed leaves everything it streamed; after
// the child exited, Run appends the parent's exit line (SampleExit).
//
// Fields: Exe and Args start a child (Exe "": os.Executable() with no
// args; the child must hand a process with ChildEnv set to RunChild).
// Samples receives each JSON line; a failed Write stops the child, and Run
// returns an error wrapping ErrStream that names the file. OnLine is
// called from Run's goroutine for each decoded line with the
// classification so far. StopOnFail stops a child (SIGTERM) once its
// stream is classified failed. Grace is how long a child may take to exit
// after SIGINT/SIGTERM before it is killed (0: 5 s). ParentCapSlack: the
// parent kills a child whose RSS passes RSSCap*(1+slack) (0: 0.10).
// ExeFor, when set, gives the binary and environment additions of a
// scenario that names a build environment (Scenario.BuildEnv). HangAfter
// is how long past its run-time cap a child may run before it is killed
// as hung (0: 2 minutes); its verdict says so ("killed by gcstress: no
// exit 2m0s past its 30s run-time cap (a Put or Get hung)"). Each child's
// TMPDIR is a private folder the parent removes once the child exited,
// however it ended.
//
// Run runs scenario s in a child process and returns its Result. The
// error is non-nil only for a tool failure: the child could not be
// started, or a write to Samples or to the scenario's capture files
// failed (wrapping ErrStream and naming the file). A child that dies, is
// killed or fails is a Result with Verdict Failed; one that streams no
// progress for its StallTimeout is stopped and fails as StopStalled.
// Cancelling ctx sends the child SIGINT (then SIGKILL after Grace) and
// returns what it streamed, with Stopped StopInterrupted.
type Runner = runner.Runner

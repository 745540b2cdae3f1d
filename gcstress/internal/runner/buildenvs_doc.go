// The build environments (-build-envs): the
// parsing and checking of a run's environments, and the building of one
// binary of the command per environment, which the run's children then
// run as (gcstress's Runner.ExeFor). The K=V form of one environment is
// internal/buildenv's; this package adds names, the limits of a list and
// the go command.
//
// Invariants:
//   - Parse, Check and CheckPkg are pure: every error wraps
//     usage.ErrUsage, is one line and names -build-envs (or -build-pkg); a
//     list holds at most MaxEnvs environments with distinct names of at
//     most MaxName bytes of a-z 0-9 . _ -, starting with a-z or 0-9 (never
//     "." or ".."), none setting a variable a scenario sets (GOGC,
//     GOMEMLIMIT) or holding a control character (internal/buildenv); a
//     package is one package, never a go flag, a pattern or a reserved
//     name.
//   - Build checks its arguments again, then runs `go list` once and
//     `go build` once per environment, in order, each with "--" before the
//     package, in a temporary folder of its own whose i-th binary is
//     envI/gcstress-child (a name is never a path); a build that fails
//     removes everything it built and is one line naming the environment
//     and go's first error line (at most maxBuildOutput bytes of go's
//     output are kept). It writes only the progress lines it is given a
//     writer for.
//   - A build folder holds a marker file locked (flock) while its Builds
//     lives; SweepStale removes only folders it proves stale: named
//     DirPrefix*, a directory of this user, with an unlocked marker that
//     reads as one, not made by this process. Where the OS cannot tell, it
//     removes nothing.
//   - A Builds is read-only once Build returned, safe for concurrent use;
//     a nil *Builds is none (ExeFor finds nothing, Infos is nil, Remove
//     does nothing). Remove deletes its binaries and folder, then drops the
//     lock; it is the caller's to call once the run's children are done.

package runner

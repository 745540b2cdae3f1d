package runner

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/buildenv"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/usage"
)

// Builds are the binaries of a run's build environments, in a temporary
// folder of their own (folder.go), the i-th environment's under envI; nil
// without environments. Read-only once built.
type Builds struct {
	dir  string
	lock *os.File
	bins map[string]builtEnv
	info []results.BuildEnv
}

type builtEnv struct {
	exe string
	env []string
}

// maxBuildOutput bounds what is kept of a failed go command's output.
const maxBuildOutput = 64 << 10

// Build builds pkg ("": the running command's main package) once per
// environment of envs, with `go build` in that environment (the go
// command fetches a GOTOOLCHAIN itself), writing a line per build to
// notes. envs and pkg are checked first (Check, CheckPkg). A build that
// fails is an error wrapping usage.ErrUsage: one line naming the
// environment and go's first error line; nothing is left behind. One
// stopped by ctx wraps interrupted instead. No environments: nil, nil.
func Build(ctx context.Context, pkg string, envs []Env, notes io.Writer, interrupted error) (*Builds, error) {
	if len(envs) == 0 {
		return nil, nil
	}
	if err := Check(envs); err != nil {
		return nil, err
	}
	if err := CheckPkg(pkg); err != nil {
		return nil, err
	}
	pkg, err := buildPkg(ctx, pkg, interrupted)
	if err != nil {
		return nil, err
	}
	dir, lock, err := newFolder()
	if err != nil {
		return nil, fmt.Errorf("gcstress: -build-envs: %w", err)
	}
	b := &Builds{dir: dir, lock: lock, bins: map[string]builtEnv{}}
	for i, e := range envs {
		// The folder is named by index: a name never becomes a path.
		exe := filepath.Join(dir, "env"+strconv.Itoa(i), "gcstress-child")
		fmt.Fprintf(notes, "gcstress: building %s in environment %s\n", escape.Terminal(pkg), escape.Terminal(label(e)))
		if _, err := goCommand(ctx, buildenv.ForBuild(e.Env), "build", "-o", exe, "--", pkg); err != nil {
			b.Remove()
			if ctx.Err() != nil { // Ctrl-C while building: nothing ran, nothing was written
				return nil, fmt.Errorf("%w: while building environment %s", interrupted, label(e))
			}
			return nil, fmt.Errorf("%w: -build-envs: environment %s: go build %s: %v", usage.ErrUsage, label(e), pkg, err)
		}
		b.bins[e.Name] = builtEnv{exe: exe, env: e.Env}
		b.info = append(b.info, builtInfo(e, exe))
	}
	return b, nil
}

// builtInfo is what summary.json says of environment e built as exe.
func builtInfo(e Env, exe string) results.BuildEnv {
	info := results.BuildEnv{Name: e.Name, Env: buildenv.Format(e.Env)}
	if bi, err := buildinfo.ReadFile(exe); err == nil {
		info.GoVersion = bi.GoVersion
		for _, st := range bi.Settings {
			if st.Key == "GOEXPERIMENT" {
				info.GOEXPERIMENT = st.Value
			}
		}
	}
	return info
}

// label names an environment in a message: "classic (GOEXPERIMENT=...)".
func label(e Env) string {
	return results.BuildEnv{Name: e.Name, Env: buildenv.Format(e.Env)}.Label()
}

// buildPkg is the package to build: pkg when given, else the running
// command's main package (debug.ReadBuildInfo), which must resolve from the
// working directory to one package main outside the standard library; a
// clear usage error otherwise.
func buildPkg(ctx context.Context, pkg string, interrupted error) (string, error) {
	if pkg == "" {
		bi, ok := debug.ReadBuildInfo()
		if !ok || bi.Path == "" || bi.Path == "command-line-arguments" || strings.HasSuffix(bi.Path, ".test") {
			return "", usage.Errorf("build-pkg", "the running command's main package is not known: give it (e.g. -build-pkg ./cmd/gcstress)")
		}
		if err := CheckPkg(bi.Path); err != nil {
			return "", err
		}
		pkg = bi.Path
	}
	out, err := goCommand(ctx, nil, "list", "-f", "{{.Name}} {{.Standard}}", "--", pkg)
	if err != nil && ctx.Err() != nil {
		return "", fmt.Errorf("%w: while finding %s", interrupted, pkg)
	}
	if err != nil {
		return "", usage.Errorf("build-pkg", "%s: %v (run from its module, or give -build-pkg ./path/to/your/command)", pkg, err)
	}
	name, std, _ := strings.Cut(strings.TrimSpace(out), " ")
	switch {
	case strings.Contains(std, "\n"):
		return "", usage.Errorf("build-pkg", "%s names more than one package: want one command's package", pkg)
	case std == "true":
		return "", usage.Errorf("build-pkg", "%s is a standard-library package: want your command's package such as ./cmd/mystore", pkg)
	case name != "main":
		return "", usage.Errorf("build-pkg", "%s is package %s, not a command (package main)", pkg, name)
	}
	return pkg, nil
}

// goCommand runs the go command with env added, in the working directory,
// and returns its standard output; its error is go's first error line.
func goCommand(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout bytes.Buffer
	stderr := &capped{max: maxBuildOutput}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if l := buildenv.GoErrorLine(stderr.b.String()); l != "" {
			return "", errors.New(l)
		}
		return "", err
	}
	return stdout.String(), nil
}

// capped keeps the first max bytes written to it.
type capped struct {
	b   bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if n := c.max - c.b.Len(); n > 0 {
		c.b.Write(p[:min(n, len(p))])
	}
	return len(p), nil
}

// ExeFor is the binary and environment of build environment env; false
// for one not built (or a nil Builds).
func (b *Builds) ExeFor(env string) (string, []string, bool) {
	if b == nil {
		return "", nil, false
	}
	be, ok := b.bins[env]
	return be.exe, be.env, ok
}

// Infos is what summary.json says of the environments; nil without any.
func (b *Builds) Infos() []results.BuildEnv {
	if b == nil {
		return nil
	}
	return b.info
}

// Remove deletes the binaries and their folder, then drops its lock.
func (b *Builds) Remove() {
	if b != nil {
		removeFolder(b.dir, b.lock)
	}
}

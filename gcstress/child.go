package gcstress

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/writegc/writegc/gcstress/internal/child"
	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/internal/runner"
	"github.com/writegc/writegc/gcstress/results"
)

// ChildEnv is the environment variable that turns the binary into a
// scenario's child: it holds the Scenario as JSON. A program whose main
// finds it set hands the process to RunChild.
const ChildEnv = runner.ChildEnv

// childMain decodes the scenario from ChildEnv and runs it, streaming on
// the descriptor StreamEnv names (the parent's pipe), or on stdout when it
// names none (a child started by hand).
func childMain(ctx context.Context, specJSON string, stdout io.Writer) error {
	var spec Scenario
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("%w: bad %s: %v", ErrChild, ChildEnv, err)
	}
	if spec.Writers < 1 || spec.Keys < 1 {
		return fmt.Errorf("%w: bad scenario %+v", ErrChild, spec)
	}
	fd, err := streamFDFromEnv()
	if err != nil {
		return err
	}
	out := proto.NewStream(stdout, spec.Name, 0)
	if fd >= 0 {
		w, err := openStream(fd)
		if err != nil {
			return err
		}
		out = proto.NewStream(w, spec.Name, StreamProto)
	}
	return runChild(ctx, spec, out)
}

// runChild is the child side of a scenario: load, sample, stream
// (package gcstress/internal/child). It returns nil when the load ended
// normally (keys written, duration reached, or interrupted) and an error
// wrapping ErrRSSCap or ErrChild otherwise, or ErrStream when the stream
// could not be written (the load then stops at once); in every case the
// last line it writes is the end line.
func runChild(ctx context.Context, spec Scenario, out *proto.Stream) error {
	out.Emit(&Sample{Type: results.SampleStart, Spec: &spec, Target: spec.Keys, PID: os.Getpid(), Proto: out.Proto()})
	if err := out.Failed(); err != nil {
		return err
	}
	eng, err := newEngine(spec)
	if err != nil {
		out.Emit(&Sample{Type: results.SampleEnd, Reason: results.StopError, Err: err.Error()})
		return fmt.Errorf("%w: %v", ErrChild, err)
	}
	return child.Run(ctx, spec, eng, eng.Engine, out)
}

package child

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/results"
)

// goexitEngine's Put ends its goroutine with runtime.Goexit (as a
// t.FailNow-like call would) once n Puts went by.
type goexitEngine struct {
	nopEngine
	puts, after atomic.Int64
}

func (e *goexitEngine) Put(key, value []byte) error {
	if e.puts.Add(1) > e.after.Load() {
		runtime.Goexit()
	}
	return nil
}

// TestWriterGoexitFailsTheRun: a writer goroutine that vanishes inside Put
// (runtime.Goexit) fails the run with a cause that says so: the end line's
// reason is error, run returns ErrChild, and the parent's Exit (ExitOfEnd)
// is a failure naming Goexit. The old code saw the writers done, called it
// "every key written" and reported a healthy run.
func TestWriterGoexitFailsTheRun(t *testing.T) {
	for _, after := range []int64{0, 1000} {
		spec := results.Scenario{Name: "goexit", Kind: "nop", Value: 100, Keys: 1 << 20, Writers: 2}
		var buf bytes.Buffer
		out := proto.NewStream(&buf, spec.Name, 0)
		eng := &goexitEngine{}
		eng.after.Store(after)
		c := newChild(context.Background(), spec, eng, out)
		err := c.run()
		c.cancel()
		if !errors.Is(err, ErrChild) || !strings.Contains(err.Error(), "Goexit") {
			t.Fatalf("after %d Puts: run = %v, want ErrChild naming Goexit", after, err)
		}
		var end results.Sample
		for line := range strings.Lines(buf.String()) {
			var s results.Sample
			if json.Unmarshal([]byte(line), &s) == nil && s.Type == results.SampleEnd {
				end = s
			}
		}
		e, ok := results.ExitOfEnd(&end)
		if end.Reason != results.StopError || !ok || !e.Died || !strings.Contains(e.Message, "Goexit") {
			t.Fatalf("after %d Puts: end reason %q, exit %+v, want a failure naming Goexit", after, end.Reason, e)
		}
	}
}

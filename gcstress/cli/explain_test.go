package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/writegc/writegc/explain"
)

func TestExplainMainUsage(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{},
		{"-format", "html", "../../explain/testdata/heap"},
		{"-diff", "../../explain/testdata/heap"},
		{"-metrics-gc-cpu", "abc", "../../explain/testdata/heap"},
		{"-nosuchflag"},
	} {
		var out, errb bytes.Buffer
		if err := explainMain(ctx, args, &out, &errb); !errors.Is(err, explain.ErrUsage) {
			t.Errorf("explainMain(%q) = %v, want explain.ErrUsage", args, err)
		}
	}
	var out, errb bytes.Buffer
	if err := explainMain(ctx, []string{"../../explain/testdata/heap", "-format", "markdown", "-metrics-gc-cpu", "20%"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "### heap\n") || !strings.Contains(out.String(), "runtime/metrics 20.0%") {
		t.Errorf("markdown output:\n%s", out.String())
	}
	out.Reset()
	err := explainMain(ctx, []string{"-diff", "../../explain/testdata/heap", "../../explain/testdata/flat/cpu.pprof,../../explain/testdata/flat/allocs.pprof"}, &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "heap vs flat\n") {
		t.Errorf("diff output:\n%s", out.String())
	}
	if err := explainMain(ctx, []string{"../../explain/testdata/none.pprof"}, &out, &errb); err == nil || errors.Is(err, explain.ErrUsage) {
		t.Errorf("missing file: %v", err)
	}
}

// TestExplainMainRejectsBadNumbers: NaN, infinite or out-of-range numeric flags
// are usage errors naming the flag.
func TestExplainMainRejectsBadNumbers(t *testing.T) {
	for _, c := range []struct{ flag, value string }{
		{"-metrics-gc-cpu", "NaN"},
		{"-metrics-gc-cpu", "nan%"},
		{"-metrics-gc-cpu", "Inf"},
		{"-metrics-gc-cpu", "-0.5"},
		{"-top", "0"},
		{"-top", "-3"},
		{"-cycles", "-1"},
		{"-slow", "-1s"},
	} {
		err := explainMain(context.Background(), []string{c.flag, c.value, "../../explain/testdata/heap"}, io.Discard, io.Discard)
		if !errors.Is(err, explain.ErrUsage) || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s %s: %v, want a usage error naming the flag", c.flag, c.value, err)
		}
	}
}

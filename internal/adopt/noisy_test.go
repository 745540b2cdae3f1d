package adopt

import (
	"strings"
	"testing"
)

// benchgate's exit 3 (too noisy to judge) is the action's result noisy: exit
// 3, or 0 with BENCHGATE_FAIL_ON_NOISY=false; the summary's title says so and
// the comment phase accepts the result.
func TestActionNoisyResult(t *testing.T) {
	needTools(t)
	fake := fakeBenchgate(t, "echo '| `BenchmarkJitter-2` | ns/op | 100 | 101 | +1% | NOISY |' >\"$md\"", 3)
	for _, c := range []struct {
		env  []string
		code int
	}{{nil, 3}, {[]string{"BENCHGATE_FAIL_ON_NOISY=false"}, 0}} {
		o := action(t, t.TempDir(), append([]string{"BENCHGATE_BIN=" + fake}, c.env...)...)
		if o.code != c.code || !strings.Contains(o.outputs, "result=noisy") || !strings.Contains(o.summary, "too noisy to judge") {
			t.Errorf("%v: exit %d, outputs %q, want exit %d, result=noisy and the title\n%s", c.env, o.code, o.outputs, c.code, o.log)
		}
	}
	if o := action(t, t.TempDir(), "BENCHGATE_BIN="+fake, "BENCHGATE_FAIL_ON_NOISY=maybe"); o.code != 2 {
		t.Errorf("BENCHGATE_FAIL_ON_NOISY=maybe: exit %d, want 2", o.code)
	}
}

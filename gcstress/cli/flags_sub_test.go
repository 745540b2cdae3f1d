package cli

import (
	"context"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/results"
)

// TestSubcommandFlagsReachConfig: each run subcommand parses its own flags
// into the Config fields of its scenario set, and runs that set alone.
func TestSubcommandFlagsReachConfig(t *testing.T) {
	def := gcstress.DefaultConfig()
	for _, tc := range []struct {
		args  []string
		check func(c gcstress.Config) bool
	}{
		{[]string{"matrix", "-memlimit", "300MB", "-values", "100", "-keys", "1M"}, func(c gcstress.Config) bool {
			return c.MemLimit == 300<<20 && c.FailMemLimit == def.FailMemLimit && c.Keys[0] == 1_000_000 && c.NoMinRun &&
				c.Duration == def.Duration && c.Values[0] == 100
		}},
		{[]string{"matrix", "-keys", "unbounded", "-duration", "10s"}, func(c gcstress.Config) bool {
			return c.Keys[0] == results.UnboundedKeys && c.Duration == 10*time.Second
		}},
		{[]string{"failure", "-memlimit", "150MB", "-rss-cap", "300MB", "-rate", "4MB/s", "-value", "100", "-keys", "1M", "-duration", "20s", "-flush-bw", "1MB"}, func(c gcstress.Config) bool {
			return c.FailMemLimit == 150<<20 && c.FailRSSCap == 300<<20 && c.FailRate.String() == "4MB/s" && c.FailValue == 100 &&
				c.FailKeys == 1_000_000 && c.FailDuration == 20*time.Second && c.FailFlushBW == 1<<20 && c.MemLimit == 0 && c.RSSCap == def.RSSCap
		}},
		{[]string{"failure", "-rss-cap", "300MB"}, func(c gcstress.Config) bool { return c.FailMemLimit == (300<<20)/100*90 }},
		{[]string{"failure", "-rss-cap", "300MB", "-memlimit", "50%"}, func(c gcstress.Config) bool { return c.FailMemLimit == (300<<20)/100*50 }},
		{[]string{"failure"}, func(c gcstress.Config) bool {
			return c.FailMemLimit == def.FailMemLimit && c.FailRSSCap == def.FailRSSCap
		}},
		{[]string{"stall", "-duration", "20s", "-latency-every", "4"}, func(c gcstress.Config) bool {
			return c.FailDuration == 40*time.Second && c.StallLatencyEvery == 4 && c.LatencyEvery == def.LatencyEvery
		}},
		{[]string{"collapse", "-memlimit", "100MB", "-rss-cap", "1GB", "-window", "100ms", "-thresholds", "warmup=3s"}, func(c gcstress.Config) bool {
			return c.CollapseMemLimit == 100<<20 && c.CollapseRSSCap == 1<<30 && c.CollapseWindow == 100*time.Millisecond &&
				c.CollapseWarmup == 3*time.Second && c.FailMemLimit == def.FailMemLimit && c.Window == def.Window
		}},
		{[]string{"collapse"}, func(c gcstress.Config) bool { return c.CollapseWarmup == gcstress.DefaultCollapseWarmup }},
		{[]string{"capacity", "-values", "10,1KB", "-slo", "5ms", "-step-duration", "4s"}, func(c gcstress.Config) bool {
			return len(c.CapacityValues) == 2 && c.CapacityValues[1] == 1<<10 && c.SLO == 5*time.Millisecond && c.StepDuration == 4*time.Second
		}},
		{[]string{"frontier", "-container", "512MiB", "-gogc", "50,100", "-grid", "-values", "1KB"}, func(c gcstress.Config) bool {
			f := c.Frontier
			return f.Container == 512<<20 && reflect.DeepEqual(f.GOGC, []int{50, 100}) && !f.Adaptive && c.CapacityValues[0] == 1<<10 && c.GOGC == 100
		}},
		{[]string{"frontier", "-container", "512MiB", "-gogc", "200"}, func(c gcstress.Config) bool {
			return c.Frontier.Adaptive && c.GOGC == 200 && reflect.DeepEqual(c.Frontier.GOGC, []int{200})
		}},
		{[]string{"matrix", "-thresholds", "healthy-gc=5,degraded-gc=30,fail-windows=4,warmup=3s"}, func(c gcstress.Config) bool {
			th := c.Thresholds
			return th.HealthyGC == 5 && th.DegradedGC == 30 && th.FailWindows == 4 && th.Warmup == 3*time.Second && c.CollapseWarmup == def.CollapseWarmup
		}},
		{[]string{"matrix", "-profile", "flight"}, func(c gcstress.Config) bool { return c.Flight && c.Profile == 0 }},
		{[]string{"all", "-memlimit", "300MB", "-window", "500ms"}, func(c gcstress.Config) bool {
			return c.MemLimit == 300<<20 && c.FailMemLimit == 300<<20 && c.CollapseMemLimit == 300<<20 && c.CollapseWindow == 500*time.Millisecond
		}},
	} {
		c, err := ParseFlags(tc.args, io.Discard)
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(c.Sets, []string{tc.args[0]}) || !tc.check(c) {
			t.Errorf("%v: sets %v, config %+v", tc.args, c.Sets, c)
		}
	}
}

// flagLine is a flag's line in -h output.
var flagLine = regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)

// TestSubcommandHelp: every run subcommand's -h lists at most 35 flags,
// -thresholds among them, and no deprecated one (no -fail-*, -collapse-*
// or per-threshold flag).
func TestSubcommandHelp(t *testing.T) {
	for _, sub := range append([]string{""}, gcstress.ScenarioSets...) {
		args := []string{"-h"}
		if sub != "" {
			args = []string{sub, "-h"}
		}
		var stderr syncBuf
		if code := Main(context.Background(), args, io.Discard, &stderr); code != ExitOK {
			t.Fatalf("%v: exit %d", args, code)
		}
		flags := flagLine.FindAllStringSubmatch(stderr.String(), -1)
		if len(flags) > 35 || len(flags) < 15 {
			t.Errorf("%v lists %d flags, want 15 to 35", args, len(flags))
		}
		seen := map[string]bool{}
		for _, f := range flags {
			name := f[1]
			seen[name] = true
			if isThresholdKey(name) || name == "scenario" || name == "flight" || strings.HasPrefix(name, "fail-") || strings.HasPrefix(name, "collapse-") {
				t.Errorf("%v lists deprecated flag -%s", args, name)
			}
		}
		if !seen["thresholds"] || !seen["kinds"] {
			t.Errorf("%v lacks -thresholds or -kinds:\n%s", args, stderr.String())
		}
	}
}

// TestDeprecatedSynonyms: on the all path the old flat flags still parse,
// into what their replacement gives, with one deprecation line on stderr;
// a subcommand refuses them.
func TestDeprecatedSynonyms(t *testing.T) {
	for _, tc := range []struct{ old, cur []string }{
		{[]string{"-scenario", "failure", "-fail-memlimit", "150MB", "-fail-rss-cap", "300MB", "-fail-rate", "4MB/s", "-fail-keys", "1M", "-fail-value", "100", "-fail-duration", "20s", "-fail-flush-bw", "1MB"},
			[]string{"failure", "-memlimit", "150MB", "-rss-cap", "300MB", "-rate", "4MB/s", "-keys", "1M", "-value", "100", "-duration", "20s", "-flush-bw", "1MB"}},
		{[]string{"-scenario", "failure", "-fail-rss-cap", "300MB"}, []string{"failure", "-rss-cap", "300MB"}},
		{[]string{"-scenario", "collapse", "-collapse-memlimit", "100MB", "-collapse-rss-cap", "1GB"}, []string{"collapse", "-memlimit", "100MB", "-rss-cap", "1GB"}},
		{[]string{"-scenario", "matrix", "-degraded-gc", "30", "-healthy-gc", "5", "-fail-windows", "4", "-share", "50", "-fail-live", "80", "-fail-throughput", "20", "-healthy-assist", "1", "-degraded-assist", "6"},
			[]string{"matrix", "-thresholds", "degraded-gc=30,healthy-gc=5,fail-windows=4,share=50,fail-live=80,fail-throughput=20,healthy-assist=1,degraded-assist=6"}},
		{[]string{"-scenario", "matrix", "-flight"}, []string{"matrix", "-profile", "flight"}},
		{[]string{"-scenario", "capacity", "-slo", "5ms", "-step-duration", "4s"}, []string{"capacity", "-slo", "5ms", "-step-duration", "4s"}},
		{[]string{"-scenario", "frontier", "-container", "512MiB", "-headroom", "0.2", "-settle", "5s"}, []string{"frontier", "-container", "512MiB", "-headroom", "0.2", "-settle", "5s"}},
		{[]string{"-scenario", "frontier", "-container", "512MiB", "-gogc", "50,100"}, []string{"frontier", "-container", "512MiB", "-gogc", "50,100", "-grid"}},
	} {
		var stderr syncBuf
		old, err := ParseFlags(tc.old, &stderr)
		if err != nil {
			t.Errorf("%v: %v", tc.old, err)
			continue
		}
		cur, err := ParseFlags(tc.cur, io.Discard)
		if err != nil {
			t.Errorf("%v: %v", tc.cur, err)
			continue
		}
		old.Command, cur.Command = "", ""
		if !reflect.DeepEqual(old, cur) {
			t.Errorf("%v gives\n%+v,\n%v gives\n%+v", tc.old, old, tc.cur, cur)
		}
		note := stderr.String()
		if strings.Count(note, "\n") != 1 || !strings.HasPrefix(note, "gcstress: deprecated") || !strings.Contains(note, tc.old[2]) {
			t.Errorf("%v: stderr %q, want one deprecation line naming %s", tc.old, note, tc.old[2])
		}
	}
	for _, args := range [][]string{{"failure", "-fail-memlimit", "150MB"}, {"matrix", "-degraded-gc", "30"}, {"matrix", "-scenario", "matrix"}, {"collapse", "-collapse-rss-cap", "1GB"}} {
		if _, err := ParseFlags(args, io.Discard); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), args[1]) {
			t.Errorf("%v: %v, want a usage error naming %s", args, err, args[1])
		}
	}
}

// TestScenarioIsTheSubcommand: -scenario NAME (deprecated) is the NAME
// subcommand, for every set.
func TestScenarioIsTheSubcommand(t *testing.T) {
	for _, set := range gcstress.ScenarioSets {
		extra := []string{"-kinds", "heap,arena"}
		if set == gcstress.SetFrontier {
			extra = append(extra, "-container", "512MiB")
		}
		old, err := ParseFlags(append([]string{"-scenario", set}, extra...), io.Discard)
		if err != nil {
			t.Fatalf("-scenario %s: %v", set, err)
		}
		cur, err := ParseFlags(append([]string{set}, extra...), io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		old.Command, cur.Command = "", ""
		if !reflect.DeepEqual(old, cur) {
			t.Errorf("-scenario %s gives\n%+v,\n%s gives\n%+v", set, old, set, cur)
		}
	}
}

// TestBadThresholdsExitTwo: an unknown -thresholds key or a bad value is
// one usage line naming -thresholds and the key, exit 2.
func TestBadThresholdsExitTwo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-thresholds", "nosuch=1"}, `unknown key "nosuch"`},
		{[]string{"matrix", "-thresholds", "healthy-gc=10,bogus=2"}, `unknown key "bogus"`},
		{[]string{"failure", "-thresholds", "degraded-gc=abc"}, "degraded-gc=abc"},
		{[]string{"matrix", "-thresholds", "warmup=5"}, "warmup=5"},
		{[]string{"matrix", "-thresholds", "healthy-gc"}, "healthy-gc"},
		{[]string{"matrix", "-thresholds", "degraded-gc=NaN"}, "degraded-gc=NaN"},
		{[]string{"matrix", "-thresholds", "degraded-gc=120"}, "-thresholds degraded-gc"},
	} {
		var stderr syncBuf
		code := Main(context.Background(), tc.args, io.Discard, &stderr)
		if code != ExitUsage || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "-thresholds") ||
			!strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q: want one usage line naming -thresholds and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestSubcommandErrorsNameItsFlags: a value the library refuses is named
// by the subcommand's flag (failure's -memlimit, not -fail-memlimit).
func TestSubcommandErrorsNameItsFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"failure", "-memlimit", "16MB"}, "-memlimit: "},
		{[]string{"stall", "-keys", "0"}, "-keys: "},
		{[]string{"collapse", "-duration", "1ns"}, "-duration: "},
		{[]string{"failure", "-memlimit", "150%"}, "-memlimit 150%"},
		{[]string{"stall", "-duration", "-1s"}, "-duration"},
		{[]string{"stall", "-duration", "500us"}, "-duration: 500µs"},
		{[]string{"frontier", "-container", "512MiB", "-gogc", "0"}, "-gogc"},
		{[]string{"matrix", "-keys", "unbounded"}, "-keys"},
	} {
		_, err := ParseFlags(tc.args, io.Discard)
		if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "-fail-") {
			t.Errorf("%v: %v, want a usage error naming %q", tc.args, err, tc.want)
		}
	}
}

// TestOldInvocationsParse: the command lines of the Makefile, scripts/,
// results/*/run.sh and the docs before the subcommands (variables filled
// in) still parse on the all path.
func TestOldInvocationsParse(t *testing.T) {
	for _, line := range []string{
		"",
		"-kinds heap,arena,offheap -values 100 -scenario matrix -duration 20s",
		"-mix b -keydist zipfian -kinds heap,arena -scenario matrix -values 100 -count 2 -duration 20s -rate 20Kops -preload 200K -memstore 128MB -gogc 100 -latency-every 4",
		"-mix b -kinds heap,arena -values 100 -scenario matrix -duration 20s -rate 20Kops -preload 200K -memstore 128MB -read-trace=false",
		"-scenario capacity -kinds heap,arena -values 100 -step-duration 3s -slo 10ms",
		"-scenario failure",
		"-scenario failure -fail-value 100 -fail-keys 1M -kinds heap,arena -warmup 500ms",
		"-scenario frontier -kinds heap -values 100 -container 512MiB -rate 20MB -gogc 50,100,200,400,off",
		"-scenario frontier -kinds heap,arena -values 100 -container 512MiB -memlimit-frac none,0.5 -point-duration 6s -confirm-duration 8s -warmup 1s",
		"-scenario matrix -kinds arena -values 100 -rate 20MB/s",
		"-scenario matrix,failure -kinds heap,arena,offheap -values 10,100,1KB,10KB",
		"-scenario collapse,failure -window 500ms",
		"-profile cpu,heap -flight -scenario matrix -kinds arena -values 100",
		"-build-envs greentea=;classic=GOEXPERIMENT=nogreenteagc -kinds heap -scenario matrix -values 100",
		"-quick -kinds arena -values 100 -keys 1K -scenario matrix -memstore 1MB -regions 1",
		"-memlimit 200MB -flush-bw 1MB -latency-every 8 -fail-duration 30s -collapse-memlimit 100MB -degraded-gc 30 -healthy-gc 5 -share 30 -fail-live 80 -fail-throughput 20 -fail-windows 4",
	} {
		if _, err := ParseFlags(strings.Fields(line), io.Discard); err != nil {
			t.Errorf("gcstress %s: %v", line, err)
		}
	}
}

// TestLegacyKeysRule: plain gcstress keeps the old rule of -keys without
// -duration (no run-time cap) and says so; a subcommand keeps its cap.
func TestLegacyKeysRule(t *testing.T) {
	var stderr syncBuf
	c, err := ParseFlags([]string{"-keys", "1M", "-values", "100"}, &stderr)
	if err != nil || c.Duration != 0 || !strings.Contains(stderr.String(), "-keys without -duration") {
		t.Errorf("plain -keys 1M: %v, duration %v, stderr %q", err, c.Duration, stderr.String())
	}
	stderr = syncBuf{}
	c, err = ParseFlags([]string{"all", "-keys", "1M", "-values", "100"}, &stderr)
	if err != nil || c.Duration != gcstress.DefaultDuration || stderr.String() != "" {
		t.Errorf("all -keys 1M: %v, duration %v, stderr %q", err, c.Duration, stderr.String())
	}
}

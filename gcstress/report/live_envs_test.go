package report

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
)

// TestEnvSeries: two build environments of one kind are two series on the
// live page, each its own colour and its environment named, in the begin,
// scenario, line and done events alike; the first environment keeps the
// kind's colour.
func TestEnvSeries(t *testing.T) {
	ls := NewServer(Options{})
	defer ls.Close()
	scen := func(env string) results.Scenario {
		s := synthScenario("heap/100B/env=" + env)
		s.Kind, s.BuildEnv = "heap", env
		return s
	}
	a, b := scen("greentea"), scen("classic")
	ls.Begin(&results.Summary{BuildEnvs: []results.BuildEnv{{Name: "greentea"}, {Name: "classic"}}}, []results.Scenario{a, b})
	for _, s := range []results.Scenario{a, b} {
		ls.Line(s, results.Sample{Type: results.SampleStart, Scenario: s.Name}, results.Health{})
		w, v := liveWindow(s.Name, 0)
		ls.Line(s, w, v)
		ls.Done(results.Result{Scenario: s, Verdict: v})
	}
	want := map[string]string{a.Name: view.KindColourHex("heap"), b.Name: view.EnvColourHex("heap", 1)}
	if want[a.Name] == want[b.Name] {
		t.Fatalf("both environments in %s", want[a.Name])
	}
	frames := [][]byte{ls.begin}
	for _, f := range ls.hist {
		frames = append(frames, f.b)
	}
	seen := 0
	for _, f := range frames {
		data := strings.TrimSpace(strings.SplitN(string(f), "data: ", 2)[1])
		var ev struct {
			Name, Color, Env string
			Scenarios        []struct{ Name, Color, Env string }
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ev.Name != "" {
			ev.Scenarios = append(ev.Scenarios, struct{ Name, Color, Env string }{ev.Name, ev.Color, ev.Env})
		}
		for _, s := range ev.Scenarios {
			seen++
			if s.Color != want[s.Name] || !strings.HasSuffix(s.Name, "/env="+s.Env) {
				t.Errorf("%s: colour %s env %q, want %s", s.Name, s.Color, s.Env, want[s.Name])
			}
		}
	}
	if seen != 8 { // begin's two, then a scenario, line and done event each
		t.Errorf("%d scenario mentions, want 8", seen)
	}
}

// TestBrowserLiveEnvs: on the live page two environments of one kind are
// two toggles, each labelled with its environment and in its own colour.
// It skips without a browser (see TestBrowserLive).
func TestBrowserLiveEnvs(t *testing.T) {
	browser, ls, url := liveBrowser(t)
	envs := []results.BuildEnv{{Name: "greentea"}, {Name: "classic"}}
	var scens []results.Scenario
	for _, e := range envs {
		s := synthScenario("heap/100B/env=" + e.Name)
		s.Kind, s.BuildEnv = "heap", e.Name
		scens = append(scens, s)
	}
	ls.Begin(&results.Summary{Command: "gcstress (browser test)", Out: "out", BuildEnvs: envs}, scens)
	for _, s := range scens {
		for i := range 5 {
			w, v := liveWindow(s.Name, i)
			ls.Line(s, w, v)
		}
	}
	ls.End(&results.Summary{Out: "out"})
	ctx, pe := openPage(t, browser, url)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.gcstressLive && window.gcstressLive.ended && window.gcstressLive.charts > 0`,
		chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		t.Fatalf("the page never drew the run: %v", err)
	}
	want := map[string]string{"heap env=greentea": view.EnvColourHex("heap", 0), "heap env=classic": view.EnvColourHex("heap", 1)}
	got := map[string]string{}
	for _, tg := range Toggles(t, ctx) {
		got[tg[0]] = tg[1]
	}
	if !maps.Equal(got, want) {
		t.Errorf("toggles %v, want %v", got, want)
	}
	pe.Check(t)
}

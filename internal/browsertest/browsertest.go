// Package browsertest starts headless Chromium for the repository's browser
// tests (gcstress's report and live page, benchgate's trend page) and
// collects what a page reports as an error.
//
// Invariants: a test without a browser is skipped, never failed (Path
// names how to provide one); a browser that hangs is killed after
// Watchdog, so the test fails on its next action instead of running into
// go test's timeout; every browser has its own profile folder and the
// flags that keep it off the network (this machine has none).
//
// It is a test helper: it takes a *testing.T and is imported only from
// _test.go files.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Env names a browser binary to use instead of the search in Path.
const Env = "GCSTRESS_BROWSER"

// Watchdog is how long a browser may live before it is killed.
const Watchdog = 2 * time.Minute

// Path finds a Chromium-like browser (Env, /usr/bin/chromium, then
// chromium, chromium-browser, google-chrome on PATH) or skips the test.
func Path(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(Env); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no browser found (/usr/bin/chromium, or chromium/google-chrome on PATH; " + Env + " names one): browser test skipped")
	return ""
}

// Start starts a headless browser for the test's lifetime and returns its
// context; tabs are made with NewTab. Under -short the test is skipped:
// a browser end to end is make test-slow's (seconds each to start).
func Start(t testing.TB) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("a headless browser end to end: make test-slow runs it")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1600),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	watchdog := time.AfterFunc(Watchdog, cancelAlloc)
	t.Cleanup(func() { watchdog.Stop() })
	browser, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	return browser
}

// NewTab opens a tab in browser whose console errors, exceptions and error
// log entries are collected.
func NewTab(t testing.TB, browser context.Context) (context.Context, *PageErrors) {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	pe := &PageErrors{}
	if err := chromedp.Listen(tab, pe.listen); err != nil {
		t.Fatalf("browser: %v", err)
	}
	if _, err := chromedp.Call(tab, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("browser: Log.enable: %v", err)
	}
	return tab, pe
}

// PageErrors collects a tab's errors. Safe for concurrent use (the browser
// delivers events on its own goroutine).
type PageErrors struct {
	mu   sync.Mutex
	errs []string
}

func (p *PageErrors) listen(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			msg = "console." + string(ev.Type) + ": " + strings.Join(args, " ")
		}
	case *runtime.EventExceptionThrown:
		msg = (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error()
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			msg = "log: " + ev.Entry.Text + " " + ev.Entry.URL
		}
	}
	if msg != "" {
		p.mu.Lock()
		p.errs = append(p.errs, msg)
		p.mu.Unlock()
	}
}

// Check fails the test for every error the tab reported so far.
func (p *PageErrors) Check(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		t.Errorf("page error: %s", e)
	}
}

package child

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The known answer: our MMU of a real trace equals go tool trace's for the
// same file and selection within a point at 1, 10 and 100 ms, on three
// trace shapes: with UtilGoTool for every selection, and without it for
// those its defects (mark workers that start again) cannot reach. Slow (it
// builds and runs the go command's trace tool), so make test-slow runs it.
func TestMMUMatchesGoToolTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs go tool trace")
	}
	if trace.IsEnabled() {
		t.Skip("the test binary is already tracing")
	}
	goCmd := goCommand(t)
	selections := []UtilFlags{
		UtilDefault, UtilDefault | UtilPerProc, UtilSTW, UtilBackground, UtilAssist,
		UtilDefault | UtilSweep, UtilAssist | UtilPerProc,
	}
	exact := []UtilFlags{UtilSTW, UtilAssist, UtilSTW | UtilAssist, UtilSTW | UtilAssist | UtilSweep, UtilAssist | UtilPerProc}
	windows := []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond}
	for _, shape := range []struct {
		name string
		run  func()
	}{
		{"gc-heavy", gcHeavyLoad},
		{"idle", idleLoad},
		{"forced-gc", forcedGCLoad},
	} {
		t.Run(shape.name, func(t *testing.T) {
			file, ph := recordTrace(t, shape.run)
			if len(ph.Mark) == 0 {
				t.Fatal("no collection in the trace: the shape proves nothing")
			}
			srv := startTraceTool(t, goCmd, file)
			for _, flags := range selections {
				compareMMU(t, srv, ph, flags|UtilGoTool, windows)
			}
			for _, flags := range exact {
				compareMMU(t, srv, ph, flags, windows)
			}
			for _, flags := range []UtilFlags{UtilDefault, UtilBackground} {
				t.Logf("flags %-32s MMU %v (go tool trace's accounting: %v)", flagNames(flags), ph.MMU(flags, windows), ph.MMU(flags|UtilGoTool, windows))
			}
		})
	}
}

func compareMMU(t *testing.T, srv *traceTool, ph *Phases, flags UtilFlags, windows []time.Duration) {
	t.Helper()
	ours := ph.MMU(flags, windows)
	if len(ours) != len(windows) {
		t.Fatalf("flags %s: MMU %v: want %d points", flagNames(flags), ours, len(windows))
	}
	for i, w := range windows {
		theirs := srv.mmu(t, flags, w)
		t.Logf("flags %-32s window %-6v ours %.4f go tool trace %.4f", flagNames(flags), w, ours[i].Util, theirs)
		if math.Abs(ours[i].Util-theirs) > 0.01 {
			t.Errorf("flags %s window %v: MMU %.4f, go tool trace %.4f", flagNames(flags), w, ours[i].Util, theirs)
		}
	}
}

// goCommand is the go command that runs this test; a test that cannot find
// it fails, as a missing known answer is a failure, not a skip.
func goCommand(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if p := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" && fileExists(p) {
		return p
	}
	t.Fatal("no go command (PATH, $GOROOT/bin) to run go tool trace")
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// recordTrace traces run with a Recorder into a file it keeps and parses.
func recordTrace(t *testing.T, run func()) (string, *Phases) {
	t.Helper()
	r, err := StartGCTrace(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	run()
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(r.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ph, _, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return r.f.Name(), ph
}

type node struct {
	next *node
	_    [48]byte // an object of some size, as a store's
}

// gcHeavyLoad: goroutines building and dropping pointer-linked lists over
// a retained heap (each its own part of it), so the collector runs often
// with workers and assists.
func gcHeavyLoad() {
	const workers, part = 4, 1 << 13
	keep := make([]*node, workers*part)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := keep[g*part : (g+1)*part]
			for i := range 60_000 {
				mine[(i*13)%part] = &node{next: mine[(i*7)%part]}
				var list *node
				for range 8 {
					list = &node{next: list}
				}
				runtime.KeepAlive(list)
			}
		}()
	}
	wg.Wait()
	runtime.KeepAlive(keep)
}

// idleLoad: mostly asleep, allocating little: a few short cycles in a
// long quiet run.
func idleLoad() {
	var keep [][]byte
	for i := range 40 {
		keep = append(keep, make([]byte, 512<<10))
		if i%8 == 7 {
			keep = nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	runtime.KeepAlive(keep)
}

// forcedGCLoad: runtime.GC over a large pointer heap, each a full cycle
// with its stop-the-world pauses, between idle gaps.
func forcedGCLoad() {
	heap := make([]*node, 1<<18)
	for i := range heap {
		heap[i] = &node{}
	}
	for range 5 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	runtime.KeepAlive(heap)
}

// traceTool is a running go tool trace web server.
type traceTool struct{ base string }

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// startTraceTool starts go tool trace on file and waits for its address;
// the server is killed when the test ends.
func startTraceTool(t *testing.T, goCmd, file string) *traceTool {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, goCmd, "tool", "trace", "-http=127.0.0.1:0", file)
	cmd.Env = append(os.Environ(), "BROWSER=true") // no browser: true(1) stands in for one
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("go tool trace: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
			if log.Len() < 4096 {
				log.WriteString(sc.Text() + "\n")
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("go tool trace exited without serving: %s", log.String())
		}
		return &traceTool{base: a}
	case <-time.After(5 * time.Minute):
		t.Fatal("go tool trace did not say where it listens within 5 minutes")
	}
	return nil
}

// mmu is go tool trace's MMU at window: the least utilization among the
// worst windows its MMU page lists for that window (its worst window is
// always among them).
func (tt *traceTool) mmu(t *testing.T, flags UtilFlags, window time.Duration) float64 {
	t.Helper()
	q := url.Values{"mode": {"details"}, "flags": {flagNames(flags)}, "window": {strconv.FormatInt(int64(window), 10)}}
	resp, err := http.Get(tt.base + "/mmu?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("go tool trace /mmu: %s", resp.Status)
	}
	var worst []struct{ MutatorUtil float64 }
	if err := json.NewDecoder(resp.Body).Decode(&worst); err != nil {
		t.Fatal(err)
	}
	if len(worst) == 0 {
		t.Fatalf("go tool trace listed no window for flags %s at %v", flagNames(flags), window)
	}
	m := 1.0
	for _, w := range worst {
		m = min(m, w.MutatorUtil)
	}
	return m
}

// flagNames is flags as go tool trace's MMU page names them.
func flagNames(f UtilFlags) string {
	var s []string
	for _, x := range []struct {
		f    UtilFlags
		name string
	}{{UtilGoTool, ""}, {UtilPerProc, "perProc"}, {UtilSTW, "stw"}, {UtilBackground, "background"}, {UtilAssist, "assist"}, {UtilSweep, "sweep"}} {
		if f&x.f != 0 && x.name != "" {
			s = append(s, x.name)
		}
	}
	return strings.Join(s, "|")
}

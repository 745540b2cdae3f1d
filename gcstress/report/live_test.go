package report

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/usage"
)

// liveServer serves a new Server of opts over HTTP; both close when the
// test ends (the Server first).
func liveServer(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	ls := NewServer(opts)
	srv := httptest.NewServer(ls)
	t.Cleanup(func() {
		ls.Close()
		srv.Close()
	})
	return ls, srv
}

// synthScenario and liveWindow are synthetic Observer input.
func synthScenario(name string) results.Scenario {
	return results.Scenario{Name: name, Group: "matrix", Kind: "arena", Value: 100}
}

func liveWindow(name string, i int) (results.Sample, results.Health) {
	w := results.Sample{Type: results.SampleWindow, Scenario: name, T: float64(i+1) * 0.25, MBps: 10 + float64(i%7), HeapLive: 10 << 20,
		HeapGoal: 20 << 20, MemLimit: 64 << 20, RSS: 40 << 20, LatN: 10, LatP99: 1e6, Progress: float64(i) / 1000}
	return w, results.Health{Class: results.Healthy, Windows: []results.WindowHealth{{T: w.T, Class: results.Healthy, GCPct: 3}}}
}

func feedLines(ls *Server, name string, n int) {
	s := synthScenario(name)
	for i := range n {
		w, v := liveWindow(name, i)
		ls.Line(s, w, v)
	}
}

// openEvents opens an event stream and returns its reader once the headers
// arrived.
func openEvents(t *testing.T, url string) (*http.Response, *bufio.Reader) {
	t.Helper()
	resp, err := http.Get(url + "/events")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, bufio.NewReader(resp.Body)
}

// readEvents reads events until one of kind until arrives (or n events),
// returning their kinds in order.
func readEvents(t *testing.T, r *bufio.Reader, until liveKind) []liveKind {
	t.Helper()
	var kinds []liveKind
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended after %v: %v", kinds, err)
		}
		if k, ok := strings.CutPrefix(strings.TrimSpace(line), "event: "); ok {
			kinds = append(kinds, liveKind(k))
			if liveKind(k) == until {
				return kinds
			}
		}
	}
}

func count(kinds []liveKind, k liveKind) int {
	n := 0
	for _, x := range kinds {
		if x == k {
			n++
		}
	}
	return n
}

// TestLiveLateClientGetsHistory: a page opened mid-run first receives the
// begin event and every window so far, then follows; a scenario that was
// not announced at Begin is streamed like the others.
func TestLiveLateClientGetsHistory(t *testing.T) {
	ls, srv := liveServer(t, Options{})
	ls.Begin(&results.Summary{Command: "gcstress test"}, []results.Scenario{synthScenario("arena/100B")})
	feedLines(ls, "arena/100B", 5)
	ls.Done(results.Result{Scenario: synthScenario("arena/100B"), Verdict: results.Health{Class: results.Healthy}})
	_, r := openEvents(t, srv.URL)
	kinds := readEvents(t, r, liveDone)
	if kinds[0] != liveBegin || count(kinds, liveLine) != 5 {
		t.Fatalf("history: %v", kinds)
	}
	late := synthScenario("capacity/step-1") // not announced at Begin
	ls.Line(late, results.Sample{Type: results.SampleStart, Scenario: late.Name}, results.Health{})
	feedLines(ls, late.Name, 2)
	ls.End(&results.Summary{})
	kinds = readEvents(t, r, liveEnd)
	if count(kinds, liveScenario) != 1 || count(kinds, liveLine) != 2 {
		t.Fatalf("after history: %v", kinds)
	}
}

// TestLiveTooManyClients: streams beyond MaxClients get 503; one that
// closes frees its place.
func TestLiveTooManyClients(t *testing.T) {
	ls, srv := liveServer(t, Options{MaxClients: 2})
	first, _ := openEvents(t, srv.URL)
	openEvents(t, srv.URL)
	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third client: %s, want 503", resp.Status)
	}
	first.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for ls.Stats().Clients > 1 && time.Now().Before(deadline) {
		feedLines(ls, "x", 1) // a write notices the closed connection
		time.Sleep(20 * time.Millisecond)
	}
	resp, err = http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after one left: %s, want 200", resp.Status)
	}
}

// stuckWriter is a ResponseWriter whose writes block until released: a
// client that stopped reading.
type stuckWriter struct {
	h       http.Header
	release chan struct{}
	once    sync.Once
}

func (w *stuckWriter) Header() http.Header { return w.h }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Write(p []byte) (int, error) {
	<-w.release
	return 0, errors.New("gone")
}
func (w *stuckWriter) Flush() {}

// TestLiveSlowClientDoesNotStall: a client that reads nothing never delays
// the Observer calls; once its queue is full it is dropped.
func TestLiveSlowClientDoesNotStall(t *testing.T) {
	ls := NewServer(Options{ClientBuffer: 8})
	defer ls.Close()
	ls.Begin(&results.Summary{}, nil)
	w := &stuckWriter{h: http.Header{}, release: make(chan struct{})}
	defer w.once.Do(func() { close(w.release) })
	done := make(chan struct{})
	go func() {
		defer close(done)
		ls.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/events", nil))
	}()
	for ls.Stats().Clients == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	feedLines(ls, "arena/100B", 5000)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("5000 Line calls took %v with a stuck client", d)
	}
	if st := ls.Stats(); st.SlowClients != 1 || st.Clients != 0 {
		t.Fatalf("stats %+v: the stuck client should have been dropped", st)
	}
	w.once.Do(func() { close(w.release) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the dropped client's handler did not return")
	}
}

// TestLiveBadMethodAndPath: only GET and HEAD, only / and /events.
func TestLiveBadMethodAndPath(t *testing.T) {
	ls, srv := liveServer(t, Options{})
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodPost, "/", http.StatusMethodNotAllowed},
		{http.MethodDelete, "/events", http.StatusMethodNotAllowed},
		{http.MethodGet, "/nope", http.StatusNotFound},
		{http.MethodGet, "/../etc/passwd", http.StatusNotFound},
		{http.MethodHead, "/", http.StatusOK},
		{http.MethodHead, "/events", http.StatusOK},
		{http.MethodGet, "/", http.StatusOK},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
		if tc.method == http.MethodGet && tc.path == "/" && !strings.Contains(string(body), "gcstress live") {
			t.Errorf("GET / is not the page")
		}
	}
	if n := ls.Stats().Clients; n != 0 {
		t.Errorf("HEAD /events registered %d client(s)", n)
	}
}

// TestLiveHistoryBound: the history stays within MaxHistory; the begin
// event is kept, the oldest windows go first, and a late page is told how
// many it missed.
func TestLiveHistoryBound(t *testing.T) {
	ls, srv := liveServer(t, Options{MaxHistory: 100})
	ls.Begin(&results.Summary{}, nil)
	ls.Done(results.Result{Scenario: synthScenario("a")})
	feedLines(ls, "a", 5000)
	ls.End(&results.Summary{})
	st := ls.Stats()
	if st.History > 100 || st.DroppedWindows < 4900 {
		t.Fatalf("stats %+v", st)
	}
	_, r := openEvents(t, srv.URL)
	kinds := readEvents(t, r, liveEnd)
	if kinds[0] != liveBegin || kinds[1] != liveTruncated || count(kinds, liveDone) != 1 || count(kinds, liveLine) > 100 {
		t.Fatalf("late page got %d events: %v...", len(kinds), kinds[:3])
	}
}

// TestLiveReadHeaderTimeout: a client that never finishes its headers is
// disconnected.
func TestLiveReadHeaderTimeout(t *testing.T) {
	ls := NewServer(Options{ReadHeaderTimeout: 200 * time.Millisecond})
	url, err := ls.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n") // never ends
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	io.Copy(io.Discard, c) // returns when the server hangs up
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("connection held %v", d)
	}
}

func TestLiveAddr(t *testing.T) {
	for in, want := range map[string]string{":8080": "127.0.0.1:8080", "0.0.0.0:80": "0.0.0.0:80",
		"[::1]:9000": "[::1]:9000", "localhost:1": "localhost:1", "127.0.0.1:0": "127.0.0.1:0"} {
		if got, err := Addr(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"8080", ":99999", ":http", "example.com:80", ""} {
		if _, err := Addr(bad); !errors.Is(err, usage.ErrUsage) || !strings.Contains(err.Error(), "-http") {
			t.Errorf("%q: %v, want usage.ErrUsage naming -http", bad, err)
		}
	}
}

// TestLiveCloseEndsStreams: Close ends open streams and stops the server.
func TestLiveCloseEndsStreams(t *testing.T) {
	ls := NewServer(Options{})
	url, err := ls.Start(":0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url %s: a port alone must bind loopback", url)
	}
	resp, err := http.Get(url + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() { <-ctx.Done(); resp.Body.Close() }()
	if err := ls.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); ctx.Err() != nil {
		t.Fatalf("stream did not end: %v", err)
	}
}

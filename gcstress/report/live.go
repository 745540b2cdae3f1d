// The live page of a gcstress run (`gcstress -http ADDR`):
// Server is a gcstress Observer that turns every event of a run into a
// server-sent event, and an http.Handler that serves a page drawing them.
//
// Invariants:
//   - Every request's Host header must name the server as only a local
//     browser can (a loopback address, localhost, or the listener's own
//     address), so a page of another origin cannot read the run through
//     DNS rebinding; other requests are refused with 403.
//   - The history is bounded (Options), each client has a bounded queue,
//     and a client whose queue is full is dropped: a slow client never
//     delays the run.
//   - Names from engines and children reach the page as JSON data, escaped
//     by the page as HTML.
//
// The live page (`gcstress -http 127.0.0.1:8080`): Server is an
// Observer that turns every event of a run into a server-sent event and
// serves a page drawing them (web/live.html.tmpl, web/live.js; everything
// inlined, nothing loaded from elsewhere). A page opened mid-run first
// receives the history recorded so far, then follows.
//
// Every request's Host header must name the server as only a local
// browser can (allowedHost): localhost, a loopback address, or the address
// the connection came in on. Anything else gets 403, so a page of another
// site whose name was rebound to 127.0.0.1 (DNS rebinding) cannot read the
// stream: its requests carry that site's name.

package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/usage"
)

// Errors of the live server.
var (
	// ErrLiveBusy: the cap on concurrent event streams (Options.MaxClients)
	// is reached; the client gets 503.
	ErrLiveBusy = errors.New("gcstress: live page: too many clients")
	// ErrLiveClosed: the server was closed.
	ErrLiveClosed = errors.New("gcstress: live page: closed")
)

// liveKind is the type of a server-sent event (its "event:" field).
type liveKind string

// The events of the live stream, in the order a run produces them.
const (
	liveBegin     liveKind = "begin"     // the run's settings and the scenarios announced at Begin
	liveScenario  liveKind = "scenario"  // a scenario's child started (also one not announced at Begin)
	liveLine      liveKind = "line"      // one window (view.Point)
	liveDone      liveKind = "done"      // a scenario's result row
	liveEnd       liveKind = "end"       // the run ended; the page stops listening
	liveTruncated liveKind = "truncated" // sent first to a late page when old windows were dropped
)

// Options bound what a Server holds and waits for; zero fields take
// the defaults named. A plain value, read once by NewServer.
type Options struct {
	// MaxClients caps concurrent event streams (default 16); more get 503.
	MaxClients int
	// ClientBuffer is the events queued for one client (default 1024). A
	// client whose queue is full is dropped (its stream ends; the page
	// reconnects and reloads), so a slow client never delays the run.
	ClientBuffer int
	// MaxHistory caps the events kept for pages opened later (default
	// 20000, about 10 MB: a window event is 300-500 bytes). Beyond it the
	// oldest window events are dropped first, and a late page is told how
	// many it missed; the begin event is always kept.
	MaxHistory int
	// ReadHeaderTimeout bounds reading a request's headers (default 5 s);
	// WriteTimeout bounds each write to a client (default 10 s).
	ReadHeaderTimeout, WriteTimeout time.Duration
}

func (o *Options) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxClients, 16)
	def(&o.ClientBuffer, 1024)
	def(&o.MaxHistory, 20000)
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 5 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
}

// Server serves the live page of one run and is its Observer (pass it
// in Options.Observer). It is an http.Handler: GET or HEAD of / is the
// page and of /events the event stream; a Host header that is not
// localhost, a loopback address or the connection's own address gets 403,
// other methods 405, other paths 404. Observer calls never block on clients: each client has a bounded
// queue (Options), filled without waiting. Memory is bounded by
// MaxHistory events plus MaxClients x ClientBuffer queued ones. Safe for
// concurrent use; the Observer methods come from Run's goroutine. Create
// it with NewServer, serve it with Start (or any http.Server), and
// Close it after the run: its streams end and Start's server stops.
type Server struct {
	opts Options
	page []byte

	mu          sync.Mutex
	begin       []byte      // the begin event's frame, nil before Begin
	hist        []liveFrame // every later event, oldest first
	lines       int         // liveLine frames in hist
	dropped     int         // window events dropped from hist
	clients     map[*liveClient]struct{}
	slowDropped int
	closed      bool
	srv         *http.Server
	envs        []results.BuildEnv // the run's build environments (Begin): each (kind, env) its colour
}

type liveFrame struct {
	kind liveKind
	b    []byte // "event: ...\ndata: ...\n\n"
}

type liveClient struct{ ch chan []byte }

// Stats is what a Server holds now (for tests and diagnostics). A
// plain value: a snapshot, stale as soon as it is returned.
type Stats struct {
	Clients        int // event streams open
	History        int // events kept for late pages, the begin event included
	DroppedWindows int // window events dropped from the history (MaxHistory)
	SlowClients    int // clients dropped because their queue was full
}

// NewServer returns a Server with opts (zero fields: defaults).
func NewServer(opts Options) *Server {
	opts.defaults()
	ls := &Server{opts: opts, clients: map[*liveClient]struct{}{}}
	pd, err := view.NewPageData("live", "live.js", nil)
	if err == nil {
		var buf bytes.Buffer
		err = view.Template("live.html.tmpl").Execute(&buf, pd)
		ls.page = buf.Bytes()
	}
	if err != nil {
		panic("gcstress: live page template: " + err.Error()) // embedded: a build bug
	}
	return ls
}

// Addr resolves the -http address: a port alone (":8080") binds the
// loopback interface 127.0.0.1; another interface is bound only when its
// address is given ("0.0.0.0:8080", "[::1]:8080"; "localhost" is
// accepted). Anything else is an error wrapping usage.ErrUsage naming -http.
func Addr(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", fmt.Errorf("%w: -http: %v (give HOST:PORT or :PORT)", usage.ErrUsage, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("%w: -http: bad port %q in %q", usage.ErrUsage, port, s)
	}
	switch {
	case host == "":
		host = "127.0.0.1"
	case host == "localhost", net.ParseIP(host) != nil:
	default:
		return "", fmt.Errorf("%w: -http: %q is not an IP address (give the interface's address, or :PORT for loopback)", usage.ErrUsage, host)
	}
	return net.JoinHostPort(host, port), nil
}

// Start listens on addr (see Addr) and serves in the background; it
// returns the page's URL. A listen failure wraps usage.ErrUsage (-http).
func (ls *Server) Start(addr string) (string, error) {
	a, err := Addr(addr)
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return "", fmt.Errorf("%w: -http: %v", usage.ErrUsage, err)
	}
	srv := &http.Server{Handler: ls, ReadHeaderTimeout: ls.opts.ReadHeaderTimeout, ReadTimeout: 2 * ls.opts.ReadHeaderTimeout,
		IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10, ErrorLog: log.New(io.Discard, "", 0)}
	ls.mu.Lock()
	ls.srv = srv
	ls.mu.Unlock()
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/", nil
}

// Close ends every event stream (each gets what is queued for it first,
// within a couple of seconds) and stops the server Start started.
func (ls *Server) Close() error {
	ls.mu.Lock()
	ls.closed = true
	for c := range ls.clients {
		delete(ls.clients, c)
		close(c.ch)
	}
	srv := ls.srv
	ls.mu.Unlock()
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return srv.Close()
	}
	return nil
}

// Stats says what the server holds now.
func (ls *Server) Stats() Stats {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	n := len(ls.hist)
	if ls.begin != nil {
		n++
	}
	return Stats{Clients: len(ls.clients), History: n, DroppedWindows: ls.dropped, SlowClients: ls.slowDropped}
}

// Begin records the run's settings and the scenarios known so far.
func (ls *Server) Begin(sum *results.Summary, scenarios []results.Scenario) {
	type scen struct {
		Name  string `json:"name"`
		Kind  string `json:"kind"`
		Color string `json:"color"` // view.EnvColourHex(Kind, its environment's position)
		Group string `json:"group"`
		Value string `json:"value"`
		Env   string `json:"env,omitempty"` // its build environment (-build-envs)
	}
	d := struct {
		Meta      [][2]string `json:"meta"`
		Scenarios []scen      `json:"scenarios"`
	}{Meta: [][2]string{{"command", sum.Command}, {"Go", sum.GoVersion + " " + sum.GOOS + "/" + sum.GOARCH},
		{"machine", view.MachineLine(sum, func(s string) string { return s })},
		{"started", sum.Started.Format("2006-01-02 15:04:05Z")}, {"results", sum.Out}, {"health rules", sum.Rules}}}
	ls.mu.Lock()
	ls.envs = sum.BuildEnvs
	ls.mu.Unlock()
	for _, s := range scenarios {
		p := ls.pointOf(s, results.Sample{}, nil)
		d.Scenarios = append(d.Scenarios, scen{p.Name, p.Kind, p.Colour, p.Group, p.Value, p.Env})
	}
	ls.publish(liveBegin, d)
}

// Line publishes a child's start line (the scenario, announced or not) and
// window lines; the end and flight lines are left to Done.
func (ls *Server) Line(s results.Scenario, l results.Sample, v results.Health) {
	switch l.Type {
	case results.SampleStart:
		p := ls.pointOf(s, l, nil)
		ls.publish(liveScenario, map[string]string{"name": p.Name, "kind": p.Kind, "color": p.Colour, "group": p.Group, "value": p.Value, "env": p.Env})
	case results.SampleWindow:
		var wh *results.WindowHealth
		if n := len(v.Windows); n > 0 {
			wh = &v.Windows[n-1]
		}
		p := ls.pointOf(s, l, wh)
		p.Verdict = v.Class
		ls.publish(liveLine, p)
	}
}

// Done publishes a scenario's result row.
func (ls *Server) Done(r results.Result) {
	f := view.FiguresOf(r)
	p := ls.pointOf(r.Scenario, r.Last, nil)
	ls.publish(liveDone, map[string]any{"name": p.Name, "kind": p.Kind, "color": p.Colour, "group": p.Group, "value": p.Value, "env": p.Env,
		"class": r.Verdict.Class, "progress": r.Last.Progress,
		"row": []string{r.Scenario.Name, view.CellText(r), string(r.Verdict.Class), fmt.Sprintf("%.1f", f.GCPct),
			fmt.Sprintf("%.1f", f.AssistPct), results.MiB(f.PeakHeap), view.NS(f.LatP99), r.Verdict.Why}})
}

// pointOf is view.PointOf in the colour of the scenario's kind and build
// environment: two environments of one kind are two series, each its own
// shade (view.EnvColour) and label (Point.Env).
func (ls *Server) pointOf(s results.Scenario, w results.Sample, wh *results.WindowHealth) view.Point {
	p := view.PointOf(s, w, wh)
	if s.BuildEnv != "" {
		ls.mu.Lock()
		i := view.EnvIndex(ls.envs, s.BuildEnv)
		ls.mu.Unlock()
		p.Colour = view.EnvColourHex(s.Kind, i)
	}
	return p
}

// End publishes the end of the run; pages stop listening.
func (ls *Server) End(sum *results.Summary) {
	ls.publish(liveEnd, map[string]any{"interrupted": sum.Interrupted, "out": sum.Out, "results": len(sum.Results)})
}

// publish records an event and queues it for every client, dropping a
// client whose queue is full.
func (ls *Server) publish(kind liveKind, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		return // plain values: cannot fail
	}
	frame := liveFrameBytes(kind, b)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if kind == liveBegin {
		ls.begin = frame
	} else {
		ls.hist = append(ls.hist, liveFrame{kind, frame})
		if kind == liveLine {
			ls.lines++
		}
		ls.trim()
	}
	for c := range ls.clients {
		select {
		case c.ch <- frame:
		default:
			delete(ls.clients, c)
			close(c.ch)
			ls.slowDropped++
		}
	}
}

func liveFrameBytes(kind liveKind, data []byte) []byte {
	b := make([]byte, 0, len(data)+len(kind)+16)
	b = append(b, "event: "...)
	b = append(b, kind...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// trim keeps hist within MaxHistory (less the begin event): it drops the
// oldest window events first, a tenth of the history at a time so that
// trimming costs O(1) per event, then the oldest of any kind.
func (ls *Server) trim() {
	limit := ls.opts.MaxHistory - 1
	if len(ls.hist) <= limit {
		return
	}
	excess := len(ls.hist) - limit + limit/10
	kept := ls.hist[:0]
	dropLines := min(excess, ls.lines)
	others := excess - dropLines
	for _, f := range ls.hist {
		switch {
		case f.kind == liveLine && dropLines > 0:
			dropLines--
			ls.lines--
			ls.dropped++
		case f.kind != liveLine && others > 0:
			others--
		default:
			kept = append(kept, f)
		}
	}
	clear(ls.hist[len(kept):])
	ls.hist = kept
}

// ServeHTTP serves the page (/) and the event stream (/events).
func (ls *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !allowedHost(r) {
		http.Error(w, "gcstress live page: Host "+strconv.Quote(r.Host)+" not allowed: open the page at localhost, 127.0.0.1 or the address it listens on",
			http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	switch r.URL.Path {
	case "/":
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:")
		w.Write(ls.page)
	case "/events":
		ls.serveEvents(w, r)
	default:
		http.NotFound(w, r)
	}
}

// allowedHost reports whether r's Host header is localhost, a loopback
// address, or the local address of r's connection (an interface the
// server was bound to with -http ADDR), with any port. A name other than
// localhost is refused: DNS rebinding needs one.
func allowedHost(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	lp, err := netip.ParseAddrPort(local.String())
	return err == nil && lp.Addr().Unmap().WithZone("") == ip.WithZone("")
}

// subscribe registers a client and returns the history it must be sent
// first; the two happen under one lock, so nothing is missed or repeated.
func (ls *Server) subscribe() (*liveClient, [][]byte, error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.closed {
		return nil, nil, ErrLiveClosed
	}
	if len(ls.clients) >= ls.opts.MaxClients {
		return nil, nil, ErrLiveBusy
	}
	c := &liveClient{ch: make(chan []byte, ls.opts.ClientBuffer)}
	ls.clients[c] = struct{}{}
	var snap [][]byte
	if ls.begin != nil {
		snap = append(snap, ls.begin)
	}
	if ls.dropped > 0 {
		snap = append(snap, liveFrameBytes(liveTruncated, fmt.Appendf(nil, `{"dropped":%d}`, ls.dropped)))
	}
	for _, f := range ls.hist {
		snap = append(snap, f.b)
	}
	return c, snap, nil
}

func (ls *Server) unsubscribe(c *liveClient) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if _, ok := ls.clients[c]; ok {
		delete(ls.clients, c)
		close(c.ch)
	}
}

// serveEvents streams the history, then every new event, until the client
// goes, is dropped as slow, or the server closes.
func (ls *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	if r.Method == http.MethodHead {
		return
	}
	c, snap, err := ls.subscribe()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer ls.unsubscribe(c)
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(frames ...[]byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(ls.opts.WriteTimeout)) // unsupported by some writers: then unbounded
		for _, f := range frames {
			if _, err := w.Write(f); err != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	if !send(snap...) {
		return
	}
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case f, ok := <-c.ch:
			if !ok || !send(f) {
				return
			}
		case <-ping.C:
			if !send([]byte(": ping\n\n")) {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// Command service is a small HTTP key-value service on a writegc memtable
// kind, with gchealth mounted: the collector's health at /debug/gchealth
// (an HTML page; JSON with ?format=json) and as Prometheus metrics at
// /metrics (gchealthprom). It binds the loopback interface unless told
// otherwise.
//
//	GOMEMLIMIT=128MiB go run ./examples/service -kind heap -addr 127.0.0.1:8080
//	curl -X PUT --data-binary v1 localhost:8080/kv/k1; curl localhost:8080/kv/k1
//	curl -X POST 'localhost:8080/fill?n=200000&size=10'   # load: n generated keys
//	curl 'localhost:8080/debug/gchealth?format=json'
//
// Flags: -kind (heap, arena, offheap, btree), -addr, -window (gchealth's
// sampling window), -capture-dir (captures on degraded/failing),
// -exit-on-spiral CODE (exit with CODE in a GOMEMLIMIT death spiral; 0: stay up).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/writegc/writegc/gchealth"
	"github.com/writegc/writegc/gchealth/gchealthprom"
	"github.com/writegc/writegc/memtable"
)

// Limits of one request.
const (
	maxValue    = 1 << 20 // PUT body
	maxFillKeys = 1_000_000
	maxFillSize = 64 << 10
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (loopback by default)")
	kind := fs.String("kind", memtable.KindHeap, "memtable kind: heap, arena, offheap, btree")
	window := fs.Duration("window", time.Second, "gchealth sampling window")
	captures := fs.String("capture-dir", "", "write a flight-recorder trace and heap profile here on degraded or failing")
	exitCode := fs.Int("exit-on-spiral", 0, "exit with this code in a GOMEMLIMIT death spiral (0: stay up)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mt, err := memtable.New(*kind, memtable.Options{})
	if err != nil {
		fmt.Fprintln(stderr, "service:", err)
		return 2
	}
	defer mt.Close()
	opts := gchealth.Options{Window: *window, CaptureDir: *captures}
	if *exitCode != 0 {
		opts.OnSpiral = gchealth.Exit(*exitCode)
	}
	mon, err := gchealth.New(opts)
	if err != nil {
		fmt.Fprintln(stderr, "service:", err)
		return 2
	}
	defer mon.Close()
	mon.OnChange(func(c gchealth.Change) {
		fmt.Fprintf(stderr, "service: gc health %s -> %s %v capture %v %v\n", c.From, c.To, c.Causes, c.Capture, c.CaptureErr)
	})
	reg := prometheus.NewRegistry()
	reg.MustRegister(gchealthprom.NewCollector(mon))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "service:", err)
		return 1
	}
	srv := &http.Server{Handler: routes(&store{mt: mt}, mon, reg), ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 5 * time.Minute, MaxHeaderBytes: 16 << 10}
	fmt.Fprintf(stderr, "service: %s memtable, listening on http://%s/\n", *kind, ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "service:", err)
		return 1
	}
	return 0
}

func routes(s *store, mon *gchealth.Monitor, reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /kv/{key}", s.get)
	mux.HandleFunc("PUT /kv/{key}", s.put)
	mux.HandleFunc("POST /fill", s.fill)
	mux.Handle("/debug/gchealth", mon.Handler())
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{MaxRequestsInFlight: 4}))
	return mux
}

// store is the key-value service over one memtable.
type store struct {
	mt   memtable.Memtable
	next atomic.Int64 // /fill's key counter
}

func (s *store) get(w http.ResponseWriter, r *http.Request) {
	v, ok := s.mt.Get([]byte(r.PathValue("key")))
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(v)
}

func (s *store) put(w http.ResponseWriter, r *http.Request) {
	v, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxValue))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	if err := s.mt.Put([]byte(r.PathValue("key")), v); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// fill writes n generated keys ("key-" and a counter) with size-byte
// values: a load generator inside the service, for demonstrations and the
// test.
func (s *store) fill(w http.ResponseWriter, r *http.Request) {
	n, err1 := strconv.Atoi(r.URL.Query().Get("n"))
	size, err2 := strconv.Atoi(r.URL.Query().Get("size"))
	if err1 != nil || err2 != nil || n < 1 || n > maxFillKeys || size < 0 || size > maxFillSize {
		http.Error(w, fmt.Sprintf("give n (1..%d) and size (0..%d)", maxFillKeys, maxFillSize), http.StatusBadRequest)
		return
	}
	key := make([]byte, 0, 32)
	val := make([]byte, size)
	for range n {
		i := s.next.Add(1)
		key = strconv.AppendInt(append(key[:0], "key-"...), i, 10)
		if size > 0 {
			val[0] = byte(i)
		}
		if err := s.mt.Put(key, val); err != nil {
			http.Error(w, err.Error(), http.StatusInsufficientStorage)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]int64{"keys": s.next.Load(), "len": int64(s.mt.Len()), "bytes": s.mt.Size()})
}

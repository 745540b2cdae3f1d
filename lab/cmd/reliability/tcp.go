package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/writegc/writegc/writepath"
)

// tcpConfig is one run's server limits and abuse sizes.
type tcpConfig struct {
	quick        bool
	maxReply     int
	maxConns     int
	readTimeout  time.Duration
	idleTimeout  time.Duration
	writeTimeout time.Duration
	minAbuse     time.Duration // the well-behaved client runs at least this long per abuse
	maxAbuse     time.Duration // every abuse stops by itself within this
	scale        int           // divides the abuse counts
}

func newTCPConfig(quick bool) tcpConfig {
	c := tcpConfig{maxReply: writepath.DefaultMaxReply, maxConns: 256,
		readTimeout: 2 * time.Second, idleTimeout: 3 * time.Second, writeTimeout: 2 * time.Second,
		minAbuse: 3 * time.Second, maxAbuse: 15 * time.Second, scale: 1}
	if quick {
		c = tcpConfig{quick: true, maxReply: 4 << 20, maxConns: 32,
			readTimeout: 300 * time.Millisecond, idleTimeout: 500 * time.Millisecond, writeTimeout: 300 * time.Millisecond,
			minAbuse: 300 * time.Millisecond, maxAbuse: 5 * time.Second, scale: 10}
	}
	return c
}

func (c tcpConfig) childArgs() []string {
	return []string{
		"-max-reply", fmt.Sprint(c.maxReply), "-max-conns", fmt.Sprint(c.maxConns),
		// Every abuse dials from 127.0.0.1, the well-behaved client too:
		// one peer, allowed every slot, so that MaxConns is what is measured.
		"-max-conns-per-peer", fmt.Sprint(c.maxConns),
		"-read-timeout", c.readTimeout.String(), "-idle-timeout", c.idleTimeout.String(),
		"-write-timeout", c.writeTimeout.String(),
		// Keep every value the abuses store in a memtable, where Gets see it.
		"-flush-threshold", fmt.Sprint(c.maxReply*2 + 64<<20),
	}
}

// abuse is one hostile or careless client behaviour.
type abuse struct {
	name  string
	limit func(c tcpConfig) string // the option that handles it
	// run abuses the server at addr and says what happened to the abusive
	// connections; it must return within c.maxAbuse.
	run func(c tcpConfig, addr string) (string, error)
	// childArgs, if not nil, are server flags for this abuse (after the
	// config's, so they win).
	childArgs func(c tcpConfig) []string
}

// tcpRow is one line of the report.
type tcpRow struct {
	abuse, limit    string
	peakMiB, rssMiB float64
	p50, p99, max   time.Duration
	requests, fails int64
	outcome         string
}

func runTCP(args []string, stdout, stderr io.Writer) int {
	fs := subcommandFlags("tcp", "usage: reliability tcp [-out FILE] [-quick]\n\nRuns each abuse against a writegc TCP server in a child process while a well-behaved client does small Puts and Gets.", stderr)
	out := fs.String("out", "", "also write the Markdown table to `FILE`")
	quick := fs.Bool("quick", false, "small counts and short timeouts (a smoke test, not for publishing)")
	if !parseSubcommand(fs, args, stderr) {
		return 2
	}
	cfg := newTCPConfig(*quick)
	var rows []tcpRow
	for _, a := range tcpAbuses {
		fmt.Fprintf(stderr, "reliability tcp: %s ...\n", a.name)
		r, err := runAbuse(cfg, a)
		if err != nil {
			fmt.Fprintf(stderr, "reliability tcp: %s: %v\n", a.name, err)
			return 1
		}
		rows = append(rows, r)
	}
	var b strings.Builder
	writeTCPTable(&b, cfg, rows)
	return emitTable(fs.Name(), b.String(), *out, stdout, stderr)
}

// runAbuse runs one abuse against a fresh child server while a well-behaved
// client measures latency and the child's memory is sampled.
func runAbuse(cfg tcpConfig, a abuse) (tcpRow, error) {
	args := cfg.childArgs()
	if a.childArgs != nil {
		args = append(args, a.childArgs(cfg)...)
	}
	ch, err := startChild(args)
	if err != nil {
		return tcpRow{}, err
	}
	defer ch.stop()
	good, err := startGoodClient(ch.addr)
	if err != nil {
		return tcpRow{}, err
	}
	var peak int64
	stopSample := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if hwm, _, err := ch.memKiB(); err == nil {
				peak = max(peak, hwm)
			}
			select {
			case <-stopSample:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	t0 := time.Now()
	outcome, aerr := a.run(cfg, ch.addr)
	if d := cfg.minAbuse - time.Since(t0); d > 0 {
		time.Sleep(d)
	}
	h, requests, fails := good.stop()
	close(stopSample)
	wg.Wait()
	hwm, rss, err := ch.memKiB()
	if err != nil {
		return tcpRow{}, err
	}
	if aerr != nil {
		outcome = "harness error: " + aerr.Error()
	}
	us := func(q float64) time.Duration { return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond }
	return tcpRow{abuse: a.name, limit: a.limit(cfg), peakMiB: float64(max(peak, hwm)) / 1024, rssMiB: float64(rss) / 1024,
		p50: us(50), p99: us(99), max: time.Duration(h.Max()) * time.Microsecond,
		requests: requests, fails: fails, outcome: outcome}, nil
}

// goodClient does a small Put then a Get of it every 5 ms and records each
// one's latency; a request that errs or takes over 2 s counts as failed.
type goodClient struct {
	tr       *writepath.TCPTransport
	h        *hdrhistogram.Histogram
	requests int64
	fails    int64
	stopc    chan struct{}
	wg       sync.WaitGroup
}

const goodTimeout = 2 * time.Second

func startGoodClient(addr string) (*goodClient, error) {
	tr, err := writepath.DialTCP(addr, writepath.TCPClientOptions{})
	if err != nil {
		return nil, err
	}
	g := &goodClient{tr: tr, h: hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3), stopc: make(chan struct{})}
	g.wg.Go(g.loop)
	return g, nil
}

func (g *goodClient) loop() {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		key := fmt.Appendf(nil, "good-%08d", i)
		g.do(func() error { return writepath.NewDirect(g.tr).Put(key, []byte("small value")) })
		g.do(func() error {
			vals, err := g.tr.Get([][]byte{key})
			if err == nil && string(vals[0]) != "small value" {
				err = errors.New("wrong value")
			}
			return err
		})
		select {
		case <-tick.C:
		case <-g.stopc:
			return
		}
	}
}

func (g *goodClient) do(f func() error) {
	t0 := time.Now()
	done := make(chan error, 1)
	go func() { done <- f() }()
	g.requests++
	select {
	case err := <-done:
		g.h.RecordValue(max(time.Since(t0).Microseconds(), 1))
		if err != nil {
			g.fails++
		}
	case <-time.After(goodTimeout):
		g.h.RecordValue(goodTimeout.Microseconds())
		g.fails++
	}
}

func (g *goodClient) stop() (*hdrhistogram.Histogram, int64, int64) {
	close(g.stopc)
	g.wg.Wait()
	g.tr.Close()
	return g.h, g.requests, g.fails
}

func writeTCPTable(w io.Writer, cfg tcpConfig, rows []tcpRow) {
	mode := ""
	if cfg.quick {
		mode = " (-quick: small counts, short timeouts; not for publishing)"
	}
	fmt.Fprintf(w, "## TCP server under abuse%s\n\n", mode)
	fmt.Fprintf(w, "Each abuse runs against a fresh server process; a well-behaved client does a small Put and a Get every 5 ms meanwhile (a request over %v counts as failed).\n\n", goodTimeout)
	fmt.Fprintln(w, "| abuse | handled by | server peak RSS (MiB) | RSS after (MiB) | good p50 | good p99 | good max | good failed | abusive connection |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %v | %v | %v | %d/%d | %s |\n", r.abuse, r.limit, r.peakMiB, r.rssMiB,
			r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.max.Round(time.Microsecond), r.fails, r.requests, r.outcome)
	}
}

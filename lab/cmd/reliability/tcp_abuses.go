package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/writegc/writegc/writepath"
)

// The hostile clients speak the wire protocol byte by byte (see the
// protocol comment in writepath/frame.go), with writepath's frame types.

var tcpAbuses = []abuse{
	{"Get naming one 1 MiB key 5,000 times (20 KB request)", limitReply, abuseHugeGet, nil},
	{"multi-key Get of distinct 1 MiB values over the reply limit", limitReply, abuseBigMultiGet, nil},
	{"2,000 pipelined Gets of a 64 KiB value, replies never read", limitWrite, abuseNoRead, nil},
	{"10 connections each send a 9-byte header announcing 64 MiB", limitHeader, abuseHeaders, nil},
	{"50 slowloris connections (a byte every 100 ms)", limitRead, abuseSlowloris, nil},
	{"2,000 idle connections", limitConns, abuseIdle, nil},
	{"200 garbage connections (bytes, 4 GiB headers, truncated frames)", limitGarbage, abuseGarbage, nil},
	{"4 connections of another peer announce 56 MiB Puts and send 4 B/s", limitSlowLarge, abuseSlowLarge, nil},
	{"one peer opens 2,000 connections", limitPeerConns, abusePeerConns, peerConnsArgs},
}

func limitReply(c tcpConfig) string { return fmt.Sprintf("MaxReply=%d MiB", c.maxReply>>20) }
func limitWrite(c tcpConfig) string {
	return fmt.Sprintf("WriteTimeout=%v, MaxConnRequests=%d", c.writeTimeout, writepath.DefaultMaxConnRequests)
}
func limitHeader(c tcpConfig) string {
	return fmt.Sprintf("payload read as it arrives; MaxInFlightBytes=%d MiB; ReadTimeout=%v", writepath.DefaultMaxInFlightBytes>>20, c.readTimeout)
}
func limitRead(c tcpConfig) string { return fmt.Sprintf("ReadTimeout=%v", c.readTimeout) }
func limitConns(c tcpConfig) string {
	return fmt.Sprintf("MaxConns=%d, IdleTimeout=%v", c.maxConns, c.idleTimeout)
}
func limitGarbage(tcpConfig) string { return "protocol checks (MaxFrame=64 MiB)" }

func getPayload(keys ...[]byte) []byte {
	p := binary.LittleEndian.AppendUint32(nil, uint32(len(keys)))
	for _, k := range keys {
		p = binary.AppendUvarint(p, uint64(len(k)))
		p = append(p, k...)
	}
	return p
}

// dialHello connects and completes the handshake.
func dialHello(addr string) (net.Conn, error) { return dialHelloFrom(addr, "") }

// dialHelloFrom is dialHello from the local address ip ("" = any): on
// loopback, 127.0.0.2 and up are other peers to the server.
func dialHelloFrom(addr, ip string) (net.Conn, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	if ip != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(ip)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write(writepath.AppendFrame(nil, writepath.FrameHello, 0, []byte(writepath.ProtocolMagic))); err != nil {
		c.Close()
		return nil, err
	}
	f, _, err := writepath.ReadFrame(c, nil, 4096)
	if err == nil && f.Type != writepath.FrameHelloOK {
		err = fmt.Errorf("handshake answered with frame type %#x", f.Type)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// putValues stores n values of size bytes under key(i) through a client.
func putValues(addr string, n, size int, key func(i int) []byte) error {
	tr, err := writepath.DialTCP(addr, writepath.TCPClientOptions{})
	if err != nil {
		return err
	}
	defer tr.Close()
	for i := range n {
		if err := writepath.NewDirect(tr).Put(key(i), make([]byte, size)); err != nil {
			return err
		}
	}
	return nil
}

// askTooLarge sends a Get on c and expects ErrReplyTooLarge, then a small
// Get and expects an answer: the connection stayed usable.
func askTooLarge(c net.Conn, get []byte, small []byte) error {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := c.Write(writepath.AppendFrame(writepath.AppendFrame(nil, writepath.FrameGet, 1, get), writepath.FrameGet, 2, small)); err != nil {
		return err
	}
	for id := uint32(1); id <= 2; id++ {
		f, _, err := writepath.ReadFrame(c, nil, 64<<20)
		if err != nil {
			return fmt.Errorf("connection lost: %v", err)
		}
		want := writepath.FrameError
		if f.ID == 2 {
			want = writepath.FrameGetOK
		}
		if f.Type != want || want == writepath.FrameError && !errors.Is(writepath.DecodeError(f.Payload), writepath.ErrReplyTooLarge) {
			return fmt.Errorf("request %d answered with frame type %#x", f.ID, f.Type)
		}
	}
	return nil
}

func abuseHugeGet(c tcpConfig, addr string) (string, error) {
	key := []byte("big") // 5,000 × (1 + 3) B: a 20 KB request
	if err := putValues(addr, 1, 1<<20, func(int) []byte { return key }); err != nil {
		return "", err
	}
	keys := make([][]byte, 5000)
	for i := range keys {
		keys[i] = key
	}
	return askRepeatedly(addr, getPayload(keys...), getPayload([]byte("good-00000000")), 20/c.scale+1)
}

func abuseBigMultiGet(c tcpConfig, addr string) (string, error) {
	n := c.maxReply>>20 + 4
	key := func(i int) []byte { return fmt.Appendf(nil, "mget-%04d", i) }
	if err := putValues(addr, n, 1<<20, key); err != nil {
		return "", err
	}
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = key(i)
	}
	return askRepeatedly(addr, getPayload(keys...), getPayload(key(0)), 5)
}

func askRepeatedly(addr string, get, small []byte, times int) (string, error) {
	conn, err := dialHello(addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	for i := range times {
		if err := askTooLarge(conn, get, small); err != nil {
			return fmt.Sprintf("request %d of %d: %v", i+1, times, err), nil
		}
	}
	return fmt.Sprintf("%d × ErrReplyTooLarge (%d B request); connection still usable", times, len(get)), nil
}

// closedWithin reads (and discards) from c until the server closes it or
// wait passes; it reports how long the close took and the bytes read.
func closedWithin(c net.Conn, wait time.Duration) (time.Duration, int64, bool) {
	t0 := time.Now()
	c.SetReadDeadline(t0.Add(wait))
	n, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return time.Since(t0), n, false
	}
	return time.Since(t0), n, true
}

func abuseNoRead(c tcpConfig, addr string) (string, error) {
	if err := putValues(addr, 1, 64<<10, func(int) []byte { return []byte("v64k") }); err != nil {
		return "", err
	}
	conn, err := dialHello(addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	const n = 2000
	var req []byte
	for id := range uint32(n) {
		req = writepath.AppendFrame(req, writepath.FrameGet, id, getPayload([]byte("v64k")))
	}
	t0 := time.Now()
	go conn.Write(req) // blocks once the server stops reading; ends at close
	for time.Since(t0) < c.maxAbuse {
		open, err := established(conn)
		if err != nil {
			return "", err
		}
		if !open {
			return fmt.Sprintf("closed by the server %.1f s after its last request, replies unread", time.Since(t0).Seconds()), nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Sprintf("still open after %v", c.maxAbuse), nil
}

// holdAndCount dials n connections with dial, lets feed talk on each, and
// counts those the server closed within wait.
func holdAndCount(n int, wait time.Duration, dial func(i int) (net.Conn, error), feed func(i int, c net.Conn)) (int, error) {
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range n {
		c, err := dial(i)
		if err != nil {
			return 0, err
		}
		conns = append(conns, c)
		go feed(i, c)
	}
	closed := make(chan bool, n)
	deadline := time.Now().Add(wait)
	for _, c := range conns {
		go func() {
			_, _, ok := closedWithin(c, time.Until(deadline))
			closed <- ok
		}()
	}
	k := 0
	for range conns {
		if <-closed {
			k++
		}
	}
	return k, nil
}

func abuseHeaders(c tcpConfig, addr string) (string, error) {
	n := 10
	k, err := holdAndCount(n, c.readTimeout*3, func(int) (net.Conn, error) { return dialHello(addr) }, func(_ int, conn net.Conn) {
		hdr := binary.LittleEndian.AppendUint32(nil, 5+64<<20)
		conn.Write(append(hdr, byte(writepath.FramePut), 1, 0, 0, 0))
	})
	return fmt.Sprintf("%d/%d closed after ReadTimeout", k, n), err
}

func abuseSlowloris(c tcpConfig, addr string) (string, error) {
	n := 50 / c.scale
	k, err := holdAndCount(n, c.readTimeout*3, func(int) (net.Conn, error) { return dialHello(addr) }, func(_ int, conn net.Conn) {
		for _, b := range writepath.AppendFrame(nil, writepath.FrameGet, 1, getPayload(make([]byte, 200))) {
			if _, err := conn.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return fmt.Sprintf("%d/%d closed after ReadTimeout", k, n), err
}

// closeAll closes the connections *conns holds when it runs (deferred:
// those appended by then).
func closeAll(conns *[]net.Conn) {
	for _, conn := range *conns {
		conn.Close()
	}
}

// dialMany dials n connections with dial and keeps those that are
// admitted; refused counts the others (the server answered
// ErrTooManyConns and closed them). The caller closes conns.
func dialMany(n int, dial func() (net.Conn, error)) (conns []net.Conn, refused int) {
	for range n {
		conn, err := dial()
		if err != nil {
			refused++
			continue
		}
		conns = append(conns, conn)
	}
	return conns, refused
}

func abuseIdle(c tcpConfig, addr string) (string, error) {
	conns, refused := dialMany(2000/c.scale, func() (net.Conn, error) { return dialHello(addr) })
	defer closeAll(&conns)
	deadline := time.Now().Add(c.idleTimeout * 3)
	closed := 0
	for _, conn := range conns {
		if _, _, ok := closedWithin(conn, time.Until(deadline)); ok {
			closed++
		}
	}
	return fmt.Sprintf("%d refused at MaxConns; %d/%d admitted closed after IdleTimeout", refused, closed, len(conns)), nil
}

func abuseGarbage(c tcpConfig, addr string) (string, error) {
	n := 200 / c.scale
	kinds := [][]byte{
		[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		binary.LittleEndian.AppendUint32(nil, 0xffffffff),
		writepath.AppendFrame(nil, writepath.FramePut, 1, make([]byte, 1000))[:100],
	}
	k, err := holdAndCount(n, 10*time.Second, func(i int) (net.Conn, error) {
		if i%2 == 0 { // garbage before the handshake
			return net.DialTimeout("tcp", addr, 2*time.Second)
		}
		return dialHello(addr)
	}, func(i int, conn net.Conn) {
		conn.Write(kinds[i%len(kinds)])
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	})
	return fmt.Sprintf("%d/%d closed by the server", k, n), err
}

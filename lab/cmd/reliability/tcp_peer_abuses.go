package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/writegc/writegc/writepath"
)

// The abuses of one peer: the abusive connections dial from loopback
// addresses other than the well-behaved client's 127.0.0.1, which the
// server counts as other peers.
const (
	abuserIP = "127.0.0.2"
	otherIP  = "127.0.0.3"
)

func limitSlowLarge(tcpConfig) string {
	return fmt.Sprintf("MinReadRate=%d MiB/s; MaxPeerInFlightBytes=%d MiB", writepath.DefaultMinReadRate>>20, writepath.DefaultMaxInFlightBytes>>22)
}

func limitPeerConns(c tcpConfig) string {
	return fmt.Sprintf("MaxConnsPerPeer=%d (of MaxConns=%d)", c.maxConns/4, c.maxConns)
}

func peerConnsArgs(c tcpConfig) []string {
	return []string{"-max-conns-per-peer", fmt.Sprint(c.maxConns / 4)}
}

// abuseSlowLarge: four connections of one peer announce 56 MiB Puts (224
// MiB, the whole large-frame budget, together) and send 4 bytes a second;
// meanwhile a client of another address does a 1 MiB Put.
func abuseSlowLarge(c tcpConfig, addr string) (string, error) {
	const n = 4
	var conns []net.Conn
	defer closeAll(&conns)
	for range n {
		conn, err := dialHelloFrom(addr, abuserIP)
		if err != nil {
			return "", fmt.Errorf("dial from %s: %w", abuserIP, err)
		}
		conns = append(conns, conn)
		hdr := binary.LittleEndian.AppendUint32(nil, 5+56<<20)
		if _, err := conn.Write(append(hdr, byte(writepath.FramePut), 1, 0, 0, 0)); err != nil {
			return "", err
		}
		go func() {
			for {
				time.Sleep(250 * time.Millisecond)
				if _, err := conn.Write([]byte{0}); err != nil {
					return
				}
			}
		}()
	}
	var wg sync.WaitGroup
	took := make([]time.Duration, n)
	for i, conn := range conns {
		wg.Go(func() {
			d, _, ok := closedWithin(conn, c.maxAbuse)
			if !ok {
				d = -1
			}
			took[i] = d
		})
	}
	time.Sleep(100 * time.Millisecond) // the slow Puts hold their budget
	t0 := time.Now()
	perr := putValues(addr, 1, 1<<20, func(int) []byte { return []byte("big-good") })
	put := time.Since(t0)
	wg.Wait()
	closed := 0
	for _, d := range took {
		if d >= 0 {
			closed++
		}
	}
	putText := fmt.Sprintf("%.0f ms", put.Seconds()*1000)
	if perr != nil {
		putText = "failed: " + perr.Error()
	}
	return fmt.Sprintf("%d/%d closed, the last after %.1f s; a 1 MiB Put from 127.0.0.1 meanwhile: %s",
		closed, n, slices.Max(took).Seconds(), putText), nil
}

// abusePeerConns: one peer dials 2,000 connections and keeps them; then
// another peer dials one.
func abusePeerConns(c tcpConfig, addr string) (string, error) {
	// refused: ErrTooManyConns, per peer.
	conns, refused := dialMany(2000/c.scale, func() (net.Conn, error) { return dialHelloFrom(addr, abuserIP) })
	defer closeAll(&conns)
	other := "yes"
	conn, err := dialHelloFrom(addr, otherIP)
	if err != nil {
		other = "no: " + err.Error()
	} else {
		conn.Close()
	}
	return fmt.Sprintf("%d admitted, %d refused at MaxConnsPerPeer; another peer (%s) still connects: %s", len(conns), refused, otherIP, other), nil
}

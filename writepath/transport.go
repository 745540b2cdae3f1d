package writepath

import (
	"fmt"
	"strings"
)

// Transport carries requests from clients to one Server: Put batches
// (synchronous or pipelined) and multi-key gets.
//
// Concurrency: every method is safe for concurrent use. Lifetime: until
// Close (after which calls return ErrClosed); closing a transport does not
// close the server. Limits: a request must fit the TCP frame limit
// (DefaultMaxFrame) and a Get's encoded reply the reply limit
// (DefaultMaxReply; ErrReplyTooLarge, nothing is built) on every transport,
// so behaviour does not depend on which one is used.
type Transport interface {
	// Regions is the number of regions of the server (known to clients so
	// that they can group keys by region, see RegionOf).
	Regions() int
	// Put sends one batch and returns once the server acknowledged it.
	Put(b *Batch) error
	// PutAsync sends one batch and calls done exactly once with the
	// outcome, possibly on another goroutine and possibly before PutAsync
	// returns. b must not be modified until done runs.
	PutAsync(b *Batch, done func(error))
	// Get looks keys up in one request. vals[i] is nil when keys[i] is not
	// found (a found empty value is a non-nil empty slice).
	Get(keys [][]byte) ([][]byte, error)
	Close() error
}

// Transport names, as accepted by Connect.
const (
	// TransportInproc calls the server in the same process (NewInProc).
	TransportInproc = "inproc"
	// TransportTCP speaks the frame protocol over a loopback TCP connection
	// (ListenTCP and DialTCP).
	TransportTCP = "tcp"
)

// Transports lists the transport names Connect accepts.
func Transports() []string { return []string{TransportInproc, TransportTCP} }

// Connect returns a transport of the given kind to s and a function that
// closes everything Connect started. For TransportTCP it starts a TCP server on a
// loopback listener (127.0.0.1:0) and dials it; the function closes both.
func Connect(transport string, s *Server) (Transport, func() error, error) {
	switch transport {
	case TransportInproc:
		t := NewInProc(s)
		return t, t.Close, nil
	case TransportTCP:
		ts, err := ListenTCP(s, "127.0.0.1:0", TCPServerOptions{Logger: s.logger})
		if err != nil {
			return nil, nil, err
		}
		t, err := DialTCP(ts.Addr().String(), TCPClientOptions{})
		if err != nil {
			ts.Close()
			return nil, nil, err
		}
		return t, func() error {
			err := t.Close()
			if err2 := ts.Close(); err == nil {
				err = err2
			}
			return err
		}, nil
	}
	return nil, nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownTransport, transport, strings.Join(Transports(), ", "))
}

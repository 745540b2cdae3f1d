package writepath

import (
	"cmp"
	"fmt"
	"strings"
	"time"
)

// Client writes Puts to a server through a Transport.
//
// Concurrency: every implementation is safe for concurrent use. Lifetime:
// until Close, which sends whatever is buffered and waits for what is in
// flight; after Close every call returns ErrClosed. Closing a client does not
// close its transport. Put copies key and value; the caller may reuse them
// at once.
type Client interface {
	// Put writes one entry. When it returns depends on the path: direct
	// and autoflush after the server's ack; buffered once the entry is in
	// the client buffer; async once the request is in flight.
	Put(key, value []byte) error
	// Flush sends what is buffered and waits until everything accepted so
	// far is acknowledged; it returns the first error not yet reported.
	Flush() error
	Close() error
}

// Client paths, as accepted by NewClient.
const (
	// PathAsync sends every Put as its own request without waiting for the
	// ack; Put blocks only when ClientOptions.MaxInFlight are outstanding.
	PathAsync = "async"
	// PathAutoFlush goes through the buffered client's sender, but every Put
	// is handed over at once and waits for its ack (HTable.put before
	// HBASE-18500).
	PathAutoFlush = "autoflush"
	// PathBuffered collects Puts in a client buffer sent when full, on
	// FlushInterval, on Flush and on Close (HBase's BufferedMutator).
	PathBuffered = "buffered"
	// PathDirect sends every Put as its own request and waits for its ack
	// (HTable.put after HBASE-18500).
	PathDirect = "direct"
)

// Paths lists the client paths NewClient accepts.
func Paths() []string { return []string{PathAsync, PathAutoFlush, PathBuffered, PathDirect} }

// Client defaults.
const (
	DefaultBufferSize  = 2 << 20 // hbase.client.write.buffer
	DefaultMaxInFlight = 64
	DefaultMaxSends    = 2
)

// ClientOptions configure NewClient. The zero value works.
type ClientOptions struct {
	// BufferSize (buffered, autoflush): encoded bytes that trigger a send
	// (default 2 MiB, HBase's hbase.client.write.buffer).
	BufferSize int
	// FlushInterval (buffered): send a non-empty buffer at least this often;
	// 0 = only when full, on Flush and on Close (HBase's periodic flush is
	// off by default too).
	FlushInterval time.Duration
	// MaxSends (buffered, autoflush): full buffers queued to the background
	// sender before Put blocks (default 2).
	MaxSends int
	// MaxInFlight (async): requests in flight before Put blocks (default 64).
	MaxInFlight int
}

func (o *ClientOptions) defaults() error {
	o.BufferSize = cmp.Or(o.BufferSize, DefaultBufferSize)
	o.MaxInFlight = cmp.Or(o.MaxInFlight, DefaultMaxInFlight)
	o.MaxSends = cmp.Or(o.MaxSends, DefaultMaxSends)
	if o.BufferSize < 0 || o.BufferSize > DefaultMaxFrame/2 || o.MaxInFlight < 0 || o.MaxSends < 0 || o.FlushInterval < 0 {
		return fmt.Errorf("%w: ClientOptions %+v (BufferSize at most %d)", ErrInvalidOption, *o, DefaultMaxFrame/2)
	}
	return nil
}

// NewClient returns a client of the given path over t.
func NewClient(path string, t Transport, opts ClientOptions) (Client, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	switch path {
	case PathDirect:
		return NewDirect(t), nil
	case PathBuffered:
		return newBuffered(t, opts, false), nil
	case PathAutoFlush:
		return newBuffered(t, opts, true), nil
	case PathAsync:
		return newAsync(t, opts), nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownPath, path, strings.Join(Paths(), ", "))
}

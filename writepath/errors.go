package writepath

import (
	"errors"
	"fmt"
)

// Sentinel errors. Compare with errors.Is; errors that cross the TCP
// transport keep their identity (see frame.go's error codes).
var (
	// ErrClosed: the server, client or transport was closed.
	ErrClosed = errors.New("writepath: closed")
	// ErrMalformed: a batch, key list or frame payload does not decode.
	ErrMalformed = errors.New("writepath: malformed payload")
	// ErrFrameTooLarge: a frame's length prefix exceeds the limit.
	ErrFrameTooLarge = errors.New("writepath: frame too large")
	// ErrReplyTooLarge: a Get whose reply would exceed the reply limit
	// (DefaultMaxReply, TCPServerOptions.MaxReply); nothing was built and,
	// over TCP, the connection stays usable.
	ErrReplyTooLarge = errors.New("writepath: reply too large")
	// ErrTooManyConns: the TCP server is at TCPServerOptions.MaxConns and
	// refused the connection.
	ErrTooManyConns = errors.New("writepath: too many connections")
	// ErrProtocol: a frame of an unexpected type or version.
	ErrProtocol = errors.New("writepath: protocol error")
	// ErrConnLost: the connection broke with the request in flight; the
	// request may or may not have been applied.
	ErrConnLost = errors.New("writepath: connection lost")
	// ErrInvalidOption: a bad option value.
	ErrInvalidOption = errors.New("writepath: invalid option")
	// ErrUnknownPath, ErrUnknownTransport, ErrUnknownMode: bad names.
	ErrUnknownPath      = errors.New("writepath: unknown client path")
	ErrUnknownTransport = errors.New("writepath: unknown transport")
	ErrUnknownMode      = errors.New("writepath: unknown multiget mode")
	// ErrWALCorrupt: a WAL record failed its checksum before the tail.
	ErrWALCorrupt = errors.New("writepath: WAL corrupt")
	// ErrWALLocked: the WAL directory is held by another Server, of this
	// process or (where the OS has flock) of another; NewServer returns a
	// *WALLockedError naming the holder. See WALLockName.
	ErrWALLocked = errors.New("writepath: WAL directory locked")
	// ErrSegmentCorrupt: a segment file fails validation.
	ErrSegmentCorrupt = errors.New("writepath: segment corrupt")
	// ErrRemote: a server-side failure without a more specific sentinel.
	ErrRemote = errors.New("writepath: remote error")
)

// BatchError reports a batch that failed part-way: Applied entries are in
// the memtable (and the whole batch is in the WAL), the rest are not. The
// applied ones are the first Applied in insertion order: batch order for a
// batch of fewer than SortedApplyMin entries, key order (stable) otherwise.
type BatchError struct {
	Applied int
	Err     error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("writepath: batch failed after %d applied entries: %v", e.Applied, e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// The stream protocol's child side: the writer of its JSON lines (Stream)
// and why its load stopped, the end line's reason (StopCause). The
// parent's side, the bounded record reader, is package runner.
//
// Invariants:
//   - Stream and StopCause are safe for concurrent use (the writers, the
//     RSS watch and the sampling loop share them).
//   - A stream with a write error writes nothing more: the first error is
//     kept, wraps ErrStream, and is reported once.
//   - The first stop reason given wins; the first Put error is kept even
//     when an earlier reason won; only Void overrides a reason (to
//     StopError, unless the RSS cap stopped the load).

package proto

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/writegc/writegc/gcstress/results"
)

// ErrStream: the child's stream (or the parent's copy of it) could not be
// written. gcstress.ErrStream is this error.
var ErrStream = errors.New("stream")

// Stream writes a child's JSON lines, each stamped with the scenario's
// name. Emit is safe for concurrent use. The first write error is kept
// (Failed), reported once to onErr (which stops the load), and every later
// line is dropped: a stream with a hole would misreport the scenario.
type Stream struct {
	mu    sync.Mutex
	enc   *json.Encoder
	name  string
	proto int         // results.StreamProto on the parent's descriptor, else 0
	err   error       // the first write error
	onErr func(error) // may be nil
}

// Emit writes l, stamped with the scenario's name.
func (s *Stream) Emit(l *results.Sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	l.Scenario = s.name
	if err := s.enc.Encode(l); err != nil {
		s.err = fmt.Errorf("%w: write the stream to the parent: %w", ErrStream, err)
		if s.onErr != nil {
			s.onErr(s.err)
		}
	}
}

// Failed returns the first write error, or nil.
func (s *Stream) Failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// SetOnErr sets the function told about the first write error.
func (s *Stream) SetOnErr(f func(error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onErr = f
}

// NewStream is the stream of scenario name's lines on w; proto is
// results.StreamProto on the parent's descriptor, 0 on a hand-started
// child's stdout.
func NewStream(w io.Writer, name string, proto int) *Stream {
	return &Stream{enc: json.NewEncoder(w), name: name, proto: proto}
}

// Proto is the protocol version the start line carries.
func (s *Stream) Proto() int { return s.proto }

// StopCause is why the load stopped: the first reason given wins, and the
// first Put error is kept even when an earlier reason won.
type StopCause struct {
	mu     sync.Mutex
	reason results.StopReason
	err    error
}

// Set gives r unless a reason was given before.
func (s *StopCause) Set(r results.StopReason) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reason == "" {
		s.reason = r
	}
}

// Fail keeps err unless an error came first; the reason is StopError
// unless one was given before.
func (s *StopCause) Fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
	if s.reason == "" {
		s.reason = results.StopError
	}
}

// Void fails the run whatever reason was given before (a writer vanished:
// whatever the load reached, it is not what was asked); err is kept unless
// a Put error came first.
func (s *StopCause) Void(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
	if s.reason != results.StopRSSCap {
		s.reason = results.StopError
	}
}

// Get is the reason and the error kept.
func (s *StopCause) Get() (results.StopReason, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason, s.err
}

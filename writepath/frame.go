package writepath

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/writegc/writegc/memtable"
)

// Wire protocol of the TCP transport. Every message, both directions, is one
// frame:
//
//	length  uint32 LE   bytes that follow: 5 + len(payload)
//	type    uint8
//	id      uint32 LE   request id, echoed by the response (pipelining)
//	payload
//
// Requests: Hello ("WGP1"), Put (an encoded Batch), Get (encoded keys:
// count uint32 LE, count × {klen uvarint, key}). Responses: HelloOK
// (regions uint32 LE, max frame uint32 LE), PutOK (empty), GetOK (see
// Server.appendGetResults), Error (code uint8, applied uint32 LE, message).
// Responses may arrive out of request order; ids match them up. A frame
// longer than the receiver's limit, of an unknown type, or with a payload
// that does not decode is a protocol error: the receiver closes the
// connection. A server that refuses a connection (too many) sends one Error
// frame with id 0 instead of HelloOK and closes it.
const (
	frameHeader = 9
	// DefaultMaxFrame is the default limit on a frame's payload (a 16 MiB
	// value or a 2 MiB write buffer fit with room to spare).
	DefaultMaxFrame = 64 << 20
	// DefaultMaxReply is the default limit on a Get reply's encoded size
	// (the GetOK payload), on every transport.
	DefaultMaxReply = 64 << 20
	// MaxFramePayload is the largest payload the 32-bit length prefix can
	// carry; MaxFrame and MaxReply options above it are invalid.
	MaxFramePayload = math.MaxUint32 - 5
	maxFrame        = DefaultMaxFrame
	// readChunk is how much of a payload ReadFrame reads (and allocates)
	// at a time: buffers grow with the bytes that arrived, never from the
	// length prefix alone.
	readChunk = 64 << 10
)

// FrameType is a frame's type byte: requests below 0x80, responses above.
type FrameType uint8

// Frame types of the wire protocol (see above).
const (
	FrameHello   FrameType = 1 // request: the handshake, payload ProtocolMagic
	FramePut     FrameType = 2 // request: an encoded Batch
	FrameGet     FrameType = 3 // request: encoded keys
	FrameHelloOK FrameType = 0x81
	FramePutOK   FrameType = 0x82
	FrameGetOK   FrameType = 0x83
	FrameError   FrameType = 0xff // payload: DecodeError's input
)

// ProtocolMagic is the payload of a Hello frame: the protocol's name and
// version.
const ProtocolMagic = "WGP1"

// Frame is one decoded frame. Payload aliases the buffer it was read into.
type Frame struct {
	Type    FrameType
	ID      uint32
	Payload []byte
}

// AppendFrame appends an encoded frame to dst.
func AppendFrame(dst []byte, typ FrameType, id uint32, payload []byte) []byte {
	dst = appendFrameHeader(dst, typ, id, len(payload))
	return append(dst, payload...)
}

func appendFrameHeader(dst []byte, typ FrameType, id uint32, payloadLen int) []byte {
	if payloadLen < 0 || uint64(payloadLen) > MaxFramePayload {
		// Every caller checks its limits (MaxFrame, MaxReply) first.
		panic(fmt.Sprintf("writepath: frame payload of %d B does not fit the length prefix", payloadLen))
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(5+payloadLen))
	dst = append(dst, byte(typ))
	return binary.LittleEndian.AppendUint32(dst, id)
}

// DecodeFrame decodes the first frame in data and returns it with the number
// of bytes it took. An incomplete frame is io.ErrUnexpectedEOF; a length
// over maxPayload+5 is ErrFrameTooLarge; a length under 5 is ErrProtocol.
func DecodeFrame(data []byte, maxPayload int) (Frame, int, error) {
	if len(data) < 4 {
		return Frame{}, 0, io.ErrUnexpectedEOF
	}
	l := binary.LittleEndian.Uint32(data)
	if err := checkFrameLen(l, maxPayload); err != nil {
		return Frame{}, 0, err
	}
	if uint64(len(data)-4) < uint64(l) {
		return Frame{}, 0, io.ErrUnexpectedEOF
	}
	f := Frame{Type: FrameType(data[4]), ID: binary.LittleEndian.Uint32(data[5:]), Payload: data[frameHeader : 4+l : 4+l]}
	return f, int(4 + l), nil
}

func checkFrameLen(l uint32, maxPayload int) error {
	if l < 5 {
		return fmt.Errorf("%w: frame length %d < 5", ErrProtocol, l)
	}
	if uint64(l)-5 > uint64(maxPayload) {
		return fmt.Errorf("%w: %d B payload, limit %d B", ErrFrameTooLarge, l-5, maxPayload)
	}
	return nil
}

// ReadFrame reads one frame from r into buf (pass the returned buffer back
// in to reuse it). The payload is read in chunks of at most 64 KiB and buf
// grows only as bytes arrive, so a length prefix alone never allocates more
// than a chunk beyond what was received. A clean EOF before the first byte
// is io.EOF; EOF inside a frame is io.ErrUnexpectedEOF.
func ReadFrame(r io.Reader, buf []byte, maxPayload int) (Frame, []byte, error) {
	return readFrame(r, buf, maxPayload, nil, nil)
}

// readFrame is ReadFrame; charge, if not nil, is called with the payload
// size once the header is read and checked, before anything is allocated,
// and an error from it ends the read; chunk, if not nil, is called before
// each chunk of the payload is read, with the payload offset the chunk
// ends at (the TCP server sets read deadlines from it).
func readFrame(r io.Reader, buf []byte, maxPayload int, charge func(n int) error, chunk func(end int)) (Frame, []byte, error) {
	var hdr [frameHeader]byte
	if _, err := io.ReadFull(r, hdr[:4]); err != nil {
		return Frame{}, buf, err
	}
	l := binary.LittleEndian.Uint32(hdr[:])
	if err := checkFrameLen(l, maxPayload); err != nil {
		return Frame{}, buf, err
	}
	if _, err := io.ReadFull(r, hdr[4:]); err != nil {
		return Frame{}, buf, noEOF(err)
	}
	n := int(l - 5)
	if charge != nil && n > 0 {
		if err := charge(n); err != nil {
			return Frame{}, buf, err
		}
	}
	buf = buf[:0]
	for len(buf) < n {
		k := min(n-len(buf), readChunk)
		if chunk != nil {
			chunk(len(buf) + k)
		}
		buf = slices.Grow(buf, k)
		if _, err := io.ReadFull(r, buf[len(buf):len(buf)+k]); err != nil {
			return Frame{}, buf, noEOF(err)
		}
		buf = buf[:len(buf)+k]
	}
	return Frame{Type: FrameType(hdr[4]), ID: binary.LittleEndian.Uint32(hdr[5:]), Payload: buf}, buf, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// appendKeys encodes a key list.
func appendKeys(dst []byte, keys [][]byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(keys)))
	for _, k := range keys {
		dst = binary.AppendUvarint(dst, uint64(len(k)))
		dst = append(dst, k...)
	}
	return dst
}

// decodeKeys decodes a key list; the keys alias p.
func decodeKeys(p []byte, keys [][]byte) ([][]byte, error) {
	if len(p) < 4 {
		return keys, fmt.Errorf("%w: key list shorter than its count", ErrMalformed)
	}
	n := binary.LittleEndian.Uint32(p)
	p = p[4:]
	if uint64(n) > uint64(len(p)) { // each key takes at least one byte (its length)
		return keys, fmt.Errorf("%w: key count %d exceeds payload", ErrMalformed, n)
	}
	for i := range n {
		kl, a := binary.Uvarint(p)
		if a <= 0 || kl > uint64(len(p)-a) {
			return keys, fmt.Errorf("%w: key %d", ErrMalformed, i)
		}
		keys = append(keys, p[a:a+int(kl):a+int(kl)])
		p = p[a+int(kl):]
	}
	if len(p) != 0 {
		return keys, fmt.Errorf("%w: %d trailing bytes after keys", ErrMalformed, len(p))
	}
	return keys, nil
}

// decodeGetResults decodes n results into vals (nil = not found; a found
// empty value is a non-nil empty slice). The values alias p.
func decodeGetResults(p []byte, vals [][]byte) ([][]byte, error) {
	if len(p) < 4 {
		return vals, fmt.Errorf("%w: results shorter than their count", ErrMalformed)
	}
	n := binary.LittleEndian.Uint32(p)
	p = p[4:]
	if uint64(n) > uint64(len(p))/2 {
		return vals, fmt.Errorf("%w: result count %d exceeds payload", ErrMalformed, n)
	}
	for i := range n {
		if len(p) < 2 {
			return vals, fmt.Errorf("%w: result %d", ErrMalformed, i)
		}
		found := p[0]
		vl, a := binary.Uvarint(p[1:])
		if a <= 0 || found > 1 || vl > uint64(len(p)-1-a) || (found == 0 && vl != 0) {
			return vals, fmt.Errorf("%w: result %d", ErrMalformed, i)
		}
		p = p[1+a:]
		if found == 0 {
			vals = append(vals, nil)
			continue
		}
		vals = append(vals, p[:vl:vl])
		p = p[vl:]
	}
	if len(p) != 0 {
		return vals, fmt.Errorf("%w: %d trailing bytes after results", ErrMalformed, len(p))
	}
	return vals, nil
}

// Error codes carried by Error frames, so sentinels survive the wire.
var errCodes = []error{
	0: ErrRemote,
	1: ErrClosed,
	2: memtable.ErrKeySize,
	3: memtable.ErrValueSize,
	4: ErrMalformed,
	5: memtable.ErrClosed,
	6: ErrProtocol,
	7: ErrFrameTooLarge,
	8: ErrReplyTooLarge,
	9: ErrTooManyConns,
}

// appendError encodes err as an Error payload.
func appendError(dst []byte, err error) []byte {
	code := 0
	for i, e := range errCodes {
		if i > 0 && errors.Is(err, e) {
			code = i
			break
		}
	}
	applied := 0
	var be *BatchError
	if errors.As(err, &be) {
		applied = be.Applied
	}
	msg := err.Error()
	if len(msg) > 4096 {
		msg = msg[:4096]
	}
	dst = append(dst, byte(code))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(applied))
	return append(dst, msg...)
}

// remoteError is an error decoded from an Error frame.
type remoteError struct {
	sentinel error
	msg      string
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

// DecodeError rebuilds the error of an Error frame's payload: it wraps the
// sentinel the sender's error wrapped (ErrClosed, ErrReplyTooLarge,
// memtable.ErrKeySize, ...; ErrRemote for any other), in a *BatchError when
// the sender had applied part of a batch. A payload too short to hold an
// error is ErrProtocol.
func DecodeError(p []byte) error {
	if len(p) < 5 {
		return fmt.Errorf("%w: short error frame", ErrProtocol)
	}
	code := int(p[0])
	sentinel := ErrRemote
	if code < len(errCodes) {
		sentinel = errCodes[code]
	}
	var err error = &remoteError{sentinel: sentinel, msg: "remote: " + string(p[5:])}
	if applied := binary.LittleEndian.Uint32(p[1:]); applied > 0 {
		err = &BatchError{Applied: int(applied), Err: err}
	}
	return err
}

package writepath

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzDecodeFrame: the frame decoder and every payload decoder reject bad
// input with an error and never panic; what decodes re-encodes identically;
// ReadFrame's buffer grows only with the bytes that arrived; resultCost
// (the reply sizing) matches the GetOK encoding.
func FuzzDecodeFrame(f *testing.F) {
	b := NewBatch(0)
	b.Add([]byte("key"), []byte("value"))
	f.Add(AppendFrame(nil, FramePut, 7, b.Bytes()))
	f.Add(AppendFrame(nil, FrameGet, 1, appendKeys(nil, [][]byte{[]byte("a"), []byte("bc")})))
	f.Add(AppendFrame(nil, FrameGetOK, 1, []byte{2, 0, 0, 0, 1, 1, 'x', 0, 0}))
	f.Add(AppendFrame(nil, FrameError, 3, appendError(nil, &BatchError{Applied: 2, Err: ErrClosed})))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 2})
	f.Add([]byte{5, 0, 0, 0, 2, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, n, err := DecodeFrame(data, 1<<20)
		// ReadFrame agrees with DecodeFrame.
		rf, _, rerr := ReadFrame(bytes.NewReader(data), nil, 1<<20)
		if (err == nil) != (rerr == nil) {
			if !(errors.Is(err, io.ErrUnexpectedEOF) && errors.Is(rerr, io.EOF)) {
				t.Fatalf("DecodeFrame %v, ReadFrame %v", err, rerr)
			}
		}
		// Fed a byte at a time, ReadFrame allocates at most one read chunk
		// beyond the bytes that arrived, whatever the length prefix says.
		_, ob, _ := ReadFrame(iotest.OneByteReader(bytes.NewReader(data)), nil, MaxFramePayload)
		if cap(ob) > len(data)+readChunk {
			t.Fatalf("%d B buffer for %d B of input", cap(ob), len(data))
		}
		if err != nil {
			return
		}
		if rf.Type != fr.Type || rf.ID != fr.ID || !bytes.Equal(rf.Payload, fr.Payload) {
			t.Fatal("ReadFrame and DecodeFrame disagree")
		}
		if !bytes.Equal(AppendFrame(nil, fr.Type, fr.ID, fr.Payload), data[:n]) {
			t.Fatal("re-encoding differs")
		}
		switch fr.Type {
		case FramePut:
			// Varints may be non-minimal on the wire: compare decoded forms.
			var re Batch
			if _, err := forEachEntry(fr.Payload, func(_ int, k, v []byte) error { re.Add(k, v); return nil }); err == nil {
				var re2 Batch
				if _, err := forEachEntry(re.Bytes(), func(_ int, k, v []byte) error { re2.Add(k, v); return nil }); err != nil || !bytes.Equal(re.Bytes(), re2.Bytes()) {
					t.Fatalf("batch round trip: %v", err)
				}
			}
			validateBatch(fr.Payload)
		case FrameGet:
			if keys, err := decodeKeys(fr.Payload, nil); err == nil {
				again, err := decodeKeys(appendKeys(nil, keys), nil)
				if err != nil || len(again) != len(keys) {
					t.Fatalf("keys round trip: %v", err)
				}
				for i := range keys {
					if !bytes.Equal(keys[i], again[i]) {
						t.Fatal("keys round trip differs")
					}
				}
			}
		case FrameGetOK:
			// resultCost predicts the size of the (minimal) re-encoding.
			if vals, err := decodeGetResults(fr.Payload, nil); err == nil {
				re, size := binary.LittleEndian.AppendUint32(nil, uint32(len(vals))), 4
				for _, v := range vals {
					size += resultCost(len(v), v != nil)
					if v == nil {
						re = append(re, 0, 0)
						continue
					}
					re = append(binary.AppendUvarint(append(re, 1), uint64(len(v))), v...)
				}
				if size != len(re) {
					t.Fatalf("resultCost sums to %d, encoding is %d B", size, len(re))
				}
			}
		case FrameError:
			DecodeError(fr.Payload)
		}
	})
}

package writepath

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzDecodeFrame: the frame decoder and every payload decoder reject bad
// input with an error and never panic; what decodes re-encodes identically.
func FuzzDecodeFrame(f *testing.F) {
	b := NewBatch(0)
	b.Add([]byte("key"), []byte("value"))
	f.Add(AppendFrame(nil, ftPut, 7, b.Bytes()))
	f.Add(AppendFrame(nil, ftGet, 1, appendKeys(nil, [][]byte{[]byte("a"), []byte("bc")})))
	f.Add(AppendFrame(nil, ftGetOK, 1, []byte{2, 0, 0, 0, 1, 1, 'x', 0, 0}))
	f.Add(AppendFrame(nil, ftError, 3, appendError(nil, &BatchError{Applied: 2, Err: ErrClosed})))
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
		case ftPut:
			// Varints may be non-minimal on the wire: compare decoded forms.
			var re Batch
			if _, err := forEachEntry(fr.Payload, func(_ int, k, v []byte) error { re.Add(k, v); return nil }); err == nil {
				var re2 Batch
				if _, err := forEachEntry(re.Bytes(), func(_ int, k, v []byte) error { re2.Add(k, v); return nil }); err != nil || !bytes.Equal(re.Bytes(), re2.Bytes()) {
					t.Fatalf("batch round trip: %v", err)
				}
			}
			validateBatch(fr.Payload)
		case ftGet:
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
		case ftGetOK:
			decodeGetResults(fr.Payload, nil)
		case ftError:
			decodeError(fr.Payload)
		}
	})
}

package writepath

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fuzzWAL is the valid log FuzzWALReplay damages: fuzzLogs files of
// fuzzPerLog records each, numbered on from 1; record i is one batch of
// 1 + i%3 Puts.
const (
	fuzzLogs   = 3
	fuzzPerLog = 6
)

func fuzzWAL() (files [][]byte, payloads [][]byte) {
	seq := uint64(1)
	for range fuzzLogs {
		f := appendFileHeader(nil, seq)
		for range fuzzPerLog {
			b := NewBatch(0)
			for j := range 1 + len(payloads)%3 {
				b.Add(fmt.Appendf(nil, "k%03d-%d", len(payloads), j), valueFor(len(payloads)+j, 5+j))
			}
			p := bytes.Clone(b.Bytes())
			payloads = append(payloads, p)
			f = appendRecord(f, p)
			seq++
		}
		files = append(files, f)
	}
	return files, payloads
}

// damageWAL applies up to 4 damages, 8 bytes of ops each: kind, file,
// offset (uint32 LE), length (uint16 LE); garbage supplies the bytes that
// kinds 3 and 4 write.
func damageWAL(files [][]byte, ops, garbage []byte) {
	for i := 0; i+8 <= len(ops) && i < 32; i += 8 {
		kind, fi := ops[i]%5, int(ops[i+1])%len(files)
		f := files[fi]
		off := int(binary.LittleEndian.Uint32(ops[i+2:]) % uint32(len(f)+1))
		n := int(binary.LittleEndian.Uint16(ops[i+6:]))
		switch kind {
		case 0: // flip one bit
			if off < len(f) {
				f[off] ^= 1 << (n % 8)
			}
		case 1: // truncate
			f = f[:off]
		case 2: // zero a run (may extend the file, like a preallocated page)
			f = append(f, make([]byte, max(0, off+n%5000-len(f)))...)
			clear(f[off : off+n%5000])
		case 3: // append garbage
			f = append(f, garbage[:min(len(garbage), n)]...)
		case 4: // overwrite with garbage
			copy(f[off:], garbage[:min(len(garbage), n)])
		}
		files[fi] = f
	}
}

// FuzzWALReplay damages a valid three-file log and replays it in every
// recovery mode: replay never panics; it fails with a *WALCorruptError, or
// replays a prefix of the records written (mode skip-corrupted: a
// subsequence, with a loss reported when it is not a prefix); every byte is
// either replayed or reported ignored; mode absolute-consistency replays
// nothing partial without an error.
func FuzzWALReplay(f *testing.F) {
	f.Add(uint8(0), []byte{}, []byte{})
	f.Add(uint8(0), []byte{2, 2, 0xff, 0xff, 0, 0, 8, 0}, []byte{})     // 8 zero bytes after the last record
	f.Add(uint8(1), []byte{2, 2, 0xff, 0xff, 0, 0, 0, 16}, []byte{})    // a zero page
	f.Add(uint8(0), []byte{0, 1, 90, 0, 0, 0, 3, 0}, []byte{})          // a bit flip in the middle file
	f.Add(uint8(2), []byte{0, 0, 60, 0, 0, 0, 5, 0}, []byte{})          // a bit flip, skipped
	f.Add(uint8(0), []byte{1, 2, 0xf0, 0xff, 0, 0, 0, 0}, []byte{})     // a truncated last record
	f.Add(uint8(2), []byte{1, 0, 0xf0, 0xff, 0, 0, 0, 0}, []byte{})     // a truncated first log
	f.Add(uint8(0), []byte{3, 2, 0, 0, 0, 0, 20, 0}, []byte("garbage")) // garbage appended
	f.Fuzz(func(t *testing.T, mode uint8, ops, garbage []byte) {
		files, payloads := fuzzWAL()
		damageWAL(files, ops, garbage)
		dir := t.TempDir()
		nums := make([]uint64, len(files))
		total := int64(0)
		for i, data := range files {
			nums[i] = uint64(i + 1)
			total += int64(len(data))
			if err := os.WriteFile(filepath.Join(dir, walName(nums[i])), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		m := WALRecoveryMode(mode % 3)
		var got [][]byte
		var recBytes int64
		st, _, _, err := replayWAL(dir, nums, m, func(_ uint64, p []byte) (int, error) {
			got = append(got, bytes.Clone(p))
			recBytes += walHeader + int64(len(p))
			return 1, nil
		})
		if err != nil {
			var ce *WALCorruptError
			if !errors.Is(err, ErrWALCorrupt) || !errors.As(err, &ce) {
				t.Fatalf("mode %v: error %v is no *WALCorruptError", m, err)
			}
			return
		}
		checkFuzzReplay(t, m, st, got, payloads, total-recBytes)
	})
}

// checkFuzzReplay checks a replay that succeeded; unreplayed is the bytes
// of the logs outside replayed records.
func checkFuzzReplay(t *testing.T, m WALRecoveryMode, st WALReplayStats, got, want [][]byte, unreplayed int64) {
	t.Helper()
	if st.Records != int64(len(got)) {
		t.Fatalf("mode %v: report says %d records, replayed %d", m, st.Records, len(got))
	}
	prefix := len(got) <= len(want)
	for i := 0; prefix && i < len(got); i++ {
		prefix = bytes.Equal(got[i], want[i])
	}
	switch {
	case m == WALAbsoluteConsistency && (!prefix || !st.Lossless()):
		t.Fatalf("mode %v: replayed %d records (prefix %v) with damage %+v", m, len(got), prefix, st)
	case m == WALTolerateTornTail && !prefix:
		t.Fatalf("mode %v: replayed %d records, not a prefix of the %d written", m, len(got), len(want))
	case m == WALSkipCorrupted && !prefix:
		j := 0
		for _, w := range want {
			if j < len(got) && bytes.Equal(got[j], w) {
				j++
			}
		}
		if j != len(got) {
			t.Fatalf("mode %v: replayed records are not a subsequence of those written", m)
		}
		if st.RecordsSkipped == 0 {
			t.Fatalf("mode %v: lost records in the middle, none reported: %+v", m, st)
		}
	}
	if m != WALSkipCorrupted && st.BytesIgnored != st.TornTailBytes {
		t.Fatalf("mode %v: ignored %d bytes, only %d of them a torn tail", m, st.BytesIgnored, st.TornTailBytes)
	}
	// Every byte is a file header, in a replayed record or reported.
	hdrs := unreplayed - st.BytesIgnored
	if hdrs < 0 || hdrs%walFileHeader != 0 || hdrs/walFileHeader > int64(len(st.Logs)) {
		t.Fatalf("mode %v: %d bytes neither replayed nor reported ignored: %+v", m, unreplayed, st)
	}
}

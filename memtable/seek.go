package memtable

import (
	"bytes"
	"iter"
)

// Seeker is a Memtable that iterates from a key: From yields, like All,
// every key at or above start once, in ascending byte order, with its
// latest value at the moment the iterator passes it (every key when start
// is nil), at the cost of one search instead of a walk from the first key.
// Every kind of this package is a Seeker; a kind added with Register need
// not be (From below then walks All).
type Seeker interface {
	From(start []byte) iter.Seq2[[]byte, []byte]
}

// From iterates m from start: m's own From when it is a Seeker, else All
// with the keys below start skipped.
func From(m Memtable, start []byte) iter.Seq2[[]byte, []byte] {
	if s, ok := m.(Seeker); ok {
		return s.From(start)
	}
	return func(yield func([]byte, []byte) bool) {
		for k, v := range m.All() {
			if bytes.Compare(k, start) >= 0 && !yield(k, v) {
				return
			}
		}
	}
}

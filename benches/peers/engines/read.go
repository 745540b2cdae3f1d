package engines

import (
	"errors"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dgraph-io/badger/v4"

	"github.com/writegc/writegc/gcstress"
)

// The peers' read side, for gcstress's mixed workloads (-mix): Pebble and
// Badger are gcstress.Getters and gcstress.Scanners; ristretto, fastcache,
// otter and shardmap, caches with no order, are Getters only (-mix e is
// refused for them). Pebble's and Badger's Get return a copy (their own
// slices are valid only until the lookup's closer or transaction ends),
// fastcache's a new slice, the other caches' the copy Put stored (the
// caller never writes it); a miss is (nil, false, nil), and
// for the caches includes what they evicted or never admitted. The
// caches' Gets are next to their Puts (fastcache.go, otter.go,
// shardmap.go), except ristretto's.

var (
	_ gcstress.Getter  = (*Pebble)(nil)
	_ gcstress.Scanner = (*Pebble)(nil)
	_ gcstress.Getter  = (*Badger)(nil)
	_ gcstress.Scanner = (*Badger)(nil)
	_ gcstress.Getter  = (*Ristretto)(nil)
	_ gcstress.Getter  = (*Fastcache)(nil)
	_ gcstress.Getter  = (*Otter)(nil)
	_ gcstress.Getter  = (*Shardmap)(nil)
)

// Get is DB.Get, the value copied before its closer is closed.
func (e *Pebble) Get(key []byte) ([]byte, bool, error) {
	if !e.g.enter() {
		return nil, false, ErrClosed
	}
	defer e.g.leave()
	v, closer, err := e.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out := append([]byte{}, v...)
	return out, true, closer.Close()
}

// Scan is an iterator from SeekGE(start), n entries at most.
func (e *Pebble) Scan(start []byte, n int, fn func(key, value []byte) bool) error {
	if !e.g.enter() {
		return ErrClosed
	}
	defer e.g.leave()
	it, err := e.db.NewIter(nil)
	if err != nil {
		return err
	}
	for ok := it.SeekGE(start); ok && n > 0; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return errors.Join(err, it.Close())
		}
		n--
		if !fn(it.Key(), v) {
			break
		}
	}
	return it.Close()
}

// Get is one read-only transaction's Get, the value copied.
func (e *Badger) Get(key []byte) ([]byte, bool, error) {
	if !e.g.enter() {
		return nil, false, ErrClosed
	}
	defer e.g.leave()
	var out []byte
	found := false
	err := e.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		out, err = item.ValueCopy(nil)
		return err
	})
	return out, found, err
}

// Scan is one read-only transaction's iterator from Seek(start), n
// entries at most, values read in place.
func (e *Badger) Scan(start []byte, n int, fn func(key, value []byte) bool) error {
	if !e.g.enter() {
		return ErrClosed
	}
	defer e.g.leave()
	return e.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchSize = min(n, opts.PrefetchSize)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(start); it.Valid() && n > 0; it.Next() {
			item := it.Item()
			more := true
			if err := item.Value(func(v []byte) error { more = fn(item.Key(), v); return nil }); err != nil {
				return err
			}
			if n--; !more {
				return nil
			}
		}
		return nil
	})
}

// Get is Cache.Get; the cache's value is the copy Put made.
func (e *Ristretto) Get(key []byte) ([]byte, bool, error) {
	if !e.g.enter() {
		return nil, false, ErrClosed
	}
	defer e.g.leave()
	v, ok := e.cache.Get(string(key))
	return v, ok, nil
}

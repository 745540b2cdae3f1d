package memtable

import (
	"errors"
	"fmt"

	"github.com/writegc/writegc/internal/registry"
)

// The kinds writegc ships. New and the writepath server take kinds as plain
// strings (a public contract), so these are untyped string constants.
const (
	KindHeap    = "heap"
	KindArena   = "arena"
	KindOffHeap = "offheap"
	KindBTree   = "btree"
)

// The registry maps a kind to its constructor. writegc's own kinds register
// from init functions in this package; a user's kinds register with Register
// before the first New that names them, typically first thing in main. It is
// guarded by a mutex: Register, New and Kinds may run concurrently.
var kinds registry.Of[func(Options) (Memtable, error)]

// Register makes a memtable kind known to New and Kinds, and through New to
// everything built on it: the writepath server (ServerOptions.Kind) and
// gcstress (-kinds), which then runs the kind inside writegc's region
// server with its WAL, flushers and backpressure.
//
// newMemtable must return an empty Memtable that honours the Memtable
// contract (concurrency, Close, Size charging); it is called once per
// memtable, from any goroutine. Options are passed as given; a kind may
// ignore the arena settings.
//
// Register panics when kind is not a valid kind name (ValidKindName), is
// already registered, or when newMemtable is nil: these are programming
// errors, found at start-up. Registration cannot be undone.
func Register(kind string, newMemtable func(Options) (Memtable, error)) {
	if err := ValidKindName(kind); err != nil {
		panic(fmt.Sprintf("memtable: Register: %v", err))
	}
	if newMemtable == nil {
		panic(fmt.Sprintf("memtable: Register(%q): nil constructor", kind))
	}
	kinds.Add("memtable: Register", kind, newMemtable)
}

// MaxKindNameLen bounds the length of a kind name.
const MaxKindNameLen = 64

// ErrKindName: a kind name outside the rule of ValidKindName.
var ErrKindName = errors.New("memtable: invalid kind name")

// ValidKindName reports whether name may name a kind: 1 to MaxKindNameLen
// bytes of lower-case ASCII letters, digits, '.', '_' and '-', starting with
// a letter or a digit ([a-z0-9][a-z0-9._-]*). Kind names travel where other
// characters have a meaning: comma-separated lists on command lines
// (-kinds), key=value sub-benchmark names and scenario names split at '/',
// and file names of results folders. It returns nil or an error wrapping
// ErrKindName. Register applies it; every registry of kinds (gcstress's
// engines) should apply the same rule, so a kind valid in one is valid in
// all.
func ValidKindName(name string) error {
	if name == "" || len(name) > MaxKindNameLen {
		return fmt.Errorf("%w %q: length %d not in [1, %d]", ErrKindName, name, len(name), MaxKindNameLen)
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return fmt.Errorf("%w %q: byte %d (%q) outside [a-z0-9._-] (or a punctuation mark first)", ErrKindName, name, i, c)
		}
	}
	return nil
}

// register is Register for this package's own kinds.
func register(kind string, newMemtable func(Options) (Memtable, error)) { Register(kind, newMemtable) }

// Kinds lists the registered kinds in sorted order.
func Kinds() []string { return kinds.Kinds() }

// lookup returns kind's constructor.
func lookup(kind string) (func(Options) (Memtable, error), bool) { return kinds.Lookup(kind) }

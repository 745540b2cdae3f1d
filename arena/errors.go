package arena

import "errors"

// Sentinel errors for the expected failures of an arena or pool.
var (
	// ErrInvalidSize: an allocation of zero or negative size.
	ErrInvalidSize = errors.New("arena: allocation size must be positive")
	// ErrTooLarge: an allocation above MaxSize.
	ErrTooLarge = errors.New("arena: allocation larger than arena.MaxSize")
	// ErrReleased: Alloc or Retain on an arena whose reference count reached zero.
	ErrReleased = errors.New("arena: arena released")
	// ErrInvalidOption: an option out of range.
	ErrInvalidOption = errors.New("arena: invalid option")
	// ErrPoolMismatch: an arena option that contradicts its pool.
	ErrPoolMismatch = errors.New("arena: options do not match the pool")
	// ErrUnaligned: Compact of a handle whose offset is not a multiple of 8.
	ErrUnaligned = errors.New("arena: handle not 8-byte aligned")
	// ErrCompactRange: Compact of a handle beyond what 32 bits address
	// (32 GiB of chunks).
	ErrCompactRange = errors.New("arena: handle beyond the compact address range")
)

package arena

// Handle addresses one allocation: the index of its chunk in the arena (plus
// one, so that the zero Handle is nil) in the high 32 bits and the byte offset
// inside the chunk in the low 32 bits. A Handle holds no pointer, so it may be
// stored inside arena memory. It is valid only with the arena that returned
// it, until that arena is released.
type Handle uint64

// Nil is the zero Handle; no successful allocation returns it.
const Nil Handle = 0

func makeHandle(chunkIdx uint32, off uint32) Handle {
	return Handle(uint64(chunkIdx+1)<<32 | uint64(off))
}

// IsNil reports whether h is the nil handle.
func (h Handle) IsNil() bool { return h == 0 }

func (h Handle) chunk() uint32  { return uint32(h>>32) - 1 }
func (h Handle) offset() uint32 { return uint32(h) }

// Add returns the handle n bytes further into the same allocation. The
// result is meaningful only while it stays inside that allocation.
func (h Handle) Add(n uint32) Handle { return h + Handle(n) }

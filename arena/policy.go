package arena

import "fmt"

// HugePagePolicy says how a pool advises the kernel about transparent huge
// pages for its off-heap chunks (PoolOptions.HugePages). It changes nothing
// for on-heap chunks, whose mapping belongs to the Go runtime.
type HugePagePolicy uint8

const (
	// HugePagesAdvise (the zero value, the package's behaviour since issue
	// 16): a chunk whose size is a multiple of the huge page size is mapped
	// 2 MiB-aligned and advised MADV_HUGEPAGE. With THP defrag "madvise"
	// (the kernel default) such a region may stall in direct compaction
	// when no free huge page is at hand.
	HugePagesAdvise HugePagePolicy = iota
	// HugePagesSystem maps chunks 2 MiB-aligned but gives no advice: the
	// region gets huge pages only if THP is "always" and under that mode's
	// defrag rule (no direct compaction with the default defrag setting).
	HugePagesSystem
	// HugePagesNever maps chunks 2 MiB-aligned and advises MADV_NOHUGEPAGE:
	// small pages only, and khugepaged leaves the region alone.
	HugePagesNever
)

// hugePageNames are the policies' names, by value (String, ParseHugePagePolicy).
var hugePageNames = [...]string{HugePagesAdvise: "advise", HugePagesSystem: "system", HugePagesNever: "never"}

// String returns the policy's name: "advise", "system" or "never".
func (p HugePagePolicy) String() string {
	if int(p) < len(hugePageNames) {
		return hugePageNames[p]
	}
	return fmt.Sprintf("HugePagePolicy(%d)", p)
}

// ParseHugePagePolicy returns the policy named s (String's names), or an
// error wrapping ErrInvalidOption.
func ParseHugePagePolicy(s string) (HugePagePolicy, error) {
	for i, n := range hugePageNames {
		if n == s {
			return HugePagePolicy(i), nil
		}
	}
	return 0, fmt.Errorf("%w: huge page policy %q (want advise, system or never)", ErrInvalidOption, s)
}

// offHeapPolicy is what offHeapAlloc needs of a pool's options.
type offHeapPolicy struct {
	huge       HugePagePolicy
	noPrefault bool
}

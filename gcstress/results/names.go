package results

// Scenario sets, and the groups of Scenario.Group. SetAll is every set
// (a Config.Sets value, never a group). The values are the strings of
// summary.json and the command's -sets flag and do not change.
const (
	SetAll     = "all"
	SetMatrix  = "matrix"
	SetFailure = "failure"
	SetStall   = "stall"
	// SetCollapse is the CPU-starvation collapse: closed loop, GOMEMLIMIT
	// below the heap layout's live data, no binding hard cap.
	SetCollapse = "collapse"
	// SetCapacity is the capacity search (capacity.go), run last.
	SetCapacity = "capacity"
	// SetFrontier is the GOGC x GOMEMLIMIT frontier (frontier.go): not
	// part of SetAll, it runs only when named.
	SetFrontier = "frontier"
)

// PathServer is the write path with no client: Puts go straight into the
// region server, the cheapest path, so the memtable's GC cost dominates.
// Every other path (Config.Path, Scenario.Path) is a writepath client path.
const PathServer = "server"

// The child's stream protocol (package gcstress's stream.go says more).
const (
	// StreamProto is the protocol version on every start line (Sample.Proto):
	// 2 is the stream on its own descriptor, and the parent's exit lines.
	StreamProto = 2
	// MaxRecord is the longest record (line) a reader of a stream takes: a
	// longer one is skipped.
	MaxRecord = 16 << 20
)

// BytesPerMB is the MB of every MB/s in gcstress (Sample.MBps, the reports,
// the charts): 10^6 bytes, the unit of the Hypertable addendum's MB/s and of
// Go's testing.B.SetBytes. Memory sizes (heap, RSS) are printed in MiB.
const BytesPerMB = 1e6

// MBps is n bytes over secs seconds in MB/s (10^6 B/s); 0 when secs <= 0.
func MBps(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / BytesPerMB / secs
}

// CollapseNote is the collapse scenario's description in every report: its
// verdict depends on the machine, which is why it is not the failure
// scenario.
const CollapseNote = "collapse: the heap layout's live data passes GOMEMLIMIT with no hard cap in reach; the collector then runs " +
	"back to back and the GC CPU limiter holds it to about half the CPU. Whether throughput then falls below a quarter of its best " +
	"(failed) or only slows (degraded) depends on how much CPU the machine leaves the writers, so this verdict can differ between " +
	"machines and loads: compare it only between runs on the same machine under the same load (the failure scenario, bounded by " +
	"memory, is the one that holds anywhere)."

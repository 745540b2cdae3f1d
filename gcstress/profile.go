package gcstress

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/writegc/writegc/gcstress/explain"
)

// With -flight (no profiles) only the flight recorder runs; a dump is
// explained like any trace.
//
// Profiles (-profile) are captured inside the child by explain.Capture:
// started once the scenario passes its warm-up (the steady-state window),
// heap snapshots at new heap peaks (at most one per two windows), stopped
// when the load ends. With any -profile kind the child also keeps an
// explain.FlightRecorder running and dumps its last seconds to flight.out on
// the scenario's first degraded or failed window (after warm-up); while a
// trace or the flight recorder runs, one Put in regionEvery is marked as an
// explain.DefaultRegion ("writegc.put") region, so explain can tie slow
// Puts to GC phases. The parent then reads the scenario's folder with
// explain.Explain and puts the account in the report.

// accountFor explains the profiles in dir; ("", "") when there are none.
// Explanation errors are reported on stderr and leave the account empty:
// a missing account never fails the run.
func accountFor(dir string, stderr io.Writer) (md, headline string) {
	if _, err := os.Stat(dir); err != nil {
		return "", ""
	}
	a, err := explain.Explain(dir)
	if err != nil {
		fmt.Fprintf(stderr, "gcstress: explain %s: %v\n", dir, err)
		return "", ""
	}
	var b bytes.Buffer
	if err := a.WriteMarkdown(&b); err != nil {
		fmt.Fprintf(stderr, "gcstress: explain %s: %v\n", dir, err)
		return "", ""
	}
	return b.String(), a.Headline()
}

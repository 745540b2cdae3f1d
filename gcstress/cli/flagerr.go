package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/writegc/writegc/gcstress"
)

// helpHint ends every one-line flag error of fs ("(gcstress failure -h
// lists every flag)"): the usage text is too long to print for one bad
// value.
func helpHint(fs *flag.FlagSet) string { return "(" + fs.Name() + " -h lists every flag)" }

// failedSet is the flag whose value a parse refused, and that value.
type failedSet struct {
	name, value string
	v           flag.Value
	err         error
}

// recordingValue reports a refused value to *failed before the flag
// package words its own error.
type recordingValue struct {
	flag.Value
	name   string
	failed *failedSet
}

// String is the wrapped value's; the zero recordingValue (which the flag
// package makes to tell a default from a zero value) is "".
func (r recordingValue) String() string {
	if r.Value == nil {
		return ""
	}
	return r.Value.String()
}

func (r recordingValue) Set(s string) error {
	err := r.Value.Set(s)
	if err != nil && r.failed.name == "" {
		*r.failed = failedSet{r.name, s, r.Value, err}
	}
	return err
}

// recordingBool is a recordingValue of a boolean flag (-quick without a
// value).
type recordingBool struct{ recordingValue }

func (recordingBool) IsBoolFlag() bool { return true }

// parseOneLine parses args with fs quietly: a refused value or unknown flag
// is one line wrapping gcstress.ErrUsage, naming the flag, the value and an
// example of a good one; -h prints the usage text to stderr and returns
// flag.ErrHelp.
func parseOneLine(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	var failed failedSet
	orig := map[string]flag.Value{}
	defer fs.VisitAll(func(f *flag.Flag) { f.Value = orig[f.Name] }) // the caller's values again, for -h and lookups
	fs.VisitAll(func(f *flag.Flag) {
		orig[f.Name] = f.Value
		r := recordingValue{f.Value, f.Name, &failed}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = recordingBool{r}
			return
		}
		f.Value = r
	})
	usage := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.VisitAll(func(f *flag.Flag) { f.Value = orig[f.Name] })
		fs.Usage()
		return err
	case failed.name != "":
		return fmt.Errorf("%w: -%s %s: %s%s %s", gcstress.ErrUsage, failed.name, failed.value, why(failed), wantOf(failed.v), helpHint(fs))
	}
	return fmt.Errorf("%w: %v %s", gcstress.ErrUsage, err, helpHint(fs))
}

// why is what a flag of this package's own types said of its value ("" for
// the flag package's, whose word is only "parse error").
func why(f failedSet) string {
	switch f.v.(type) {
	case sizeFlag, countFlag, limitFlag, thresholdsFlag:
		return f.err.Error() + "; "
	}
	return ""
}

// wantOf says what a flag of v's kind takes, with an example ("want ...").
func wantOf(v flag.Value) string {
	switch v.(type) {
	case sizeFlag:
		return "want a size such as 64MB (or off)"
	case countFlag:
		return "want a count such as 10M or 1e9"
	case liveFlag:
		return "want an address such as :8080"
	case limitFlag:
		return "want a size such as 64MB, a percentage of -rss-cap such as 90%, or off"
	case thresholdsFlag:
		return "want key=value pairs such as healthy-gc=10,degraded-gc=25,warmup=5s"
	case thresholdFlag:
		return "want a threshold such as 25"
	}
	g, ok := v.(flag.Getter)
	if !ok {
		return "want a value such as " + strings.TrimSpace(v.String())
	}
	switch g.Get().(type) {
	case time.Duration:
		return "want a duration such as 30s"
	case bool:
		return "want true or false"
	case int, int64:
		return "want an integer such as 4"
	case uint, uint64:
		return "want a non-negative integer such as 1"
	case float64:
		return "want a number such as 0.5"
	}
	return "want a value such as " + strings.TrimSpace(v.String())
}

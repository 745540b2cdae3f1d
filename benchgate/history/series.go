package history

import (
	"time"

	"github.com/writegc/writegc/benchgate"
)

// Summary is a set of measurements with its summary: every value, their
// median and its 95% interval, and the head/base ratio of a gate run. Sample
// and Point embed it. It is a plain value; its Values slice is owned by
// whoever holds the Sample or Point, at most MaxRecordBytes' worth of
// values.
type Summary struct {
	Values []float64
	Median float64
	// Lo and Hi bound the median's 95% confidence interval when
	// HasInterval (see summarize: for fewer than 6 values, the range).
	Lo, Hi      float64
	HasInterval bool
	// Ratio is the head/base ratio of an interleaved gate run's medians
	// (RecordPair), RatioLo and RatioHi its conservative interval, when
	// HasRatio.
	Ratio, RatioLo, RatioHi float64
	HasRatio                bool
	// MDE is the gate run's minimum detectable effect (RecordPair), when
	// HasMDE: the smallest change of the median, relative to the base's,
	// that its rounds could catch (benchgate.MDE of the base's and the
	// head's values at benchgate.DefaultAlpha and DefaultPower).
	MDE    float64
	HasMDE bool
}

// Recorded says what Record did. A plain value.
type Recorded struct {
	ID int64
	// Duplicate: a record with the same content was already stored (ID is
	// that record's); nothing was written.
	Duplicate bool
	// Series is the number of series the record added a point to.
	Series int
}

// RecordInfo is one stored record, without its content. A plain value.
type RecordInfo struct {
	ID         int64
	Hash       string
	Labels     Labels
	RecordedAt time.Time
	Bytes      int
}

// Query selects series; an empty field matches all. A plain value.
type Query struct {
	Machine string
	Mode    Mode
}

// SeriesKey identifies a series. A plain, comparable value.
type SeriesKey struct {
	Benchmark, Unit, Machine string
	Mode                     Mode
}

// Series is one series' points in commit order, as Load returns it: the
// caller owns it (nothing else refers to it), and it is safe to read from
// several goroutines. Load bounds its size (MaxSeries, MaxPointRows).
type Series struct {
	SeriesKey
	Direction benchgate.Direction
	Points    []Point
}

// Point is one commit's measurements of a series: every value recorded for
// the commit, merged over its records, summarised afresh; its ratio and MDE
// are those of the latest gate run whose head was this commit. A plain value.
type Point struct {
	Commit     string
	CommitTime time.Time // zero when unknown
	Summary
	// Records is the number of records merged into the point.
	Records int
}

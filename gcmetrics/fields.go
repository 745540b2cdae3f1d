package gcmetrics

import "runtime/metrics"

// field is one runtime/metrics metric and how a reading of type T keeps
// it: set stores the sample's value when it is of the metric's kind (a
// metric the runtime does not have reads as KindBad and leaves its field
// as it was).
type field[T any] struct {
	name string
	kind metrics.ValueKind
	set  func(dst *T, v metrics.Value)
}

// f64 is a float64 metric kept in the field p returns.
func f64[T any](name string, p func(*T) *float64) field[T] {
	return field[T]{name, metrics.KindFloat64, func(dst *T, v metrics.Value) { *p(dst) = v.Float64() }}
}

// u64 is a uint64 metric kept in the field p returns.
func u64[T any](name string, p func(*T) *uint64) field[T] {
	return field[T]{name, metrics.KindUint64, func(dst *T, v metrics.Value) { *p(dst) = v.Uint64() }}
}

// hist is a histogram metric that keep stores (the histogram is the
// runtime's: keep copies what it holds on to beyond the next read).
func hist[T any](name string, keep func(*T, *metrics.Float64Histogram)) field[T] {
	return field[T]{name, metrics.KindFloat64Histogram, func(dst *T, v metrics.Value) { keep(dst, v.Float64Histogram()) }}
}

// samplesOf returns the samples that read fields, in their order.
func samplesOf[T any](fields []field[T]) []metrics.Sample {
	s := make([]metrics.Sample, len(fields))
	for i, f := range fields {
		s[i].Name = f.name
	}
	return s
}

// setFields stores each sample into dst; samples are samplesOf(fields),
// read.
func setFields[T any](dst *T, samples []metrics.Sample, fields []field[T]) {
	for i, m := range samples {
		if f := fields[i]; m.Value.Kind() == f.kind {
			f.set(dst, m.Value)
		}
	}
}

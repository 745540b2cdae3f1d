package stat

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	xs := []float64{3, 1, 2}
	if got := Median(xs); got != 2 {
		t.Errorf("Median(3,1,2) = %v, want 2", got)
	}
	if xs[0] != 3 {
		t.Error("Median sorted its argument")
	}
	if got := Median([]float64{4, 1, 2, 3}); got != 2.5 {
		t.Errorf("Median(4,1,2,3) = %v, want 2.5", got)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median of none is not NaN")
	}
	if got := MedianOr(nil, 0); got != 0 {
		t.Errorf("MedianOr(nil, 0) = %v", got)
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Percent(0.1234, 1), "12.3%"},
		{Percent(0.5, 0), "50%"},
		{Percent(0.01234, 2), "1.23%"},
		{SignedPercent(0.1234, 1), "+12.3%"},
		{SignedPercent(-0.04, 1), "-4.0%"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{4, 1, 3, 2, 5}
	for _, c := range []struct{ q, want float64 }{{0, 1}, {0.5, 3}, {1, 5}, {0.1, 1.4}, {0.9, 4.6}} {
		if got := Quantile(xs, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if xs[0] != 4 {
		t.Error("Quantile sorted its argument")
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("Quantile of none is not NaN")
	}
}

func TestMeanVar(t *testing.T) {
	if m, v := MeanVar([]float64{1, 2, 3, 4}); m != 2.5 || math.Abs(v-5.0/3) > 1e-12 {
		t.Errorf("1..4: %g %g", m, v)
	}
	if m, v := MeanVar([]float64{7}); m != 7 || !math.IsNaN(v) {
		t.Errorf("one value: %g %g", m, v)
	}
	if m, v := MeanVar(nil); !math.IsNaN(m) || !math.IsNaN(v) {
		t.Errorf("none: %g %g", m, v)
	}
}

package changepoint

import (
	"fmt"
	"math"
	"testing"
)

// noiseFamily returns n series of points pure-noise points (2% normal
// noise around 100), seeded by run.
func noiseFamily(run uint64, n, points int) []Series {
	ss := make([]Series, n)
	for i := range ss {
		ss[i] = noisy(run*1_000_003+uint64(i), points, 0.02, func(int) float64 { return 100 })
	}
	return ss
}

// falseAlarmRuns runs DetectAll over runs families of pure noise and returns
// how many runs reported any change point and, when lone is set, the change
// points Detect alone (P per series) would have reported over all runs.
func falseAlarmRuns(t *testing.T, runs, series, points int, lone bool) (failed, uncorrected int) {
	t.Helper()
	for run := range uint64(runs) {
		ss := noiseFamily(run, series, points)
		res, err := DetectAll(ss, Options{})
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for i, r := range res {
			found += len(r.ChangePoints)
			if r.Level > DefaultP || r.Level <= 0 {
				t.Fatalf("run %d series %d: level %g", run, i, r.Level)
			}
			if lone {
				uncorrected += len(detect(t, ss[i], Options{}).ChangePoints)
			}
		}
		if found > 0 {
			failed++
			t.Logf("run %d: %d change points in pure noise", run, found)
		}
	}
	return failed, uncorrected
}

// TestFamilyFalseAlarms: 1,000 pure-noise series × 20 points, 5 runs: no
// run reports a change point (the always-on version of
// TestFamilyFalseAlarmsLarge).
func TestFamilyFalseAlarms(t *testing.T) {
	failed, unc := falseAlarmRuns(t, 5, 1000, 20, true)
	if failed > 0 {
		t.Errorf("%d of 5 runs of 1,000 noise series reported change points, want none", failed)
	}
	t.Logf("uncorrected (P per series): %d change points over 5 runs", unc)
}

// TestFamilyFindsShifts: 10% shifts in 5 of 1,000 series, 10 commits before
// the end, are all found at their commit ±1, and nothing else is.
func TestFamilyFindsShifts(t *testing.T) {
	ss := noiseFamily(99, 1000, 40)
	shifted := map[int]bool{}
	for k := range 5 {
		i := 137 + 191*k
		shifted[i] = true
		ss[i] = noisy(uint64(5000+k), 40, 0.02, func(j int) float64 {
			if j >= 30 {
				return 110
			}
			return 100
		})
	}
	res, err := DetectAll(ss, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		switch {
		case shifted[i] && (len(r.ChangePoints) != 1 || abs(r.ChangePoints[0].Index-30) > 1):
			t.Errorf("series %d: a 10%% shift at 30: %+v (level %g)", i, r.ChangePoints, r.Level)
		case !shifted[i] && len(r.ChangePoints) > 0:
			t.Errorf("series %d: noise gave %+v (level %g)", i, r.ChangePoints, r.Level)
		}
	}
}

func TestFamilyOne(t *testing.T) {
	s := noisy(4, 100, 0.02, func(i int) float64 { return 100 + 5*float64(i/60) })
	res, err := DetectAll([]Series{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if lone := detect(t, s, Options{}); fmt.Sprint(res[0]) != fmt.Sprint(lone) {
		t.Errorf("one series: DetectAll %+v, Detect %+v", res[0], lone)
	}
}

func TestBHCutoff(t *testing.T) {
	for _, c := range []struct {
		ps   []float64
		q    float64
		want float64
	}{
		{[]float64{0.5}, 0.01, 0.01},
		{[]float64{1, 1, 1, 1}, 0.01, 0.0025},
		{[]float64{0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216}, 0.05, 0.01},
		{[]float64{0.001, 0.002, 0.003, 0.004}, 0.01, 0.01},
	} {
		if got := bhCutoff(c.ps, c.q); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("bhCutoff(%v, %g) = %g, want %g", c.ps, c.q, got, c.want)
		}
	}
}

// TestFamilyFalseAlarmsLarge is the hostile review's case: 10,000
// pure-noise series × 20 points, where P per series gave 20 change points a
// run; with the false-discovery rate held across the family, at most 1 of
// 20 runs may report any. (One does, run 8: a 20-point series whose points
// happen to lie in two tight groups, so that its own noise estimate is a
// quarter of the true σ. It takes about 5 s; -short skips it.)
func TestFamilyFalseAlarmsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if failed, _ := falseAlarmRuns(t, 20, 10_000, 20, false); failed > 1 {
		t.Errorf("%d of 20 runs of 10,000 noise series reported change points, want at most 1", failed)
	}
}

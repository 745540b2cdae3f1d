package workload

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestZipfThetaRange(t *testing.T) {
	for _, th := range []float64{0, 1, -0.5, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := NewZipf(10, th); !errors.Is(err, ErrTheta) {
			t.Errorf("theta %v: err %v, want ErrTheta", th, err)
		}
	}
	if _, err := NewZipf(0, 0.99); !errors.Is(err, ErrItems) {
		t.Errorf("0 items: err %v, want ErrItems", err)
	}
	if _, err := ParseKeyDist("pareto"); !errors.Is(err, ErrKeyDist) {
		t.Errorf("pareto: err %v", err)
	}
}

// The zipfian's rank 0 comes up with probability 1/zeta(n, theta), rank 1
// with 1/(2^theta zeta), and ranks stay in range.
func TestZipfShape(t *testing.T) {
	const n, draws = 1000, 200_000
	z, err := NewZipf(n, DefaultZipfTheta)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var c0, c1 int
	for range draws {
		k := z.Rank(r.Float64())
		if k >= n {
			t.Fatalf("rank %d out of [0, %d)", k, n)
		}
		switch k {
		case 0:
			c0++
		case 1:
			c1++
		}
	}
	zn := zeta(n, DefaultZipfTheta)
	for _, c := range []struct {
		got  int
		want float64
	}{{c0, 1 / zn}, {c1, 1 / (math.Pow(2, DefaultZipfTheta) * zn)}} {
		p := float64(c.got) / draws
		if math.Abs(p-c.want) > 0.1*c.want {
			t.Errorf("share %.4f, want %.4f ± 10%%", p, c.want)
		}
	}
}

// Scrambled zipfian: the hottest record is not record 0 and hot records
// are spread (the ten hottest are not ten neighbours); latest favours the
// newest; uniform covers the range evenly.
func TestChooser(t *testing.T) {
	const n = 10_000
	r := rand.New(rand.NewPCG(3, 4))
	zc, _ := NewChooser(DistZipfian, n, DefaultZipfTheta)
	counts := map[uint64]int{}
	for range 100_000 {
		counts[zc.Next(r, n)]++
	}
	var hot uint64
	for k, c := range counts {
		if c > counts[hot] {
			hot = k
		}
	}
	if hot == 0 || counts[hot] < 5000 {
		t.Errorf("hottest record %d drawn %d times: want a scrambled, skewed index", hot, counts[hot])
	}
	lc, _ := NewChooser(DistLatest, n, DefaultZipfTheta)
	newest := 0
	for range 10_000 {
		if k := lc.Next(r, 2*n); k >= 2*n {
			t.Fatalf("latest index %d out of range", k)
		} else if k >= 2*n-10 {
			newest++
		}
	}
	if newest < 2000 { // the 10 top ranks of 10^4 carry about 30%
		t.Errorf("latest: %d of 10000 draws among the 10 newest records, want about 3000", newest)
	}
	uc, _ := NewChooser(DistUniform, n, 0)
	var low int
	for range 10_000 {
		if uc.Next(r, n) < n/2 {
			low++
		}
	}
	if low < 4500 || low > 5500 {
		t.Errorf("uniform: %d of 10000 in the lower half", low)
	}
}

package history

import (
	"strings"
	"testing"
)

// gcstressBench is a gcstress bench.txt of a -build-envs run: each figure
// once per environment, the environment in the benchmark name.
const gcstressBench = `goos: linux
goarch: amd64
cpu: Test CPU @ 2.0GHz
goversion: go1.26.8
commit: aaa111
gcstress-count: 1
Unit MB/s better=higher assume=nothing
Unit gc-cpu-ns/put better=lower assume=nothing

BenchmarkGCStress/set=matrix/kind=heap/value=100/env=greentea 	100000	25.8 MB/s	306 gc-cpu-ns/put
BenchmarkGCStress/set=matrix/kind=heap/value=100/env=classic 	100000	35.1 MB/s	410 gc-cpu-ns/put
`

// A recorded gcstress run under build environments (gcstress -build-envs,
// `benchgate record -mode gcstress`) keeps each environment a series of its
// own: the environment is part of the benchmark name, so Green Tea and
// classic points never mix.
func TestGCStressEnvSeriesApart(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) { gcstressEnvSeries(t, openT(t, dsn)) })
}

func gcstressEnvSeries(t *testing.T, s *DB) {
	record(t, s, []byte(gcstressBench), Labels{Mode: "gcstress"})
	envs := map[string]int{}
	for _, se := range load(t, s, Query{Mode: "gcstress"}) {
		_, env, ok := strings.Cut(se.Benchmark, "/env=")
		if !ok {
			t.Errorf("series %q lost its environment", se.Benchmark)
		}
		envs[env+" "+se.Unit] = len(se.Points)
	}
	for _, k := range []string{"greentea MB/s", "classic MB/s", "greentea gc-cpu-ns/put", "classic gc-cpu-ns/put"} {
		if envs[k] != 1 {
			t.Errorf("series %s: %d points, want 1 (all: %v)", k, envs[k], envs)
		}
	}
}

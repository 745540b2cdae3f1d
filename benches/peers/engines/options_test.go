package engines

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	o, rest, err := SplitArgs(DefaultOptions(), []string{"-kinds", "ristretto", "-ristretto-budget", "64MB",
		"--pebble-memtables=4", "-values", "100", "-badger-memtables=3", "-otter-budget", "32MiB",
		"--shardmap-budget=1GB", "--", "-ristretto-budget", "x"})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{RistrettoBudget: 64 << 20, PebbleMemtables: 4, BadgerMemtables: 3,
		FastcacheBudget: DefaultCacheBudget, OtterBudget: 32 << 20, ShardmapBudget: 1 << 30}
	if o != want {
		t.Errorf("options %+v, want %+v", o, want)
	}
	if w := []string{"-kinds", "ristretto", "-values", "100", "--", "-ristretto-budget", "x"}; !slices.Equal(rest, w) {
		t.Errorf("rest %q, want %q", rest, w)
	}
	for _, bad := range [][]string{{"-ristretto-budget", "x"}, {"-ristretto-budget"}, {"-pebble-memtables=0"}, {"-badger-memtables", "65"}, {"-ristretto-budget", "2TiB"}, {"-ristretto-budget", "1KB"},
		{"-fastcache-budget", "lots"}, {"-otter-budget=512KB"}, {"--shardmap-budget", "2TiB"}} {
		_, _, err := SplitArgs(DefaultOptions(), bad)
		name := strings.SplitN(strings.TrimLeft(bad[0], "-"), "=", 2)[0]
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-"+name) {
			t.Errorf("%q: err %v, want ErrUsage naming -%s", bad, err, name)
		}
	}
}

// TestExportReachesOptionsFromEnv: what the parent exports, a child reads.
func TestExportReachesOptionsFromEnv(t *testing.T) {
	for _, f := range optFlags {
		t.Setenv(f.env, "") // restored after the test
	}
	want := Options{RistrettoBudget: 32 << 20, PebbleMemtables: 3, BadgerMemtables: 2,
		FastcacheBudget: 64 << 20, OtterBudget: 16 << 20, ShardmapBudget: 8 << 20}
	if err := want.Export(); err != nil {
		t.Fatal(err)
	}
	got, err := OptionsFromEnv()
	if err != nil || got != want {
		t.Fatalf("OptionsFromEnv() = %+v, %v; want %+v", got, err, want)
	}
	t.Setenv("WRITEGC_PEERS_PEBBLE_MEMTABLES", "many")
	if _, err := OptionsFromEnv(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "-pebble-memtables") {
		t.Fatalf("bad environment: err %v", err)
	}
}

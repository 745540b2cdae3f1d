package engines

import "github.com/writegc/writegc/gcstress"

// The kinds Register adds.
const (
	KindPebble    = "pebble"
	KindPebbleWAL = "pebble-wal"
	KindBadger    = "badger"
	KindRistretto = "ristretto"
	KindFastcache = "fastcache"
	KindOtter     = "otter"
	KindShardmap  = "shardmap"
)

// Kinds lists the kinds Register adds.
func Kinds() []string {
	return []string{KindPebble, KindPebbleWAL, KindBadger, KindRistretto, KindFastcache, KindOtter, KindShardmap}
}

// Register registers the peer engines with gcstress.RegisterEngine. Each
// constructor reads its Options with OptionsFromEnv when it runs (in the
// scenario's child), so a parent's Export reaches it. Call once, before
// cli.Main; a second call panics (gcstress refuses a kind twice).
func Register() {
	gcstress.RegisterEngine(KindPebble, func(s gcstress.Scenario) (gcstress.Engine, error) {
		return build(s, func(o Options) (gcstress.Engine, error) { return NewPebble(s, o, false) })
	})
	gcstress.RegisterEngine(KindPebbleWAL, func(s gcstress.Scenario) (gcstress.Engine, error) {
		return build(s, func(o Options) (gcstress.Engine, error) { return NewPebble(s, o, true) })
	})
	gcstress.RegisterEngine(KindBadger, func(s gcstress.Scenario) (gcstress.Engine, error) {
		return build(s, func(o Options) (gcstress.Engine, error) { return NewBadger(s, o) })
	})
	gcstress.RegisterEngine(KindRistretto, func(s gcstress.Scenario) (gcstress.Engine, error) {
		return build(s, func(o Options) (gcstress.Engine, error) { return NewRistretto(s, o) })
	})
	gcstress.RegisterEngine(KindFastcache, func(s gcstress.Scenario) (gcstress.Engine, error) {
		return build(s, func(o Options) (gcstress.Engine, error) { return NewFastcache(s, o) })
	})
	gcstress.RegisterEngine(KindOtter, func(s gcstress.Scenario) (gcstress.Engine, error) {
		return build(s, func(o Options) (gcstress.Engine, error) { return NewOtter(s, o) })
	})
	gcstress.RegisterEngine(KindShardmap, func(s gcstress.Scenario) (gcstress.Engine, error) {
		return build(s, func(o Options) (gcstress.Engine, error) { return NewShardmap(s, o) })
	})
}

// build reads the options from the environment and builds an engine.
func build(_ gcstress.Scenario, newE func(Options) (gcstress.Engine, error)) (gcstress.Engine, error) {
	o, err := OptionsFromEnv()
	if err != nil {
		return nil, err
	}
	return newE(o)
}

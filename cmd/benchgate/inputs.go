package main

import (
	"fmt"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/flagval"
)

// The flag values that reach a header line of base.txt and head.txt (tags,
// env), a go command (packages, tags, env) or git (revisions) are checked
// here, each error one line naming the flag and its value (quoted, so a
// newline shows as \n): see benchgate.CheckText.

// textFlag refuses a value holding a control character: in a header line
// it would be a line of its own, a result line included.
func textFlag(name, v string) error {
	if benchgate.CheckText(v) != nil {
		return fmt.Errorf("%s %q: holds a control character (newline, tab, ...)", name, v)
	}
	return nil
}

// revFlag refuses a revision git could read as an option, or holding a
// control character.
func revFlag(name, rev string) error {
	if err := textFlag(name, rev); err != nil {
		return err
	}
	if benchgate.CheckRev(rev) != nil {
		return fmt.Errorf("%s %q: want a git revision, not a flag", name, rev)
	}
	return nil
}

// pkgsFlag checks -pkgs: no control character, no pattern starting with
// '-' (the go command would read it as a flag).
func pkgsFlag(pkgs string) error {
	if err := textFlag("-pkgs", pkgs); err != nil {
		return err
	}
	for _, p := range flagval.List(pkgs) {
		if benchgate.CheckPackage(p) != nil {
			return fmt.Errorf("-pkgs %q: package %q: want a package path or pattern, not a flag", pkgs, p)
		}
	}
	return nil
}

// checkTextFlags checks run's and calibrate's -tags, -head-tags, -bench and
// -pkgs (the revisions are checked by their commands, -target by
// parseTarget, the environments by envFlag).
func checkTextFlags(cfg *benchgate.RunConfig, pkgs string) error {
	for _, f := range []struct{ name, v string }{
		{"-tags", cfg.Tags}, {"-head-tags", cfg.HeadTags}, {"-bench", cfg.Bench},
	} {
		if err := textFlag(f.name, f.v); err != nil {
			return err
		}
	}
	return pkgsFlag(pkgs)
}

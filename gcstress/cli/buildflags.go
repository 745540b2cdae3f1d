package cli

import (
	"flag"

	"github.com/writegc/writegc/gcstress"
)

// buildEnvFlags are -build-envs and -build-pkg, parsed after flag.Parse.
type buildEnvFlags struct{ envs string }

// defineBuildEnvFlags defines -build-envs and -build-pkg on fs.
func defineBuildEnvFlags(fs *flag.FlagSet, c *gcstress.Config) *buildEnvFlags {
	b := &buildEnvFlags{}
	fs.StringVar(&b.envs, "build-envs", "", "build the command once per environment and run every scenario under each, interleaved: "+
		"NAME=K=V ... separated by ';' (NAME= alone: the current environment; a NAME of a-z 0-9 . _ - starting with a-z or 0-9), e.g. 'greentea=;classic=GOEXPERIMENT=nogreenteagc'; "+
		"toolchains as the go command fetches them (GOTOOLCHAIN=go1.27.3). Results, bench.txt (/env=NAME) and the reports name each")
	fs.StringVar(&c.BuildPkg, "build-pkg", "", "the command -build-envs builds: one package main the go command resolves from here (./cmd/mystore; not a pattern, flag or std package); default: the running command's main package")
	return b
}

// apply parses -build-envs into c.
func (b *buildEnvFlags) apply(c *gcstress.Config) error {
	envs, err := gcstress.ParseBuildEnvs(b.envs)
	if err != nil {
		return err
	}
	c.BuildEnvs = envs
	return nil
}

package benchgate

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// SecretEnv is the registry of environment variables Run keeps from every
// process it starts (the benchmark binaries, valgrind, the go command, git):
// the code under test must never see a credential of the job that gates it.
// An entry is a variable name or a glob (path.Match syntax, * matching any
// run of characters); names are compared case-insensitively. The rule:
//
//   - the tokens and credentials CI systems put into a job's environment
//     (GitHub Actions, GitLab CI), the files through which a GitHub Actions
//     step changes later steps (GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT,
//     GITHUB_STATE, GITHUB_STEP_SUMMARY), cloud keys, and the history
//     databases' DSNs, by name;
//   - any name ending in _TOKEN, _SECRET, _DSN, _KEY (_API_KEY, _APIKEY,
//     _PRIVATE_KEY), _CREDENTIAL(S), _PASS, _PASSWD, _PWD or _JWT, or holding
//     SECRET_, PASSWORD or WEBHOOK (a MY_SERVICE_TOKEN, a DB_PASS or a
//     SLACK_WEBHOOK_URL is dropped without being listed);
//   - plus RunConfig.EnvDrop (benchgate run -env-drop).
//
// No variable the go command reads (GOPATH, GOCACHE, GOFLAGS, GOPROXY,
// GOROOT, ...) nor PATH, HOME, TMPDIR matches (a test holds this), so the
// build is unchanged. Explicit additions (RunConfig.BaseEnv, HeadEnv, a
// target's K=V) are passed as given.
var SecretEnv = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "BENCHGATE_GITHUB_TOKEN",
	"ACTIONS_RUNTIME_TOKEN", "ACTIONS_RUNTIME_URL", "ACTIONS_RESULTS_URL", "ACTIONS_CACHE_URL",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
	"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
	"CI_JOB_TOKEN", "CI_JOB_JWT", "CI_JOB_JWT_V1", "CI_JOB_JWT_V2", "CI_REGISTRY_PASSWORD",
	"CI_DEPLOY_PASSWORD",
	"BENCHGATE_HISTORY_DSN", "HISTORY_DSN", "WRITEGC_TEST_PG_DSN", "DATABASE_URL", "PGPASSWORD",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET", "NPM_TOKEN",
	"*_TOKEN", "*_SECRET", "*SECRET_*", "*PASSWORD*", "*_DSN", "*_API_KEY", "*_PRIVATE_KEY", "*_CREDENTIALS",
	"*_KEY", "*_APIKEY", "*_PASS", "*_PASSWD", "*_PWD", "*_JWT", "*_CREDENTIAL", "*WEBHOOK*",
}

// CheckEnvDrop checks RunConfig.EnvDrop: names or path.Match globs, no '='
// (errBadOption).
func CheckEnvDrop(drop []string) error {
	for _, p := range drop {
		if p == "" || strings.ContainsAny(p, "=\x00") {
			return fmt.Errorf("%w: EnvDrop %q: want a variable name or glob", errBadOption, p)
		}
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("%w: EnvDrop %q: %v", errBadOption, p, err)
		}
	}
	return nil
}

// Dropped reports whether Run keeps variable name from its children: it
// matches an entry of SecretEnv or of drop (the RunConfig.EnvDrop form).
func Dropped(name string, drop []string) bool {
	up := strings.ToUpper(name)
	for _, list := range [][]string{SecretEnv, drop} {
		for _, p := range list {
			if ok, _ := path.Match(strings.ToUpper(p), up); ok {
				return true
			}
		}
	}
	return false
}

// ScrubEnv returns env (KEY=VALUE entries) without the variables Dropped
// names. env itself is not changed.
func ScrubEnv(env, drop []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != "" && !Dropped(k, drop) {
			out = append(out, kv)
		}
	}
	return out
}

// childEnvKey is the context key of the environment Run's children start
// from (this process's, scrubbed).
type childEnvKey struct{}

// withChildEnv makes ctx carry the scrubbed environment of cfg's children.
func withChildEnv(ctx context.Context, drop []string) context.Context {
	return context.WithValue(ctx, childEnvKey{}, ScrubEnv(os.Environ(), drop))
}

// childEnv is the environment of a child started under ctx, with extra
// appended: this process's environment scrubbed by Run's rule (the
// SecretEnv registry alone when ctx does not come from Run). Every child
// benchgate starts gets its environment from here.
func childEnv(ctx context.Context, extra ...string) []string {
	base, ok := ctx.Value(childEnvKey{}).([]string)
	if !ok {
		base = ScrubEnv(os.Environ(), nil)
	}
	return append(slices.Clip(base), extra...)
}

// Package adopt holds no code. Its test is the check that writegc's gate
// works in someone else's repository the way the README says: it makes a
// throwaway git repository of its own (module example.com/throwaway, no
// dependencies) with a base commit, a commit that changes nothing, and a
// commit that makes one function slower (three times the work by default,
// the 30% with WRITEGC_ADOPT_SLOWDOWN=30 on a quiet machine: see the
// test for why), and runs the script the
// composite GitHub Action and the GitLab CI template call
// (scripts/benchgate-action.sh) on it, with a benchgate binary built from
// this checkout.
//
// Invariants the test holds the script to: the no-change commit passes
// (exit 0), the slowed commit fails (exit 1) with the slowed benchmark
// named in the Markdown job summary, a bad input is a usage error (exit 2)
// before anything is built, and a pull-request comment goes through `gh pr
// comment` only when a token is given. Secrets (secrets_test.go,
// steps_test.go): a benchmark that dumps its environment finds no token
// (the action's, GITHUB_TOKEN, a MY_SERVICE_TOKEN only the registry's glob
// names, a name only -env-drop names), and no file under the out folder, no
// output, summary or comment body holds one; action.yml gives the token to
// the comment step only and writegc's workflow gives the DSN to no step
// that runs `make gate`; an error's log is fenced with more backticks than
// it holds; reports past GitHub's limits are cut at a row with a note. The test needs git, bash and the go
// command on PATH and skips without them; it reads no network.
package adopt

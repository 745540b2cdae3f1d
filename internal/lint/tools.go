package lint

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildStaticcheck builds the staticcheck that root's go.mod pins into dir and
// returns its path.
func BuildStaticcheck(root, dir string) (string, error) {
	bin := filepath.Join(dir, "staticcheck")
	cmd := exec.Command("go", "build", "-o", bin, "honnef.co/go/tools/cmd/staticcheck")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build staticcheck: %w\n%s", err, out)
	}
	return bin, nil
}

// Staticcheck runs bin on patterns in dir and returns its findings, one a line
// ("file:line:col: message (CHECK)"); an empty list means clean.
func Staticcheck(bin, dir string, patterns ...string) ([]string, error) {
	cmd := exec.Command(bin, patterns...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	lines := nonEmptyLines(out.String())
	if err != nil && len(lines) == 0 {
		return nil, fmt.Errorf("staticcheck: %w\n%s", err, errb.String())
	}
	return lines, nil
}

// GoCommand runs `go args...` in dir with env added to the environment
// (e.g. GOOS=windows) and returns its combined output on failure.
func GoCommand(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s go %s: %w\n%s", strings.Join(env, " "), strings.Join(args, " "), err, out)
	}
	return nil
}

func nonEmptyLines(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

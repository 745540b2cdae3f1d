package lint

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MaxTrackedBytes is the largest file the repository may track outside
// results/ and testdata/ folders.
const MaxTrackedBytes = 1 << 20

// Finding is one broken rule: where and what.
type Finding struct {
	Where string // a file, or a package import path
	What  string
}

func (f Finding) String() string { return f.Where + ": " + f.What }

// executableMagic is the first bytes of the executable formats the repository
// must not track: ELF, PE (MZ), Mach-O (32/64-bit, both byte orders) and
// universal Mach-O.
var executableMagic = []struct {
	name  string
	magic []byte
}{
	{"an ELF executable", []byte{0x7f, 'E', 'L', 'F'}},
	{"a PE (Windows) executable", []byte{'M', 'Z'}},
	{"a Mach-O executable", []byte{0xfe, 0xed, 0xfa, 0xce}},
	{"a Mach-O executable", []byte{0xfe, 0xed, 0xfa, 0xcf}},
	{"a Mach-O executable", []byte{0xce, 0xfa, 0xed, 0xfe}},
	{"a Mach-O executable", []byte{0xcf, 0xfa, 0xed, 0xfe}},
	{"a universal Mach-O executable", []byte{0xca, 0xfe, 0xba, 0xbe}},
}

// TrackedFiles lists the files git tracks under root, relative to it.
func TrackedFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// CheckTrackedFiles reports every tracked file that is an executable, or
// larger than MaxTrackedBytes outside a results/ or testdata/ folder. A file
// listed but missing from the work tree (deleted, not yet committed) is
// skipped.
func CheckTrackedFiles(root string, files []string) ([]Finding, error) {
	var found []Finding
	for _, name := range files {
		fi, err := os.Lstat(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if what, err := executableKind(filepath.Join(root, name)); err != nil {
			return nil, err
		} else if what != "" {
			found = append(found, Finding{name, what + " is tracked (build outputs go to the ignored bin/)"})
		}
		if fi.Size() > MaxTrackedBytes && !underDataFolder(name) {
			found = append(found, Finding{name, fmt.Sprintf("%d bytes tracked outside results/ and testdata/ (limit %d)", fi.Size(), MaxTrackedBytes)})
		}
	}
	return found, nil
}

func underDataFolder(name string) bool {
	parts := strings.Split(filepath.ToSlash(name), "/")
	if parts[0] == "results" {
		return true
	}
	for _, p := range parts[:len(parts)-1] {
		if p == "testdata" {
			return true
		}
	}
	return false
}

func executableKind(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	head = head[:n]
	for _, m := range executableMagic {
		if bytes.HasPrefix(head, m.magic) {
			return m.name, nil
		}
	}
	return "", nil
}

package inputfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

func TestReadFileRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(p, 5)
	if err != nil || string(b) != "hello" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: %v, want ErrTooLarge", err)
	}
}

// TestRefusesFIFOWithoutBlocking: every hostile probe (a FIFO without a
// writer, a socket, a directory, links to /dev/zero and /dev/urandom) is
// refused by ReadFile, Open and Check with ErrNotRegular naming its kind,
// and none blocks.
func TestRefusesFIFOWithoutBlocking(t *testing.T) {
	kinds := map[string]string{"fifo": "FIFO", "socket": "socket", "directory": "directory",
		"/dev/zero link": "character device", "/dev/urandom link": "character device"}
	for _, pr := range testkit.Hostile(t, "input") {
		for name, f := range map[string]func() error{
			"ReadFile": func() error { _, err := ReadFile(pr.Path, 1<<20); return err },
			"Open":     func() error { _, err := Open(pr.Path, 1<<20); return err },
			"Check":    func() error { return Check(pr.Path, 1<<20) },
		} {
			err := testkit.Bounded(t, name+" of a "+pr.Kind, f)
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), kinds[pr.Kind]) {
				t.Errorf("%s of a %s: %v, want ErrNotRegular naming a %s", name, pr.Kind, err, kinds[pr.Kind])
			}
		}
	}
}

func TestRefusesDeviceLinkAndDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(dir, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("directory: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	link := filepath.Join(dir, "summary.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Skip(err)
	}
	if _, err := ReadFile(link, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("link to /dev/zero: %v", err)
	}
	if err := Check(link, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Check: %v", err)
	}
}

func TestGrowingFileStopsAtLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "grow")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(p, []byte("abcdefgh"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(f); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("grown past the limit: %v", err)
	}
}

func TestAlsoKeepsMessageAddsSentinel(t *testing.T) {
	mine := errors.New("mine")
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p, 4)
	got := Also(err, ErrTooLarge, mine)
	if !errors.Is(got, mine) || !errors.Is(got, ErrTooLarge) || got.Error() != err.Error() {
		t.Fatalf("Also = %v, want both sentinels and the message %q", got, err)
	}
	if Also(nil, ErrTooLarge, mine) != nil {
		t.Fatal("Also(nil) != nil")
	}
	other := errors.New("other")
	if Also(other, ErrTooLarge, mine) != other {
		t.Fatal("Also changed an error that does not match target")
	}
}

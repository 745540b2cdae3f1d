package benchgate

import (
	"errors"
	"strings"
	"testing"
)

// side writes ten samples of BenchmarkA at about v ns/op under the given
// configuration lines.
func sideText(config string, v float64) string {
	var b strings.Builder
	b.WriteString(config)
	for i := range 10 {
		b.WriteString(lines("BenchmarkA-2", "ns/op", v+float64(i%3)))
	}
	return b.String()
}

func TestCrossMachineRefused(t *testing.T) {
	base := parseString(t, sideText("cpu: AMD EPYC 7B13\ngoversion: go1.26.0\n", 100))
	head := parseString(t, sideText("cpu: Intel Xeon\ngoversion: go1.26.0\n", 100))
	_, err := Compare(base, head, Options{})
	if !errors.Is(err, ErrCrossMachine) || !strings.Contains(err.Error(), `cpu: base "AMD EPYC 7B13" vs head "Intel Xeon"`) {
		t.Fatalf("err = %v, want ErrCrossMachine naming both cpus", err)
	}
	rep, err := Compare(base, head, Options{AllowCrossMachine: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notes) == 0 || !strings.HasPrefix(rep.Notes[0], "WARNING: comparing across machines: cpu:") {
		t.Errorf("notes %q, want a cross-machine warning first", rep.Notes)
	}
}

func TestMachineKeys(t *testing.T) {
	for _, tc := range []struct {
		name, base, head string
		diff, unknown    string // substrings; "" means none expected
	}{
		{"same", "cpu: X\ngoamd64: v3\n", "cpu: X\ngoamd64: v3\n", "", ""},
		{"padded cpu is the same cpu", "cpu: X   Y  \n", "cpu: X Y\n", "", ""},
		{"goamd64", "goamd64: v1\n", "goamd64: v3\n", `goamd64: base "v1" vs head "v3"`, ""},
		{"go version", "goversion: go1.25.0\n", "goversion: go1.26.0\n", "goversion", ""},
		{"gomaxprocs line", "gomaxprocs: 4\n", "gomaxprocs: 2\n", "", ""}, // names say -2 on both sides
		{"missing key is unknown", "cpu: X\ngoamd64: v3\n", "cpu: X\n", "", "goamd64: unknown in head"},
		{"two cpus in one side", "cpu: X\n" + lines("BenchmarkB-2", "ns/op", 1) + "cpu: Y\n", "cpu: X\n", "cpu: base has 2 values", ""},
		{"kernel is a note only", "kernel: 6.1\n", "kernel: 6.8\n", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, h := parseString(t, sideText(tc.base, 100)), parseString(t, sideText(tc.head, 100))
			c := CheckMachines("base", b.Fingerprint(), "head", h.Fingerprint())
			if got := strings.Join(c.Diffs, "; "); (tc.diff == "") != (got == "") || !strings.Contains(got, tc.diff) {
				t.Errorf("diffs %q, want %q", got, tc.diff)
			}
			if got := strings.Join(c.Unknown, "; "); (tc.unknown == "") != (got == "") || !strings.Contains(got, tc.unknown) {
				t.Errorf("unknown %q, want %q", got, tc.unknown)
			}
		})
	}
}

func TestGomaxprocsFromNames(t *testing.T) {
	b := parseString(t, sideText("", 100))
	h := parseString(t, strings.ReplaceAll(sideText("", 100), "-2 ", "-4 "))
	c := CheckMachines("base", b.Fingerprint(), "head", h.Fingerprint())
	if len(c.Diffs) != 1 || c.Diffs[0] != `gomaxprocs: base "2" vs head "4"` {
		t.Errorf("diffs %q, want the GOMAXPROCS of the name suffixes", c.Diffs)
	}
}

func TestUnknownKeyIsANote(t *testing.T) {
	base := parseString(t, sideText("goversion: go1.26.0\n", 100))
	head := parseString(t, sideText("", 100))
	rep, err := Compare(base, head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Notes, "\n") != `machine goversion: unknown in head (base "go1.26.0"): not checked` {
		t.Errorf("notes %q", rep.Notes)
	}
}

package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteMDE: the points of a series with an MDE get a shaded band (one
// polygon per run of consecutive points with one, within the chart), their
// titles name it, and the chart's line names the latest; series without
// one get neither.
func TestWriteMDE(t *testing.T) {
	as := analyses(t)
	pts := as[0].Points
	for _, i := range []int{3, 4, 5, 10} { // two runs: 3-5 and a lone 10
		pts[i].MDE, pts[i].HasMDE = 0.042, true
	}
	pts[10].MDE = 0.5 // a band wider than the data: the chart must still hold it
	dir := t.TempDir()
	if err := WriteTrendPage(dir, "h", time.Unix(0, 0), as); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, PageFileName))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	if n := strings.Count(html, `<polygon class="mde"`); n != 2 {
		t.Errorf("%d MDE bands, want 2", n)
	}
	for _, want := range []string{"MDE 4.2% (the smallest change this run could catch)",
		`<span class="mde-last">MDE 50.0%: the smallest change the latest gate run could catch</span>`} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(html, `class="mde-last"`); n != 1 {
		t.Errorf("%d charts name an MDE, want 1", n)
	}
	c := draw(0, as[0])
	for _, band := range c.MDEBands {
		for _, xy := range strings.Fields(band) {
			x, y, _ := strings.Cut(xy, ",")
			if !within(t, x, c.PlotLeft-pointRadius, c.PlotRight+pointRadius) || !within(t, y, c.PlotTop, c.PlotBottom) {
				t.Errorf("band vertex %s outside the plot", xy)
			}
		}
	}
	if c := draw(1, as[1]); len(c.MDEBands) != 0 || c.HasMDE {
		t.Errorf("a series without MDEs: bands %q", c.MDEBands)
	}
}

func within(t *testing.T, s string, lo, hi float64) bool {
	t.Helper()
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatal(err)
	}
	return v >= lo && v <= hi
}

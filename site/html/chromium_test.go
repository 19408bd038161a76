package html

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site/html/htmltest"
)

// TestChromium loads rendered pages in a real browser: they must load without console errors or missing
// files and show the publication's name. Screenshots land in build/screenshots/ for a person to look at.
func TestChromium(t *testing.T) {
	bin := htmltest.Chromium(t)
	out := render(t, fixture())
	shots := htmltest.ArtefactDir(t)
	tests := []struct {
		name, path, want string
	}{
		{"hub", "/", `<a href="./acme/people/">People</a>`},
		{"publication", "/acme/people/staff/", `<h1 id="title">Staff Directory</h1>`},
		{"version", "/acme/people/staff/versions/2026_20spring_2F_CE_B2/", "Staff Directory 2026 spring/β"},
		{"resource", "/acme/people/staff/id/alice/", "Staff Directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := htmltest.Browse(t, bin, http.FileServer(http.Dir(out)), tc.path, filepath.Join(shots, tc.name+".png"))
			if !strings.Contains(b.DOM, tc.want) {
				t.Errorf("page %s does not show %q:\n%s", tc.path, tc.want, b.DOM)
			}
			if !strings.Contains(b.DOM, "</html>") {
				t.Errorf("page %s: no DOM dumped", tc.path)
			}
			if len(b.Console) > 0 {
				t.Errorf("page %s logged to the console:\n%s", tc.path, strings.Join(b.Console, "\n"))
			}
			if len(b.Failed) > 0 {
				t.Errorf("page %s asked for missing files: %v", tc.path, b.Failed)
			}
		})
	}
}

// TestChromiumSeesErrors shows the browser check can fail: a theme whose page throws and links a missing
// stylesheet must be caught by both detectors.
func TestChromiumSeesErrors(t *testing.T) {
	bin := htmltest.Chromium(t)
	over := t.TempDir()
	if err := os.MkdirAll(filepath.Join(over, "layouts"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := `{{ define "head" }}<link rel="stylesheet" href="/missing.css">{{ end }}` +
		`{{ define "main" }}<h1>{{ .Title }}</h1><script>undefinedFunction()</script>{{ end }}`
	if err := os.WriteFile(filepath.Join(over, "layouts", "hub.html"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	b := htmltest.Browse(t, bin, http.FileServer(http.Dir(render(t, fixture(), over))), "/", "")
	if len(b.Console) == 0 {
		t.Error("an uncaught exception was not seen in the console log")
	}
	if len(b.Failed) == 0 {
		t.Error("a missing stylesheet was not seen")
	}
}

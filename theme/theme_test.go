package theme_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/theme"
)

func TestResourcePageAndOverrides(t *testing.T) {
	thing := rdf.IRI("http://hub.example/g/r/core/Thing")
	res := &theme.Resource{IRI: thing.Value, Label: "Thing <one>",
		Publication: &tree.Page{Name: "Core", Self: "/g/r/core", Path: "/g/r/core"},
		Statements:  []theme.Statement{{S: thing, P: rdf.IRI("http://www.w3.org/2000/01/rdf-schema#label"), O: rdf.LangString("Ding <x>", "nl")}},
		Incoming:    []theme.Statement{{S: rdf.IRI("http://hub.example/g/r/core/Other"), P: rdf.IRI("http://x/p"), O: thing}},
		Next:        "/g/r/core/Thing?page=1"}
	override := t.TempDir()
	if err := os.WriteFile(filepath.Join(override, "base.html"), []byte(`{{define "base"}}<custom>{{block "main" .}}{{end}}</custom>{{end}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "resource.html"), []byte(`{{define "main"}}{{.Nope`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir string
		want      []string
		loadErr   bool
	}{
		{"default", "", []string{"<!DOCTYPE html>", "Thing &lt;one&gt;", "Ding &lt;x&gt;", "@nl", `href="/g/r/core"`,
			"Referenced by", "http://hub.example/g/r/core/Other", `rel="next" href="/g/r/core/Thing?page=1"`}, false},
		{"publisher's base", override, []string{"<custom>", "Ding &lt;x&gt;"}, false},
		{"broken override", broken, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			th, err := theme.Load(tc.dir)
			if tc.loadErr {
				if err == nil {
					t.Fatal("a broken template loaded")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := th.Resource(&b, res); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("page lacks %q:\n%s", w, b.String())
				}
			}
			if tc.dir == override && strings.Contains(b.String(), "<!DOCTYPE") {
				t.Error("the default base was used despite the override")
			}
		})
	}
}

// TestHugoThemeIsComplete: every layout the pages use is embedded, with the static files they link.
func TestHugoThemeIsComplete(t *testing.T) {
	for _, name := range []string{"layouts/baseof.html", "layouts/hub.html", "layouts/group.html", "layouts/repository.html",
		"layouts/publication.html", "layouts/version.html", "layouts/resource.html", "layouts/_partials/head-extra.html",
		"static/css/ldhub.css", "static/favicon.svg", "theme.toml"} {
		if _, err := fs.Stat(theme.Hugo(), name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

package theme_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/theme"
)

func TestPublicationPageAndOverrides(t *testing.T) {
	page := &tree.Page{Name: "Core <vocabulary>", URI: "http://hub.example/g/r/core", Self: "/g/r/core", Path: "/g/r/core",
		Formats: []tree.Format{{Ext: ".ttl", MediaType: "text/turtle", Name: "Turtle"}},
		Stats:   tree.Stats{Triples: 42, Classes: []tree.Count{{Value: "http://x/C", Label: "Klasse", N: 3}}}}
	override := t.TempDir()
	if err := os.WriteFile(filepath.Join(override, "base.html"), []byte(`{{define "base"}}<custom>{{block "main" .}}{{end}}</custom>{{end}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "publication.html"), []byte(`{{define "main"}}{{.Nope`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir string
		want      []string
		loadErr   bool
	}{
		{"default", "", []string{"<!DOCTYPE html>", "Core &lt;vocabulary&gt;", `href="/g/r/core.ttl"`, "Klasse", `id="triples">42<`, `action="/g/r/core"`, "void.ttl"}, false},
		{"publisher's base", override, []string{"<custom>", "Klasse"}, false},
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
			if err := th.Publication(&b, page); err != nil {
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

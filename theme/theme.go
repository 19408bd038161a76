// Package theme renders ldhub's HTML pages with html/template. The default theme is embedded; a publisher's theme
// folder may override any of its files (base.html, publication.html, resource.html) by name.
//
// The site is meant to be built with Hugo; until that lands (see the report of issue 6) these templates keep Hugo's
// layout split (a base with blocks, one template per page kind) so they move over with little change.
package theme

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/tree"
)

//go:embed default/*.html
var defaults embed.FS

// Statement is one triple of a resource page.
type Statement struct{ S, P, O rdf.Term }

// Resource is what a resource page shows.
type Resource struct {
	IRI         string
	Label       string
	Publication *tree.Page
	Statements  []Statement
	Incoming    []Statement
	Next        string // URL of the next page of incoming links, if any
}

// Theme holds the parsed templates. It is read-only once loaded.
type Theme struct {
	publication, resource *template.Template
}

var pageKinds = []string{"publication.html", "resource.html"}

// Load parses the default theme, with the files found in override (a folder; "" for none) taking precedence.
func Load(override string) (*Theme, error) {
	files := map[string][]byte{}
	for _, n := range append([]string{"base.html"}, pageKinds...) {
		b, err := defaults.ReadFile("default/" + n)
		if err != nil {
			return nil, err
		}
		if override != "" {
			if o, err := os.ReadFile(filepath.Join(override, n)); err == nil {
				b = o
			} else if !os.IsNotExist(err) {
				return nil, fmt.Errorf("theme: %w", err)
			}
		}
		files[n] = b
	}
	th := &Theme{}
	for _, kind := range pageKinds {
		t, err := template.New("base").Parse(string(files["base.html"]))
		if err != nil {
			return nil, fmt.Errorf("theme: base.html: %w", err)
		}
		if t, err = t.New(kind).Parse(string(files[kind])); err != nil {
			return nil, fmt.Errorf("theme: %s: %w", kind, err)
		}
		if kind == "publication.html" {
			th.publication = t
		} else {
			th.resource = t
		}
	}
	return th, nil
}

// Publication writes a publication's (or version's) page.
func (t *Theme) Publication(w io.Writer, p *tree.Page) error {
	return t.publication.ExecuteTemplate(w, "base", p)
}

// Resource writes a resource's page.
func (t *Theme) Resource(w io.Writer, r *Resource) error {
	return t.resource.ExecuteTemplate(w, "base", r)
}

// Package theme holds ldhub's page templates. The pages the pipeline writes (hub, groups, repositories,
// publications, versions) are built with Hugo from the theme in hugo/ (see Hugo and site/html). Resource pages are
// different: the direct-URL handler describes a resource from the SPARQL index on request, one page per request,
// where a Hugo build (tens of milliseconds before its first page) does not fit; they are rendered with
// html/template from default/ (base.html, resource.html), which a publisher's theme folder may override by name.
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
	resource *template.Template
}

var pageKinds = []string{"resource.html"}

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
		th.resource = t
	}
	return th, nil
}

// Resource writes a resource's page.
func (t *Theme) Resource(w io.Writer, r *Resource) error {
	return t.resource.ExecuteTemplate(w, "base", r)
}

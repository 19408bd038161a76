package html

import (
	"context"
	stdhtml "html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/vocab"
)

func readVocab(t testing.TB, name string) *vocab.Doc {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "content", "vocab", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := vocab.Read(ntriples.NewQuadDecoder(f, rdf.DecodeOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	// The package's meta.nt names the prefix its users declare (rdfa:prefix, rdfa:uri), as a Turtle upload would.
	m, err := os.Open(filepath.Join("..", "..", "content", "vocab", "testdata", strings.TrimSuffix(name, ".nq")+".meta.nt"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	dec := ntriples.NewDecoder(m, rdf.DecodeOptions{})
	var p rdf.Prefix
	for q, err := dec.Next(); err == nil; q, err = dec.Next() {
		switch q.P.Value {
		case "http://www.w3.org/ns/rdfa#prefix":
			p.Name = q.O.Value
		case "http://www.w3.org/ns/rdfa#uri":
			p.IRI = q.O.Value
		}
	}
	if p.Name == "" || p.IRI == "" {
		t.Fatalf("%s: no prefix in meta.nt", name)
	}
	d.Prefixes = append(d.Prefixes, p)
	return d
}

// renderDoc renders the latest page of a publication documenting d, in language lang.
func renderDoc(t testing.TB, d *vocab.Doc, uri, lang string) string {
	t.Helper()
	b := &Batch{Title: "Hub", Language: lang}
	v := Version{Label: "1", Href: "/g/r/p/versions/1", Time: time.Unix(0, 0),
		Dumps: []Dump{{Format: "Turtle", Ext: ".ttl", MediaType: "text/turtle", URL: "/g/r/p.ttl"}}}
	err := b.Publication("p", PublicationPage{Crumbs: []Crumb{{Name: "Hub", Href: "/"}}, Repository: Crumb{Name: "r", Href: "/g/r/"},
		Href: "/g/r/p", Publication: Publication{Name: "p", URI: uri, Versions: []Version{v}}, Latest: true, Vocab: d})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := RenderBatch(context.Background(), b, out); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "p", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// The DCAT vocabulary labels its terms in a dozen languages: an English page shows English labels only, a
// Spanish one Spanish labels, each field in one language.
func TestDocLanguages(t *testing.T) {
	d := readVocab(t, "dcat.nq")
	en := renderDoc(t, d, "http://www.w3.org/ns/dcat", "en")
	if !strings.Contains(en, `<span lang="en">Dataset</span>`) || strings.Contains(en, "Conjunto de datos") {
		t.Errorf("English page: Dataset label wrong")
	}
	es := renderDoc(t, d, "http://www.w3.org/ns/dcat", "es")
	if !strings.Contains(es, `<span lang="es">Conjunto de datos</span>`) {
		t.Errorf("Spanish page lacks the Spanish label")
	}
	for _, page := range []string{en, es} {
		if !strings.Contains(page, `id="Dataset"`) || !strings.Contains(page, `<code class="name">dcat:Dataset</code>`) {
			t.Errorf("no entry for dcat:Dataset")
		}
	}
}

func TestLangPick(t *testing.T) {
	ts := []vocab.Text{{Value: "Datensatz", Lang: "de"}, {Value: "Dataset", Lang: "en-gb"}, {Value: "x"}}
	for _, c := range []struct {
		prefs []string
		want  string
	}{{[]string{"de"}, "Datensatz"}, {[]string{"fr"}, "Dataset"}, {[]string{"en-GB"}, "Dataset"}, {nil, "Dataset"}} {
		if got := fallback(c.prefs).pick(ts); got.Value != c.want {
			t.Errorf("%v: %q, want %q", c.prefs, got.Value, c.want)
		}
	}
	if got := fallback([]string{"fr"}).pick([]vocab.Text{{Value: "b", Lang: "nl"}, {Value: "a", Lang: "de"}}); got.Lang != "de" {
		t.Errorf("no preferred language: %+v, want the first tag", got)
	}
}

// Every term each real vocabulary defines is on its page with its label and definition, at its anchor.
func TestDocRealVocabularies(t *testing.T) {
	for _, c := range []struct{ file, uri string }{
		{"foaf.nq", "http://xmlns.com/foaf/0.1"}, {"org.nq", "http://www.w3.org/ns/org"},
		{"prov.nq", "http://www.w3.org/ns/prov"}, {"sh.nq", "http://www.w3.org/ns/shacl"},
		{"skos.nq", "http://www.w3.org/2004/02/skos/core"}, {"dcat.nq", "http://www.w3.org/ns/dcat"},
	} {
		t.Run(c.file, func(t *testing.T) {
			d := readVocab(t, c.file)
			page := renderDoc(t, d, c.uri, "en")
			v := docPage(d, c.uri, "/g/r/p", []string{"en"}, TermsPage{}, 0)
			anchors := map[string]string{}
			for _, s := range v.Sections {
				for _, tm := range s.Terms {
					anchors[tm.IRI] = tm.ID
				}
			}
			ls := fallback([]string{"en"})
			for _, tm := range d.Terms {
				id := anchors[tm.IRI]
				if n := strings.Count(page, ` id="`+id+`"`); n != 1 {
					t.Errorf("%s: %d elements with id %q", tm.IRI, n, id)
					continue
				}
				entry := page[strings.Index(page, `id="`+id+`"`):]
				entry = stdhtml.UnescapeString(entry[:strings.Index(entry, "</article>")])
				if l := ls.pick(tm.Text[vocab.Label]); l.Value != "" && !strings.Contains(entry, l.Value) {
					t.Errorf("%s: label %q missing", tm.IRI, l.Value)
				}
				def := ls.pick(tm.Text[vocab.Definition])
				if def.Value == "" {
					def = ls.pick(tm.Text[vocab.Comment])
				}
				if def.Value != "" && !strings.Contains(entry, def.Value) {
					t.Errorf("%s: definition %q missing", tm.IRI, def.Value)
				}
				for _, sup := range tm.Links[vocab.SubClassOf] {
					if a := anchors[sup]; a != "" && !strings.Contains(entry, `href="#`+a+`"`) {
						t.Errorf("%s: superclass %s not linked", tm.IRI, sup)
					}
				}
			}
		})
	}
}

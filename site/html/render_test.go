package html

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// fixture is a small hub: one group, one repository, one publication with two versions and one resource.
func fixture() Site {
	dumps := func(dir string) []Dump {
		return []Dump{
			{Format: "Turtle", Ext: ".ttl", MediaType: "text/turtle", URL: dir + "data.ttl", Size: 2048},
			{Format: "N-Triples", Ext: ".nt", MediaType: "application/n-triples", URL: dir + "data.nt", Size: 4096},
			{Format: "RDF/XML", Ext: ".rdf", MediaType: "application/rdf+xml", URL: dir + "data.rdf", Size: 5000},
			{Format: "JSON-LD", Ext: ".jsonld", MediaType: "application/ld+json", URL: dir + "data.jsonld", Size: 6000},
		}
	}
	stats := Stats{
		Triples: 12345, Subjects: 321,
		Classes:    []Count{{Value: "http://xmlns.com/foaf/0.1/Person", Label: "Person", N: 300}},
		Properties: []Count{{Value: "http://xmlns.com/foaf/0.1/name", Label: "name", N: 600}},
		Languages:  []Count{{Value: "en", N: 400}, {Value: "nl", N: 200}},
	}
	alice := "http://example.org/people/alice"
	return Site{Title: "Example Hub", Hub: Hub{
		Description: "Open data from *Example*.<script>alert(1)</script>",
		Groups: []Group{{
			Slug: "acme", Name: "ACME Corp", Description: "ACME's data.",
			Repositories: []Repository{{
				Slug: "people", Name: "People", Description: "Who is who.",
				Publications: []Publication{{
					Slug: "staff", Name: "Staff Directory", Description: "Everybody who works at ACME.",
					URI: "http://example.org/staff", Publisher: "ACME Corp", License: "https://creativecommons.org/licenses/by/4.0/",
					Modified: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC),
					SPARQL:   "/acme/people/staff/sparql",
					Versions: []Version{
						{Label: "v2", Commit: "0123456789abcdef0123", Time: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC),
							Dumps: dumps("/acme/people/staff/.ld/v/v2/"), VoID: "/acme/people/staff/.ld/v/v2/void.ttl", Stats: stats,
							SPARQL: "/acme/people/staff/.ld/v/v2/sparql"},
						{Label: "2026 spring/β", Commit: "fedcba9876543210fedc", Time: time.Date(2026, 4, 1, 8, 30, 0, 0, time.UTC),
							Dumps: dumps("/acme/people/staff/.ld/v/v1/"), Stats: Stats{Triples: 99}},
					},
					Resources: []Resource{{
						Path: "id/alice", IRI: alice, Label: "Alice Liddell",
						Triples: []rdf.Quad{
							rdf.Triple(rdf.IRI(alice), rdf.IRI(rdf.RDFNS+"type"), rdf.IRI("http://xmlns.com/foaf/0.1/Person")),
							rdf.Triple(rdf.IRI(alice), rdf.IRI("http://xmlns.com/foaf/0.1/name"), rdf.LangString("Alice <Liddell>", "en")),
							rdf.Triple(rdf.IRI(alice), rdf.IRI("http://xmlns.com/foaf/0.1/age"), rdf.Literal("42", rdf.XSDNS+"integer")),
							rdf.Triple(rdf.IRI(alice), rdf.IRI("http://xmlns.com/foaf/0.1/knows"), rdf.Blank("b0")),
						},
					}},
				}},
			}},
		}}}}
}

func render(t *testing.T, s Site, overrides ...string) string {
	t.Helper()
	out := t.TempDir()
	if err := Render(context.Background(), s, out, overrides...); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return out
}

func readPage(t *testing.T, out, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel), "index.html"))
	if err != nil {
		t.Fatalf("page %s: %v", rel, err)
	}
	return string(b)
}

// TestRenderPages checks the key content of every page type (golden snippets rather than whole files, so that
// theme polish does not break them while a lost field still does).
func TestRenderPages(t *testing.T) {
	out := render(t, fixture())
	tests := []struct {
		page      string
		want      []string
		forbidden []string
	}{
		{".", []string{"<title>Example Hub</title>", "<em>Example</em>", `href="./acme/"`, "ACME Corp", `href="./acme/people/"`,
			`href="./css/ldhub.css"`}, []string{"<script>alert(1)"}},
		{"acme", []string{"<title>ACME Corp · Example Hub</title>", "ACME&rsquo;s data.", `href="../"`, `href="../acme/people/"`, "People"}, nil},
		{"acme/people", []string{"Who is who.", "Staff Directory", `href="../../acme/people/staff/"`, "v2", "12,345"}, nil},
		{"acme/people/staff", []string{
			`<h1 id="title">Staff Directory</h1>`, "Everybody who works at ACME.",
			"http://example.org/staff", "ACME Corp", "https://creativecommons.org/licenses/by/4.0/",
			`href="../../../acme/people/staff/.ld/v/v2/data.ttl"`, "2.0 kB", `href="../../../acme/people/staff/.ld/v/v2/data.nt"`,
			`href="../../../acme/people/staff/.ld/v/v2/data.rdf"`, `href="../../../acme/people/staff/.ld/v/v2/data.jsonld"`,
			`type="application/ld&#43;json"`, `<link rel="alternate" type="text/turtle" href="../../../acme/people/staff/.ld/v/v2/void.ttl"`,
			`<dd id="triples">12,345</dd>`, "<dd>321</dd>", "http://xmlns.com/foaf/0.1/Person", "Person", "http://xmlns.com/foaf/0.1/name",
			`<span lang="nl">nl</span> (200)`,
			`<form class="sparql" method="get" action="../../../acme/people/staff/sparql"`, `name="query"`,
			`href="../../../acme/people/staff/versions/v2/"`, `href="../../../acme/people/staff/versions/2026_20spring_2F_CE_B2/"`,
			"2026-04-01 08:30 UTC", "0123456789ab", `href="../../../acme/people/staff/id/alice/">Alice Liddell</a>`,
		}, nil},
		{"acme/people/staff/versions/v2", []string{"Version <strong>v2</strong>", `href="../../../../../acme/people/staff/"`,
			`href="../../../../../acme/people/staff/.ld/v/v2/data.ttl"`, "12,345",
			`action="../../../../../acme/people/staff/.ld/v/v2/sparql"`}, nil},
		{"acme/people/staff/versions/2026_20spring_2F_CE_B2", []string{"2026 spring/β", "data.jsonld", `<dd id="triples">99</dd>`},
			[]string{"<form"}},
		{"acme/people/staff/id/alice", []string{"<h1 id=\"title\">Alice Liddell</h1>", "http://example.org/people/alice",
			`>rdf:type</a>`, `>Person</a>`, `<span class="literal" lang="en">Alice &lt;Liddell&gt;</span>`, "xsd:integer", "_:b0",
			`href="../../../../../acme/people/staff/id/alice/"`, `href="../../../../../acme/people/staff/">Staff Directory</a>`},
			[]string{"Alice <Liddell>"}},
	}
	for _, tc := range tests {
		t.Run(tc.page, func(t *testing.T) {
			got := readPage(t, out, tc.page)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s lacks %q", tc.page, w)
				}
			}
			for _, f := range tc.forbidden {
				if strings.Contains(got, f) {
					t.Errorf("%s contains %q", tc.page, f)
				}
			}
			if t.Failed() {
				t.Logf("page:\n%s", got)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, "css", "ldhub.css")); err != nil {
		t.Errorf("theme CSS not published: %v", err)
	}
	// Nothing but our pages and the theme's static files.
	var got []string
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		if filepath.Base(rel) != "index.html" {
			got = append(got, filepath.ToSlash(rel))
		} else {
			got = append(got, "page:"+filepath.ToSlash(filepath.Dir(rel)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"css/ldhub.css", "favicon.svg", "js/ldhub.js", "page:.", "page:acme", "page:acme/people", "page:acme/people/staff",
		"page:acme/people/staff/id/alice", "page:acme/people/staff/versions/2026_20spring_2F_CE_B2",
		"page:acme/people/staff/versions/v2"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("output files:\n got %q\nwant %q", got, want)
	}
}

func TestRenderOverride(t *testing.T) {
	over := t.TempDir()
	files := map[string]string{
		"layouts/publication.html": `{{ define "main" }}<h1>Custom {{ .Title }}</h1>{{ end }}`,
		"static/css/ldhub.css":     "body{color:red}",
	}
	for name, body := range files {
		p := filepath.Join(over, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := render(t, fixture(), over)
	if got := readPage(t, out, "acme/people/staff"); !strings.Contains(got, "<h1>Custom Staff Directory</h1>") {
		t.Errorf("override layout not used:\n%s", got)
	}
	if got := readPage(t, out, "acme/people"); !strings.Contains(got, "Staff Directory") {
		t.Errorf("default layouts lost next to the override:\n%s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "css", "ldhub.css")); string(b) != "body{color:red}" {
		t.Errorf("override CSS not used: %q", b)
	}
}

func TestRenderRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Site)
		want string
	}{
		{"dot group", func(s *Site) { s.Hub.Groups[0].Slug = ".." }, "starts with a dot"},
		{"slash repo", func(s *Site) { s.Hub.Groups[0].Repositories[0].Slug = "a/b" }, "not allowed"},
		{"empty publication", func(s *Site) { s.Hub.Groups[0].Repositories[0].Publications[0].Slug = "" }, "empty publication"},
		{"resource in versions", func(s *Site) {
			s.Hub.Groups[0].Repositories[0].Publications[0].Resources[0].Path = "versions/x"
		}, "taken by the versions"},
		{"duplicate version", func(s *Site) {
			p := &s.Hub.Groups[0].Repositories[0].Publications[0]
			p.Versions[1].Label = p.Versions[0].Label
		}, "two versions"},
		{"dump without URL", func(s *Site) {
			s.Hub.Groups[0].Repositories[0].Publications[0].Versions[0].Dumps[1].URL = ""
		}, "has no URL"},
		{"duplicate group", func(s *Site) { s.Hub.Groups = append(s.Hub.Groups, s.Hub.Groups[0]) }, "two pages"},
		{"broken override", nil, "hugo"},
		{"override fetching a URL", nil, "access denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := fixture()
			var over []string
			if tc.edit != nil {
				tc.edit(&s)
			} else {
				dir := t.TempDir()
				if err := os.MkdirAll(filepath.Join(dir, "layouts"), 0o755); err != nil {
					t.Fatal(err)
				}
				tmpl := "{{ define \"main\" }}{{ .Nope }"
				if tc.want == "access denied" {
					tmpl = `{{ define "main" }}{{ with try (resources.GetRemote "http://127.0.0.1:9/x") }}{{ with .Err }}{{ errorf "%s" . }}{{ end }}{{ end }}{{ end }}`
				}
				if err := os.WriteFile(filepath.Join(dir, "layouts", "hub.html"), []byte(tmpl), 0o644); err != nil {
					t.Fatal(err)
				}
				over = []string{dir}
			}
			err := Render(context.Background(), s, t.TempDir(), over...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Render error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestHumanSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{{0, ""}, {999, "999 B"}, {2048, "2.0 kB"}, {999_949, "999.9 kB"}, {999_950, "1.0 MB"}, {3_500_000_000, "3.5 GB"}}
	for _, tc := range tests {
		if got := humanSize(tc.n); got != tc.want {
			t.Errorf("humanSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestRenderSparse renders what a new hub looks like: a publication without versions, a repository without
// publications, and a hub without groups.
func TestRenderSparse(t *testing.T) {
	s := Site{Title: "New Hub", Hub: Hub{Groups: []Group{{Slug: "g", Repositories: []Repository{
		{Slug: "empty"},
		{Slug: "r", Publications: []Publication{{Slug: "p", Name: "Coming Soon"}}},
	}}}}}
	out := render(t, s)
	for page, want := range map[string]string{
		".":       "Coming Soon",
		"g":       "No publications yet.",
		"g/r/p":   "Nothing has been published here yet.",
		"g/empty": "None yet.",
	} {
		if got := readPage(t, out, page); !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", page, want, got)
		}
	}
	if got := readPage(t, render(t, Site{}), "."); !strings.Contains(got, "No groups have been published yet.") {
		t.Errorf("empty hub:\n%s", got)
	}
}

func TestVersionDir(t *testing.T) {
	tests := []struct{ label, want string }{
		{"v1", "v1"},
		{"1.0.2", "1.0.2"},
		{"v_1", "v_5F1"},
		{".hidden", "_2Ehidden"},
		{"a/b", "a_2Fb"},
		{"2026 spring/β", "2026_20spring_2F_CE_B2"},
	}
	for _, tc := range tests {
		got, err := versionDir(tc.label)
		if err != nil || got != tc.want {
			t.Errorf("versionDir(%q) = %q, %v; want %q", tc.label, got, err, tc.want)
		}
		if err := checkSegment("version", got); err != nil {
			t.Errorf("versionDir(%q) = %q is not a safe segment: %v", tc.label, got, err)
		}
	}
	if _, err := versionDir(""); err == nil {
		t.Error("empty label accepted")
	}
}

func TestRenderCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Render(ctx, fixture(), t.TempDir()); err != context.Canceled {
		t.Fatalf("Render on a cancelled context = %v", err)
	}
}

package jsonld_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
)

func decode(t *testing.T, doc string, o rdf.DecodeOptions, c jsonld.Config) ([]rdf.Quad, *jsonld.Decoder, error) {
	t.Helper()
	if o.Blanks == nil {
		o.Blanks = rdf.NewBlankNodes("")
	}
	d := jsonld.NewDecoderWith(strings.NewReader(doc), o, c)
	quads, err := readAll(d)
	return quads, d, err
}

func TestDecode(t *testing.T) {
	s, p := rdf.IRI("http://ex/s"), rdf.IRI("http://ex/p")
	tests := []struct {
		name string
		doc  string
		base string
		want []rdf.Quad
	}{
		{"plain", `{"@id": "http://ex/s", "http://ex/p": "x"}`, "", []rdf.Quad{rdf.Triple(s, p, rdf.String("x"))}},
		{"context and relative IRIs", `{"@context": {"ex": "http://ex/", "p": {"@id": "ex:p", "@type": "@id"}}, "@id": "s", "p": "o"}`,
			"http://ex/", []rdf.Quad{rdf.Triple(s, p, rdf.IRI("http://ex/o"))}},
		{"native types", `{"@id": "http://ex/s", "http://ex/p": [true, 5, 1.5]}`, "", []rdf.Quad{
			rdf.Triple(s, p, rdf.Literal("true", rdf.XSDBoolean)),
			rdf.Triple(s, p, rdf.Literal("5", rdf.XSDInteger)),
			rdf.Triple(s, p, rdf.Literal("1.5E0", rdf.XSDDouble))}},
		{"language", `{"@context": {"@language": "en"}, "@id": "http://ex/s", "http://ex/p": "x"}`, "",
			[]rdf.Quad{rdf.Triple(s, p, rdf.LangString("x", "en"))}},
		{"named graph", `{"@id": "http://ex/g", "@graph": {"@id": "http://ex/s", "http://ex/p": "x"}}`, "",
			[]rdf.Quad{{S: s, P: p, O: rdf.String("x"), G: rdf.IRI("http://ex/g")}}},
		{"byte order mark", "\uFEFF" + `{"@id": "http://ex/s", "http://ex/p": "x"}`, "", []rdf.Quad{rdf.Triple(s, p, rdf.String("x"))}},
		{"malformed IRI dropped", `{"@id": "http://ex/s", "http://ex/p": {"@id": "http://ex/a b"}}`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := decode(t, tt.doc, rdf.DecodeOptions{Base: tt.base}, jsonld.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if !iso.Isomorphic(got, tt.want) {
				t.Errorf("%s", iso.Diff(got, tt.want))
			}
		})
	}
}

// Blank nodes from two documents decoded with one allocator must not collide, and labels must not depend on map
// iteration order.
func TestDecodeBlankNodes(t *testing.T) {
	doc := `{"@graph": [{"http://ex/p": {"http://ex/q": "a"}}, {"@id": "_:x", "http://ex/p": {"@list": [1, 2]}}]}`
	blanks := rdf.NewBlankNodes("d")
	first, _, err := decode(t, doc, rdf.DecodeOptions{Blanks: blanks}, jsonld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := decode(t, doc, rdf.DecodeOptions{Blanks: blanks}, jsonld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]bool{}
	for _, q := range first {
		for _, tm := range []rdf.Term{q.S, q.O} {
			if tm.IsBlank() {
				labels[tm.Value] = true
			}
		}
	}
	for _, q := range second {
		for _, tm := range []rdf.Term{q.S, q.O} {
			if tm.IsBlank() && labels[tm.Value] {
				t.Fatalf("label %s used by both documents", tm.Value)
			}
		}
	}
	for i := 0; i < 20; i++ {
		again, _, err := decode(t, doc, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("d")}, jsonld.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, first) {
			t.Fatalf("run %d differs:\n%v\n%v", i, again, first)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		limits    rdf.Limits
		line, col int
		code, msg string
	}{
		{"JSON syntax", "{\n  \"@id\": \"http://ex/s\",\n  \"http://ex/p\": [1,]\n}", rdf.Limits{}, 3, 21, "", "invalid character"},
		{"JSON syntax after non-ASCII", "{\"http://ex/p\": \"é€\" x}", rdf.Limits{}, 1, 22, "", "invalid character"},
		{"truncated", `{"@id": "http://ex/s"`, rdf.Limits{}, 1, 21, "", "unexpected end"},
		{"top-level string", `"http://ex/doc"`, rdf.Limits{}, 1, 1, "invalid input", "JSON object or array"},
		{"nesting", `{"http://ex/p": [[[[{"@value": 1}]]]]}`, rdf.Limits{MaxDepth: 4}, 1, 20, "", "nesting deeper than 4"},
		{"string size", `{"http://ex/p": "` + strings.Repeat("x", 100) + `"}`, rdf.Limits{MaxLiteralSize: 50}, 1, 17, "", "string longer than 50"},
		{"remote context refused", `{"@context": "http://example.org/ctx.jsonld", "p": "x"}`, rdf.Limits{}, 1, 14,
			"loading remote context failed", "no document loader configured"},
		{"JSON-LD error code", `{"@id": 5, "http://ex/p": "x"}`, rdf.Limits{}, 1, 9, "invalid @id value", ""},
		{"invalid base", `{"@context": {"@base": 5}, "http://ex/p": "x"}`, rdf.Limits{}, 1, 24, "invalid base IRI", ""},
		{"invalid @protected", `{"@context": {"@protected": "yes", "p": "http://ex/p"}, "p": "x"}`, rdf.Limits{}, 1, 29, "invalid @protected value", ""},
		{"invalid term @protected", `{"@context": {"p": {"@id": "http://ex/p", "@protected": 1}}, "p": "x"}`, rdf.Limits{}, 1, 20, "invalid @protected value", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := decode(t, tt.doc, rdf.DecodeOptions{Limits: tt.limits}, jsonld.Config{})
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a SyntaxError", err)
			}
			if se.Syntax != "json-ld" || se.Line != tt.line || se.Column != tt.col || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("got %q (line %d, column %d), want line %d, column %d, containing %q", err, se.Line, se.Column, tt.line, tt.col, tt.msg)
			}
			if code := jsonld.ErrorCode(err); code != tt.code {
				t.Errorf("error code %q, want %q", code, tt.code)
			}
		})
	}
}

func TestDecodeConfigErrors(t *testing.T) {
	for _, c := range []jsonld.Config{{ProcessingMode: "json-ld-2.0"}, {RDFDirection: "ltr"}, {ExpandContext: []byte("{")}} {
		if _, _, err := decode(t, `{}`, rdf.DecodeOptions{}, c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	loader := jsonld.LoaderFunc(func(context.Context, string) ([]byte, error) { return []byte(`{"@context": {}}`), nil })
	_, _, err := decode(t, `{"@context": "http://ex/c", "http://ex/p": "x"}`, rdf.DecodeOptions{}, jsonld.Config{Context: ctx, Loader: loader})
	if !strings.Contains(fmt.Sprint(err), "context canceled") {
		t.Errorf("got %v, want the cancellation", err)
	}
}

func TestDecodeInputSize(t *testing.T) {
	doc := `{"http://ex/p": "` + strings.Repeat("x", 1000) + `"}`
	_, _, err := decode(t, doc, rdf.DecodeOptions{}, jsonld.Config{MaxInputBytes: 500})
	var se *rdf.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "larger than 500 bytes") {
		t.Fatalf("got %v, want a size error", err)
	}
}

// A context that includes itself must end in an error, not a stack overflow.
func TestDecodeRecursiveContext(t *testing.T) {
	loader := jsonld.LoaderFunc(func(_ context.Context, url string) ([]byte, error) {
		return []byte(`{"@context": ["http://ex/ctx", {"p": "http://ex/p"}]}`), nil
	})
	_, _, err := decode(t, `{"@context": "http://ex/ctx", "p": "x"}`, rdf.DecodeOptions{}, jsonld.Config{Loader: loader})
	if code := jsonld.ErrorCode(err); code != "recursive context inclusion" {
		t.Fatalf("got %v", err)
	}
}

func TestLoaders(t *testing.T) {
	dir := t.TempDir()
	ctx := `{"@context": {"name": "http://schema.org/name"}}`
	if err := os.WriteFile(filepath.Join(dir, "ctx.jsonld"), []byte(ctx), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.jsonld"), []byte(ctx), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []rdf.Quad{rdf.Triple(rdf.IRI("http://ex/s"), rdf.IRI("http://schema.org/name"), rdf.String("x"))}
	tests := []struct {
		name    string
		loader  jsonld.Loader
		context string
		ok      bool
	}{
		{"map loader", jsonld.MapLoader(map[string]string{"https://ctx.example/c": filepath.Join(dir, "ctx.jsonld")}), "https://ctx.example/c", true},
		{"map loader, other URL", jsonld.MapLoader(map[string]string{"https://ctx.example/c": filepath.Join(dir, "ctx.jsonld")}), "https://ctx.example/d", false},
		{"dir loader", jsonld.DirLoader("https://ctx.example/", dir), "https://ctx.example/ctx.jsonld", true},
		{"dir loader, escape attempt", jsonld.DirLoader("https://ctx.example/", dir), "https://ctx.example/../secret.jsonld", false},
		{"dir loader, other prefix", jsonld.DirLoader("https://ctx.example/", dir), "https://other.example/ctx.jsonld", false},
		{"default refuses", nil, "https://ctx.example/ctx.jsonld", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"@context": "` + tt.context + `", "@id": "http://ex/s", "name": "x"}`
			got, _, err := decode(t, doc, rdf.DecodeOptions{}, jsonld.Config{Loader: tt.loader})
			if !tt.ok {
				if err == nil {
					t.Fatalf("loaded %s", tt.context)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !iso.Isomorphic(got, want) {
				t.Error(iso.Diff(got, want))
			}
		})
	}
}

func TestPrefixes(t *testing.T) {
	doc := `{"@context": [{"z": "http://z.example/", "skip": "http://ex/term", "a": "http://a.example#"},
		{"@vocab": "http://v/", "b": {"@id": "http://b/"}, "rel": "rel/", "a": "http://a2.example/"}],
		"@id": "http://ex/s", "z:p": "x"}`
	_, d, err := decode(t, doc, rdf.DecodeOptions{}, jsonld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := []rdf.Prefix{{Name: "z", IRI: "http://z.example/"}, {Name: "a", IRI: "http://a2.example/"}}
	if got := d.Prefixes(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	var _ rdf.PrefixSource = d
}

func encode(t *testing.T, quads []rdf.Quad, o rdf.EncodeOptions, c jsonld.EncodeConfig) string {
	t.Helper()
	var buf bytes.Buffer
	enc := jsonld.NewEncoderWith(&buf, o, c)
	for _, q := range quads {
		if err := enc.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestEncodeCompactsWithPrefixes(t *testing.T) {
	quads := []rdf.Quad{
		rdf.Triple(rdf.IRI("http://ex/s"), rdf.IRI(rdf.RDFType), rdf.IRI("http://schema.org/Person")),
		rdf.Triple(rdf.IRI("http://ex/s"), rdf.IRI("http://schema.org/name"), rdf.String("Ann")),
		rdf.Triple(rdf.IRI("http://ex/s"), rdf.IRI("http://schema.org/knows"), rdf.IRI("http://ex/t")),
	}
	got := encode(t, quads, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "schema", IRI: "http://schema.org/"}, {Name: "ex", IRI: "http://ex/"}}}, jsonld.EncodeConfig{})
	want := `{
  "@context": {
    "ex": "http://ex/",
    "schema": "http://schema.org/"
  },
  "@id": "ex:s",
  "@type": "schema:Person",
  "schema:knows": {
    "@id": "ex:t"
  },
  "schema:name": "Ann"
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestEncodeRelativeToBase(t *testing.T) {
	quads := []rdf.Quad{rdf.Triple(rdf.IRI("http://ex/doc/a"), rdf.IRI("http://schema.org/p"), rdf.IRI("http://ex/doc/b#x"))}
	o := rdf.EncodeOptions{Base: "http://ex/doc/", Prefixes: []rdf.Prefix{{Name: "s", IRI: "http://schema.org/"}}}
	out := encode(t, quads, o, jsonld.EncodeConfig{})
	if !strings.Contains(out, `"@id": "a"`) || !strings.Contains(out, `"@id": "b#x"`) {
		t.Errorf("IRIs not relative to the base:\n%s", out)
	}
	got, _, err := decode(t, out, rdf.DecodeOptions{Base: o.Base}, jsonld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !iso.Isomorphic(got, quads) {
		t.Error(iso.Diff(got, quads))
	}
}

func TestEncodeRejects(t *testing.T) {
	enc := jsonld.NewEncoder(&bytes.Buffer{}, rdf.EncodeOptions{})
	if err := enc.Encode(rdf.Quad{S: rdf.IRI("http://ex/s")}); err == nil {
		t.Error("incomplete quad accepted")
	}
	bad := rdf.Triple(rdf.IRI("http://ex/s"), rdf.IRI("http://ex/p"), rdf.Literal("{", rdf.RDFJSON))
	enc = jsonld.NewEncoder(&bytes.Buffer{}, rdf.EncodeOptions{})
	if err := enc.Encode(bad); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); jsonld.ErrorCode(err) != "invalid JSON literal" {
		t.Errorf("got %v, want invalid JSON literal", err)
	}
}

func TestRoundTrip(t *testing.T) {
	s, p := rdf.IRI("http://ex/s"), rdf.IRI("http://ex/p")
	quads := []rdf.Quad{
		rdf.Triple(s, p, rdf.String("plain")),
		rdf.Triple(s, p, rdf.LangString("chat", "fr-BE")),
		rdf.Triple(s, p, rdf.Literal("01", rdf.XSDInteger)),
		rdf.Triple(s, p, rdf.Literal("true", rdf.XSDBoolean)),
		rdf.Triple(s, p, rdf.Literal("2024-01-01", "http://www.w3.org/2001/XMLSchema#date")),
		// JSON-LD canonicalizes JSON literals (JCS), so only a canonical lexical form survives unchanged.
		rdf.Triple(s, p, rdf.Literal(`{"a":[true,null],"b":1}`, rdf.RDFJSON)),
		rdf.Triple(s, p, rdf.Blank("x")),
		rdf.Triple(rdf.Blank("x"), rdf.IRI(rdf.RDFType), rdf.IRI("http://ex/C")),
		rdf.Triple(rdf.Blank("x"), rdf.IRI("http://ex/list"), rdf.Blank("l1")),
		rdf.Triple(rdf.Blank("l1"), rdf.IRI(rdf.RDFFirst), rdf.String("a")),
		rdf.Triple(rdf.Blank("l1"), rdf.IRI(rdf.RDFRest), rdf.Blank("l2")),
		rdf.Triple(rdf.Blank("l2"), rdf.IRI(rdf.RDFFirst), rdf.IRI("http://ex/b")),
		rdf.Triple(rdf.Blank("l2"), rdf.IRI(rdf.RDFRest), rdf.IRI(rdf.RDFNil)),
		{S: s, P: p, O: rdf.String("in g"), G: rdf.IRI("http://ex/g")},
		{S: rdf.Blank("y"), P: p, O: rdf.String("in blank g"), G: rdf.Blank("g")},
	}
	for _, cfg := range []jsonld.EncodeConfig{{}, {Expanded: true}} {
		out := encode(t, quads, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: "http://ex/"}}}, cfg)
		got, _, err := decode(t, out, rdf.DecodeOptions{}, jsonld.Config{})
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !iso.Isomorphic(got, quads) {
			t.Errorf("expanded=%v: round trip differs:\n%s\n%s", cfg.Expanded, iso.Diff(got, quads), out)
		}
		if again := encode(t, quads, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: "http://ex/"}}}, cfg); again != out {
			t.Errorf("output not deterministic:\n%s\n%s", out, again)
		}
	}
}

// scopedDoc has one term with a scoped context of terms terms, used by uses nodes.
func scopedDoc(terms, uses int) string {
	var b strings.Builder
	b.WriteString(`{"@context": {"t": {"@id": "http://x/t", "@context": {`)
	for i := 0; i < terms; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d": "http://k/%d"`, i, i)
	}
	b.WriteString(`}}}, "@graph": [`)
	for i := 0; i < uses; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"@id": "http://n/%d", "t": {"k1": "v"}}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

func TestContextWorkBound(t *testing.T) {
	tests := []struct {
		name         string
		doc          string
		max, quads   int
		wantOverflow bool
	}{
		// Without memoisation this costs terms×uses = 400,000 term definitions.
		{"scoped context processed once", scopedDoc(200, 2000), 5000, 4000, false},
		{"budget exceeded", scopedDoc(200, 10), 150, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := decode(t, tt.doc, rdf.DecodeOptions{}, jsonld.Config{MaxTermDefinitions: tt.max})
			if tt.wantOverflow {
				if jsonld.ErrorCode(err) != "context overflow" {
					t.Fatalf("got %v, want context overflow", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.quads {
				t.Errorf("got %d quads, want %d", len(got), tt.quads)
			}
		})
	}
}

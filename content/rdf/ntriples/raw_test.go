package ntriples_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// rawDecoder reads through the raw reader and copies each statement, so the W3C runner can drive the raw API.
type rawDecoder struct {
	r *ntriples.RawReader
	q ntriples.RawQuad
}

func (r *rawDecoder) Next() (rdf.Quad, error) {
	if err := r.r.Next(&r.q); err != nil {
		return rdf.Quad{}, err
	}
	return r.q.Quad(), nil
}

func TestW3CNTriplesRaw(t *testing.T) {
	conformance.RunSyntaxSuite(t, conformance.SyntaxSuite{
		Suite: "n-triples-raw", Manifest: "rdf/rdf11/rdf-n-triples/manifest.ttl", TypePrefix: "TestNTriples",
		Decode: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder {
			return &rawDecoder{r: ntriples.NewDecoder(r, o).Raw()}
		},
		Known: knownFailures, Total: 70,
	})
}

func TestW3CNQuadsRaw(t *testing.T) {
	conformance.RunSyntaxSuite(t, conformance.SyntaxSuite{
		Suite: "n-quads-raw", Manifest: "rdf/rdf11/rdf-n-quads/manifest.ttl", TypePrefix: "TestNQuads",
		Decode: func(r io.Reader, o rdf.DecodeOptions) rdf.Decoder {
			return &rawDecoder{r: ntriples.NewQuadDecoder(r, o).Raw()}
		},
		Known: knownFailures, Total: 87,
	})
}

// sameAsNext decodes in with Next and with a RawReader and fails unless both give the same statements and the same
// error. The raw terms are copied at once: they are only valid until the next call.
func sameAsNext(t *testing.T, name, in string, lit int) {
	t.Helper()
	o := func() rdf.DecodeOptions {
		return rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("x"), Limits: rdf.Limits{MaxLiteralSize: lit}}
	}
	a := ntriples.NewQuadDecoder(strings.NewReader(in), o())
	b := ntriples.NewQuadDecoder(strings.NewReader(in), o()).Raw()
	var rq ntriples.RawQuad
	for n := 1; ; n++ {
		want, werr := a.Next()
		gerr := b.Next(&rq)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%s: statement %d: Next gave error %v, the raw reader %v", name, n, werr, gerr)
		}
		if werr != nil {
			if !errors.Is(werr, io.EOF) && !errors.Is(gerr, io.EOF) {
				var se *rdf.SyntaxError
				if !errors.As(gerr, &se) {
					t.Fatalf("%s: the raw reader's error %v is not a *rdf.SyntaxError", name, gerr)
				}
			}
			return
		}
		if got := rq.Quad(); got != want {
			t.Fatalf("%s: statement %d: Next gave %v, the raw reader %v", name, n, want, got)
		}
	}
}

// TestRawMatchesNext compares the two APIs on every N-Triples and N-Quads file of the W3C suites (positive and
// negative) and on cases that exercise the raw reader's own state: the subject cache, several unescaped values on one
// line, lines longer than the read buffer.
func TestRawMatchesNext(t *testing.T) {
	dir := conformance.SuitesDir(t)
	var files []string
	for _, sub := range []string{"rdf/rdf11/rdf-n-triples/*.nt", "rdf/rdf11/rdf-n-quads/*.nq"} {
		m, err := filepath.Glob(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 100 {
		t.Fatalf("found %d suite files under %s, want the whole N-Triples and N-Quads suites", len(files), dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameAsNext(t, filepath.Base(f), string(b), 1<<20)
	}
	long := strings.Repeat("long text ", 60000) // 600 kB: more than the 256 kB read buffer
	cases := map[string]string{
		"escapes everywhere": "<http://ex/s\\u00E9> <http://ex/p> \"a\\tb\\\"c\\U0001F600\" <http://ex/g\\u0041> .\n" +
			"<http://ex/s\\u00E9> <http://ex/p> \"\\u00e9\"@en-GB .\n",
		"subject cache": "<http://ex/s> <http://ex/p> \"1\" .\n<http://ex/s> <http://ex/q> _:b .\n" +
			"_:b <http://ex/p> _:b .\n_:b <http://ex/p> _:c .\n_:c.d <http://ex/p> \"x\"^^<http://ex/dt> .\n" +
			"<http://ex/s> <http://ex/p> <http://ex/o> .\n",
		"datatype interned then escaped": "<http://ex/s> <http://ex/p> \"1\"^^<http://ex/dt> .\n" +
			"<http://ex/s> <http://ex/p> \"2\"^^<http://ex/d\\u0074> .\n<http://ex/s> <http://ex/p> \"3\"^^<http://ex/dt> .\n",
		"long line":         "<http://ex/s> <http://ex/p> \"" + long + "\" .\n<http://ex/s> <http://ex/p> \"\\n" + long + "\" .\n",
		"literal too long":  "<http://ex/s> <http://ex/p> \"" + long + "\" .\n",
		"error after good":  "<http://ex/s> <http://ex/p> \"1\" .\n<http://ex/s> <http://ex/p> \"2\\q\" .\n",
		"bom and crlf":      "\xEF\xBB\xBF<http://ex/s> <http://ex/p> \"1\" .\r\n# c\r\n\r<http://ex/s> <http://ex/p> \"2\" .",
		"bad utf8 in iri":   "<http://ex/s\xff> <http://ex/p> \"1\" .\n",
		"relative iri":      "<s> <http://ex/p> \"1\" .\n",
		"subject then junk": "<http://ex/s> <http://ex/p> \"1\" .\n<http://ex/s>\n",
	}
	for name, in := range cases {
		lit := 1 << 20
		if name == "literal too long" {
			lit = 1 << 16
		}
		sameAsNext(t, name, in, lit)
	}
}

// FuzzRawMatchesNext: the raw reader accepts, rejects and returns exactly what Next does.
func FuzzRawMatchesNext(f *testing.F) {
	for _, s := range []string{
		"<http://ex/s> <http://ex/p> <http://ex/o> .\n<http://ex/s> <http://ex/p> \"x\\u00e9\\n\"@en-GB <http://ex/g> .\n",
		"_:a <http://ex/p> \"x\\u00e9\\n\"@en-GB <http://ex/g> .\r\n_:a <http://ex/p> _:a .\n",
		"<http://ex/s> <http://ex/p> \"1\"^^<http://ex/int> . # c\r<http://ex/s> <http://ex/p> \"1\"^^<http://ex/int> .",
		"<http://ex/\\U0001F600> <http://ex/p> \"\\\"\" .",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { sameAsNext(t, "fuzz input", in, 1<<16) })
}

// TestRawDoesNotAllocate: after the first statements (buffers, interned names), a statement costs no allocation;
// that is the point of the raw API.
func TestRawDoesNotAllocate(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 20000; i++ {
		sb.WriteString("<http://example.org/item")
		sb.WriteString(strings.Repeat("x", i%7))
		sb.WriteString("> <http://example.org/p> \"value \\\"quoted\\\" ")
		sb.WriteString(strings.Repeat("y", i%11))
		sb.WriteString("\"@en .\n<http://example.org/other> <http://example.org/q> \"1.5\"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n")
	}
	data := sb.String()
	var q ntriples.RawQuad
	allocs := testing.AllocsPerRun(3, func() {
		d := ntriples.NewDecoder(strings.NewReader(data), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")}).Raw()
		for {
			if err := d.Next(&q); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
				return
			}
		}
	})
	// The decoder, its read buffer, maps and a few grown buffers: a fixed handful, against 40000 statements.
	if allocs > 60 {
		t.Fatalf("%.0f allocations for 40000 statements; the raw reader should not allocate per statement", allocs)
	}
}

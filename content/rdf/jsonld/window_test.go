package jsonld_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/jsonld"
)

// largeDoc writes a document above jsonld.StreamAbove: a line of StreamAbove spaces (cheap to read, and every
// node object comes after the first read), then n node objects, one per line: node k on line k+3 (form "array": a
// top-level array) or k+4 (form "graph": {"@context", "@graph"}; "named": {"@id", "@graph"}, which cannot be
// streamed). Node k is replaced by bad[k] when given.
func largeDoc(form string, n int, bad map[int]string) string {
	var b strings.Builder
	switch form {
	case "array":
		b.WriteString("[\n")
	case "graph":
		b.WriteString("{\"@context\": {\"ex\": \"http://example.org/ns#\"},\n\"@graph\": [\n")
	case "named":
		b.WriteString("{\"@id\": \"http://example.org/g\",\n\"@graph\": [\n")
	}
	b.WriteString(strings.Repeat(" ", jsonld.StreamAbove))
	b.WriteString("\n")
	for k := range n {
		if k > 0 {
			b.WriteString(",\n")
		}
		if s, ok := bad[k]; ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, `{"@id": "http://example.org/s%d", "http://example.org/ns#name": "node %d %s", "http://example.org/ns#next": {"@id": "http://example.org/s%d"}}`,
			k, k, strings.Repeat("é", k%7), k+1)
	}
	b.WriteString("\n]")
	if form != "array" {
		b.WriteString("}")
	}
	b.WriteString("\n")
	return b.String()
}

// onlyReader hides the strings.Reader's other methods, as an HTTP body would.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func decodeLarge(doc string) ([]rdf.Quad, error) {
	d := jsonld.NewDecoder(onlyReader{strings.NewReader(doc)}, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")})
	return readAll(d)
}

const largeNodes = 3000

func TestLargeDocumentStreams(t *testing.T) {
	for _, form := range []string{"array", "graph", "named"} {
		t.Run(form, func(t *testing.T) {
			doc := largeDoc(form, largeNodes, nil)
			if len(doc) <= jsonld.StreamAbove {
				t.Fatalf("document of %d bytes, not above %d", len(doc), jsonld.StreamAbove)
			}
			quads, err := decodeLarge(doc)
			if err != nil {
				t.Fatal(err)
			}
			if len(quads) != 2*largeNodes {
				t.Fatalf("%d statements, want %d", len(quads), 2*largeNodes)
			}
			for k := range largeNodes {
				name, next := quads[2*k], quads[2*k+1]
				if name.P.Value == "http://example.org/ns#next" {
					name, next = next, name
				}
				wantG := rdf.Term{}
				if form == "named" {
					wantG = rdf.IRI("http://example.org/g")
				}
				s := rdf.IRI(fmt.Sprintf("http://example.org/s%d", k))
				if name.S != s || name.P != rdf.IRI("http://example.org/ns#name") || name.O.Value != fmt.Sprintf("node %d %s", k, strings.Repeat("é", k%7)) ||
					next.S != s || next.O != rdf.IRI(fmt.Sprintf("http://example.org/s%d", k+1)) || name.G != wantG || next.G != wantG {
					t.Fatalf("node %d: %v, %v", k, name, next)
				}
			}
		})
	}
	// The prefixes of the context of a streamed document are the decoder's prefixes, as for a small one.
	d := jsonld.NewDecoder(onlyReader{strings.NewReader(largeDoc("graph", largeNodes, nil))}, rdf.DecodeOptions{})
	if ps := d.Prefixes(); len(ps) != 1 || ps[0] != (rdf.Prefix{Name: "ex", IRI: "http://example.org/ns#"}) {
		t.Errorf("prefixes %v", ps)
	}
}

// genReader produces a large document on the fly, so that the test holds no copy of it.
type genReader struct {
	n, k int
	buf  []byte
	done bool
}

func (g *genReader) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		switch {
		case g.done:
			return 0, io.EOF
		case g.k == 0:
			g.buf = append(g.buf, "{\"@context\": {\"ex\": \"http://example.org/ns#\"}, \"@graph\": [\n"...)
		case g.k > g.n:
			g.buf, g.done = append(g.buf, "]}\n"...), true
			continue
		default:
			if g.k > 1 {
				g.buf = append(g.buf, ",\n"...)
			}
			g.buf = fmt.Appendf(g.buf, `{"@id": "http://example.org/s%d", "ex:name": "node %d", "ex:next": {"@id": "http://example.org/s%d"}}`, g.k, g.k, g.k+1)
		}
		g.k++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// The decoder's memory is the node object it converts, not the document: a 12 MB document is decoded while the
// decoder's live heap stays a fraction of it (reading it whole held a copy of all of it). Of a reader that does not
// say its size, the decoder reads StreamAbove bytes first (a smaller document is read whole), and lets go of them
// once they are converted.
func TestLargeDocumentMemoryIsBounded(t *testing.T) {
	const n = 125000 // about 12 MB
	doc, err := io.ReadAll(&genReader{n: n})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		r     io.Reader
		after int // statements from which the heap is sampled
	}{
		{"size known", bytes.NewReader(doc), 0},
		{"size unknown", &genReader{n: n}, 100000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			d := jsonld.NewDecoder(tt.r, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")})
			var peak uint64
			count := 0
			for {
				_, err := d.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if count++; count >= tt.after && count%20000 == 0 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
				}
			}
			if count != 2*n {
				t.Fatalf("%d statements, want %d", count, 2*n)
			}
			if peak > 2<<20 {
				t.Errorf("the decoder's live heap reached %.1f MiB while decoding a %d MB document", float64(peak)/(1<<20), len(doc)/1e6)
			}
		})
	}
}

func TestLargeDocumentErrors(t *testing.T) {
	const k = 2000
	tests := []struct {
		name      string
		doc       string
		line, col int
		msg       string
	}{
		{"JSON-LD error", largeDoc("array", largeNodes, map[int]string{k: `{"@id": 5}`}), k + 3, 9, "invalid @id value at [2000].@id"},
		{"JSON-LD error in @graph", largeDoc("graph", largeNodes, map[int]string{k: `{"@id": "http://ex/a", "@type": 5}`}), k + 4, 33, "invalid type value at @graph[2000].@type"},
		{"JSON syntax", largeDoc("array", largeNodes, map[int]string{k: `{"@id": "http://ex/é", x}`}), k + 3, 24, "invalid character 'x'"},
		{"missing comma", largeDoc("array", largeNodes, map[int]string{k: `{"@id": "http://ex/a"} {}`}), k + 3, 24, "after array element"},
		{"keys after @graph", strings.TrimSuffix(largeDoc("graph", largeNodes, nil), "}\n") + `, "@id": "http://ex/g"}`, largeNodes + 4, 2, "@graph must be its last key"},
		{"data after the document", largeDoc("array", largeNodes, nil) + "[]", largeNodes + 4, 1, "after top-level value"},
		{"truncated", strings.TrimSuffix(largeDoc("array", largeNodes, nil), "]\n"), 0, 0, "unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeLarge(tt.doc)
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a SyntaxError", err)
			}
			if !strings.Contains(se.Msg, tt.msg) || tt.line > 0 && (se.Line != tt.line || se.Column != tt.col) {
				t.Errorf("got %q at line %d, column %d; want %q at line %d, column %d", se.Msg, se.Line, se.Column, tt.msg, tt.line, tt.col)
			}
		})
	}
}

func TestLargeDocumentSizeLimit(t *testing.T) {
	doc := largeDoc("array", largeNodes, nil)
	d := jsonld.NewDecoderWith(onlyReader{strings.NewReader(doc)}, rdf.DecodeOptions{}, jsonld.Config{MaxInputBytes: int64(len(doc) - 10)})
	_, err := readAll(d)
	var se *rdf.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "document larger than") {
		t.Fatalf("got %v, want the size limit", err)
	}
}

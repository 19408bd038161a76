package stream

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// rawQuadsDoc is N-Quads with what the raw path must treat as Next does: escapes in IRIs and strings (values that
// are not slices of the line), repeated and changing subjects, blank nodes in every position, datatypes,
// language tags, named graphs, comments, blank lines, CRLF and a byte-order mark.
func rawQuadsDoc(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("\ufeff# a comment\r\n\r\n")
	subj := "<http://ex.org/s0>"
	for i := range n {
		if r.IntN(4) == 0 {
			switch k := r.IntN(60); {
			case k < 20:
				subj = fmt.Sprintf("<http://ex.org/s%d>", k)
			case k < 40:
				subj = fmt.Sprintf("_:n%d", k)
			default:
				subj = fmt.Sprintf(`<http://ex.org/\u00e9%d>`, k)
			}
		}
		pred := fmt.Sprintf("<http://ex.org/p%d>", r.IntN(7))
		var obj string
		switch r.IntN(8) {
		case 0:
			obj = fmt.Sprintf("<http://ex.org/o%d>", r.IntN(100))
		case 1:
			obj = fmt.Sprintf("_:n%d", r.IntN(30))
		case 2:
			obj = fmt.Sprintf(`"plain %d"`, i)
		case 3:
			obj = fmt.Sprintf(`"tab\there \"q\" \u00FC %d"@en-GB`, i)
		case 4:
			obj = fmt.Sprintf(`"%d"^^<http://www.w3.org/2001/XMLSchema#integer>`, i)
		case 5:
			obj = `""`
		case 6:
			obj = fmt.Sprintf(`"x"^^<http://ex.org/dt\u0031%d>`, r.IntN(3))
		default:
			obj = `"chat"@fr`
		}
		graph := ""
		switch r.IntN(6) {
		case 0:
			graph = fmt.Sprintf(" <http://ex.org/g%d>", r.IntN(3))
		case 1:
			graph = " _:g1"
		}
		sep := "\n"
		if i%5 == 0 {
			sep = " # trailing comment\r\n"
		}
		fmt.Fprintf(&b, "%s %s %s%s .%s", subj, pred, obj, graph, sep)
	}
	return b.String()
}

// TestRawQuadsIsNext: the fan-out's raw reading gives the statements the decoder's Next gives, blank labels
// included, and stops at the same error.
func TestRawQuadsIsNext(t *testing.T) {
	doc := rawQuadsDoc(rand.New(rand.NewPCG(1, 2)), 20000)
	bad := doc + "<http://ex.org/s> <http://ex.org/p> \"unterminated .\n"
	for name, in := range map[string]string{"good": doc, "syntax error at the end": bad, "empty": ""} {
		t.Run(name, func(t *testing.T) {
			opts := func() rdf.DecodeOptions { return rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("b")} }
			want := ntriples.NewQuadDecoder(strings.NewReader(in), opts())
			raw := NewRawQuads(ntriples.NewQuadDecoder(strings.NewReader(in), opts()))
			got := rdf.Quad{S: rdf.IRI("stale"), G: rdf.IRI("stale")} // read must overwrite every field
			for i := 0; ; i++ {
				wq, werr := want.Next()
				gerr := raw.Read(&got)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Fatalf("statement %d: error %v, want %v", i+1, gerr, werr)
				}
				if werr == io.EOF {
					if i < 10 && name != "empty" {
						t.Fatalf("only %d statements read", i)
					}
					return
				}
				if werr != nil {
					return
				}
				if got != wq {
					t.Fatalf("statement %d: got %v, want %v", i+1, got, wq)
				}
			}
		})
	}
}

// TestRawQuadsStringsStay: strings handed out earlier keep their bytes while later statements are read (the
// blocks are only ever appended to, and the reader's own buffer is reused).
func TestRawQuadsStringsStay(t *testing.T) {
	doc := rawQuadsDoc(rand.New(rand.NewPCG(3, 4)), 30000)
	opts := rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("b")}
	raw := NewRawQuads(ntriples.NewQuadDecoder(strings.NewReader(doc), opts))
	var kept []rdf.Quad
	for {
		var q rdf.Quad
		err := raw.Read(&q)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, q)
	}
	dec := ntriples.NewQuadDecoder(strings.NewReader(doc), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("b")})
	for i, q := range kept {
		w, err := dec.Next()
		if err != nil {
			t.Fatal(err)
		}
		if q != w {
			t.Fatalf("statement %d changed after later reads: %v, want %v", i+1, q, w)
		}
	}
	if len(kept) != 30000 {
		t.Fatalf("%d statements, want 30000", len(kept))
	}
}

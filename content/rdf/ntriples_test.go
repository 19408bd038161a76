package rdf_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// Every byte value, alone and between other characters, in an IRI, a literal, a language-tagged literal and a
// datatype IRI, is written as N-Triples and RDFC-1.0 say: in a string the short escapes, \u00XX for the other
// controls and DEL, everything else as it is; in an IRI \u00XX for the controls, space and <>"{}|^`\.
func TestAppendTermEscapes(t *testing.T) {
	short := map[byte]string{'"': `\"`, '\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\b': `\b`, '\f': `\f`}
	for c := range 256 {
		b := byte(c)
		inString := string([]byte{b})
		if e, ok := short[b]; ok {
			inString = e
		} else if b < 0x20 || b == 0x7f {
			inString = fmt.Sprintf(`\u%04X`, b)
		}
		inIRI := string([]byte{b})
		if b <= 0x20 || strings.IndexByte("<>\"{}|^`\\", b) >= 0 {
			inIRI = fmt.Sprintf(`\u%04X`, b)
		}
		v := "a" + string([]byte{b}) + "é"
		for term, want := range map[rdf.Term]string{
			rdf.IRI("http://x/" + v):        "<http://x/a" + inIRI + "é>",
			rdf.String(v):                   `"a` + inString + `é"`,
			rdf.LangString(v, "en-GB"):      `"a` + inString + `é"@en-GB`,
			rdf.Literal(v, "http://x/dt"+v): `"a` + inString + `é"^^<http://x/dta` + inIRI + "é>",
			rdf.Literal(v, rdf.XSDString):   `"a` + inString + `é"`,
			rdf.Blank("b" + fmt.Sprint(c)):  "_:b" + fmt.Sprint(c),
		} {
			if got := string(rdf.AppendTerm([]byte("keep"), term)); got != "keep"+want {
				t.Errorf("byte %#x, %#v: got %q, want %q", c, term, got[4:], want)
			}
			var sb strings.Builder
			rdf.AppendNTriples(&sb, term)
			if sb.String() != want || term.String() != want {
				t.Errorf("byte %#x: AppendNTriples %q, String %q, want %q", c, sb.String(), term.String(), want)
			}
		}
	}
	if got := rdf.AppendTerm([]byte("x"), rdf.Term{}); string(got) != "x" {
		t.Errorf("zero term appended %q", got[1:])
	}
}

// The strings.Builder forms write values longer than their stack buffer whole.
func TestAppendLong(t *testing.T) {
	long := strings.Repeat("ab\"c", 1000)
	var sb strings.Builder
	rdf.AppendEscapedString(&sb, long)
	if want := strings.Repeat(`ab\"c`, 1000); sb.String() != want {
		t.Errorf("long string: %d bytes, want %d", sb.Len(), len(want))
	}
	q := rdf.Quad{S: rdf.Blank("s"), P: rdf.IRI("http://x/p"), O: rdf.String(long), G: rdf.IRI("http://x/g")}
	if got, want := q.String(), `_:s <http://x/p> "`+strings.Repeat(`ab\"c`, 1000)+`" <http://x/g> .`; got != want {
		t.Errorf("quad: %d bytes, want %d", len(got), len(want))
	}
}

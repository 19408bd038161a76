package delta

import (
	"hash/maphash"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// The arena encoding must round-trip every term and tell apart exactly what canonical N-Quads tells apart.
func TestSideEncoding(t *testing.T) {
	long := strings.Repeat("x", 300) // a two-byte length prefix
	quads := []rdf.Quad{
		rdf.Triple(rdf.IRI("urn:s"), rdf.IRI("urn:p"), rdf.String("")),
		rdf.Triple(rdf.IRI("urn:s"), rdf.IRI("urn:p"), rdf.String("a\x00b")),
		rdf.Triple(rdf.IRI("urn:s"), rdf.IRI("urn:p"), rdf.LangString(long, "en-GB")),
		rdf.Triple(rdf.IRI("urn:s"), rdf.IRI("urn:p"), rdf.Literal("1", rdf.XSDInteger)),
		rdf.Triple(rdf.IRI("urn:s"), rdf.IRI("urn:p"), rdf.IRI(long)),
		{S: rdf.IRI("urn:s"), P: rdf.IRI("urn:p"), O: rdf.IRI("urn:o"), G: rdf.IRI("urn:g")},
		rdf.Triple(rdf.IRI("urn:s"), rdf.IRI("urn:p"), rdf.String(strings.Repeat("y", blockSize+10))), // own block
		rdf.Triple(rdf.IRI("urn:s"), rdf.IRI("urn:p"), rdf.String("after the big one")),
	}
	s := newSide(maphash.MakeSeed(), 0)
	for i := range quads {
		s.add(&quads[i])
	}
	// Before finish, keys are in input order.
	for i, q := range quads {
		if got := s.quad(s.keys[i]); !got.Equal(q) {
			t.Errorf("quad %d decoded as %v, want %v", i, got, q)
		}
	}
	s.finish()
	same := []struct{ x, y rdf.Term }{
		{rdf.String("v"), rdf.Term{Kind: rdf.KindLiteral, Value: "v"}},
		{rdf.LangString("v", "en"), rdf.Term{Kind: rdf.KindLiteral, Value: "v", Lang: "en"}},
	}
	for _, c := range same {
		if string(appendTerm(nil, &c.x)) != string(appendTerm(nil, &c.y)) {
			t.Errorf("%#v and %#v should encode the same", c.x, c.y)
		}
	}
	differ := []struct{ x, y rdf.Term }{
		{rdf.String("v"), rdf.IRI("v")},
		{rdf.String("v"), rdf.LangString("v", "en")},
		{rdf.LangString("v", "en"), rdf.LangString("v", "EN")},
		{rdf.String("v"), rdf.Literal("v", rdf.XSDInteger)},
		{rdf.IRI("ab"), rdf.IRI("a")},
	}
	for _, c := range differ {
		if string(appendTerm(nil, &c.x)) == string(appendTerm(nil, &c.y)) {
			t.Errorf("%#v and %#v should encode differently", c.x, c.y)
		}
	}
}

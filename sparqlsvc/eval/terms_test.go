package eval

import (
	"fmt"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestOverlayIDs: one id per term (language tags compared case-insensitively), distinct terms distinct ids, and
// every id gives its term back, also when hashes collide (here all of them).
func TestOverlayIDs(t *testing.T) {
	for _, collide := range []bool{false, true} {
		ts := newTerms(nil)
		if collide {
			ts.hash = func([]byte) uint64 { return 7 }
		}
		var all []rdf.Term
		for i := range 200 {
			v := fmt.Sprint(i % 50)
			all = append(all, rdf.Literal(v, rdf.XSDInteger), rdf.Literal(v, rdf.XSDDecimal), rdf.String(v),
				rdf.LangString(v, "en"), rdf.IRI("http://x/"+v))
		}
		seen := map[ID]rdf.Term{}
		for _, x := range all {
			id := ts.id(x)
			if got := ts.term(id); got != x {
				t.Fatalf("collide=%v: term(id(%v)) = %v", collide, x, got)
			}
			if y, ok := seen[id]; ok && y != x {
				t.Fatalf("collide=%v: %v and %v share id %d", collide, x, y, id)
			}
			seen[id] = x
			if again := ts.id(x); again != id {
				t.Fatalf("collide=%v: %v interned twice: %d, %d", collide, x, id, again)
			}
		}
		if len(seen) != 250 {
			t.Errorf("collide=%v: %d ids for 250 terms", collide, len(seen))
		}
		if a, b := ts.id(rdf.LangString("x", "EN")), ts.id(rdf.LangString("x", "en")); a != b {
			t.Errorf("collide=%v: language tags are case-insensitive: %d, %d", collide, a, b)
		}
	}
}

// TestIDOfTheTermJustRead: a computed term equal to the one read last gets that term's id without a lookup; one
// that differs only in its datatype, language tag or kind gets what a fresh id space gives it.
func TestIDOfTheTermJustRead(t *testing.T) {
	b, add := builderAdding(t)
	data := []rdf.Term{rdf.Literal("2008-01-02T03:04:05", rdf.XSDNS+"dateTime"), rdf.String("http://x/a"),
		rdf.LangString("chat", "fr"), rdf.IRI("http://x/a"), rdf.Literal("12345678901234567890", rdf.XSDInteger),
		rdf.Blank("b1")}
	for i, o := range data {
		add(rdf.IRI(fmt.Sprintf("http://x/s%d", i)), rdf.IRI("http://x/p"), o)
	}
	d := b.Build()
	ts := newTerms(d.Dict)
	for _, o := range data {
		id := d.Dict.Lookup(o)
		for _, x := range []rdf.Term{o, rdf.String(o.Value), rdf.Literal(o.Value, rdf.XSDNS+"dateTime"),
			rdf.LangString(o.Value, "fr"), rdf.LangString(o.Value, "en"), rdf.IRI(o.Value), rdf.Literal(o.Value, rdf.XSDInteger), rdf.Blank(o.Value)} {
			ts.term(id) // the term read last
			got := ts.id(x)
			ts.lastID, ts.lastTerm = 0, rdf.Term{}
			want := ts.id(x) // the general path: the dictionary, else the overlay id got was given
			if got != want {
				t.Fatalf("%v just after reading %v (id %d): id %d, want %d", x, o, id, got, want)
			}
		}
	}
}

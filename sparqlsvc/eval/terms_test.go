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

package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// starBitsData is 2 500 subjects whose ex:f0, ex:f2 and ex:f3 have at most one row each (often none), with keys
// ex:k (none, one or two per subject) of several kinds, ex:m2 with two rows for some subjects, and subjects of the
// OPTIONALs' predicates alone.
func starBitsData(t *testing.T) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(211, 212))
	b, add := builderAdding(t)
	keys := []rdf.Term{ex("site", 1), ex("site", 2), rdf.LangString("Straße", "de-CH"), rdf.LangString("street", "EN-gb"),
		rdf.Literal("2", rdf.XSDInteger), rdf.Literal("2.0", rdf.XSDDecimal), rdf.String("naïve"), rdf.Blank("site3")}
	values := []rdf.Term{intLit(1), intLit(3), rdf.Literal("2.5", rdf.XSDDecimal), rdf.Literal("NaN", rdf.XSDDouble),
		rdf.Literal("-0", rdf.XSDDouble), rdf.String("x"), rdf.LangString("y", "en"), rdf.Literal("123456789012345678901234567890", rdf.XSDDecimal)}
	for i := range 2500 {
		s := ex("s", i)
		if r.IntN(5) > 0 {
			add(s, ex("f", 0), ex("product", r.IntN(40)))
		}
		for range r.IntN(3) {
			add(s, ex("k", 0), keys[r.IntN(len(keys))])
		}
		if r.IntN(3) > 0 {
			add(s, ex("f", 2), values[r.IntN(len(values))])
		}
		if r.IntN(2) > 0 {
			add(s, ex("f", 3), values[r.IntN(len(values))])
		}
		if i%5 == 0 {
			for range 1 + r.IntN(2) {
				add(s, ex("m", 2), intLit(r.IntN(9)))
			}
		}
		if i%9 == 0 {
			add(ex("t", i), ex("f", 2), intLit(9))
			add(ex("t", i), ex("k", 0), keys[0])
		}
	}
	return FromIndex(b.Build())
}

// TestStarBitsMatchReference: a GROUP BY over a star whose only read pattern is one mandatory pattern's object,
// counted from bitmaps of the other patterns' subjects (starBits), gives what refGroup gives from every solution
// of the join: keys of every kind (IRIs, tagged and plain strings, 2 and 2.0, a blank node), subjects with none,
// one or two keys, COUNT(*), COUNT of OPTIONAL objects (unbound for some subjects) and of the subject and a
// mandatory object, COUNT(DISTINCT ?k), arithmetic over the counts, HAVING, one and two OPTIONALs, an OPTIONAL of
// two patterns, a FILTER inside an OPTIONAL (errors on strings, NaN) or on a mandatory object, and no key. Stars it
// must leave to optStarRows (a pattern with two rows for a subject, a filter on the read pattern, a read OPTIONAL
// object, an aggregate other than COUNT, the subject as key) give the same answer there.
func TestStarBitsMatchReference(t *testing.T) {
	ds := starBitsData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	counts := `(COUNT(*) AS ?n) (COUNT(?c) AS ?nc) (COUNT(*) - COUNT(?c) AS ?without) (COUNT(?d) AS ?nd) (COUNT(?s) AS ?ns) (COUNT(?a) AS ?na)`
	for _, c := range []struct {
		sel, where, tail string
		taken            bool
	}{
		{`?k ` + counts, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c } OPTIONAL { ?s ex:f3 ?d } }`, `GROUP BY ?k`, true},
		{`?k (COUNT(*) AS ?n) (COUNT(?c) AS ?nc)`, `{ ?s ex:k0 ?k OPTIONAL { ?s ex:f2 ?c } }`, `GROUP BY ?k ORDER BY ?k`, true},
		{`?k ` + counts, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c ; ex:f3 ?d } }`, `GROUP BY ?k`, true},
		{`?k ` + counts, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c FILTER(?c > 2) } OPTIONAL { ?s ex:f3 ?d FILTER(?d != 1) } }`, `GROUP BY ?k`, true},
		{`?k ` + counts, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c } OPTIONAL { ?s ex:f3 ?d } FILTER(?a != ex:product3) }`, `GROUP BY ?k`, true},
		{`(STR(?k) AS ?sk) (COUNT(*) AS ?n) (COUNT(?c) AS ?nc)`, `{ ?s ex:k0 ?k OPTIONAL { ?s ex:f2 ?c } }`, `GROUP BY ?k HAVING(COUNT(?c) > 40)`, true},
		{`(COUNT(DISTINCT ?k) AS ?dk) (COUNT(*) AS ?n) (COUNT(?c) AS ?nc)`, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c } }`, ``, true},
		{`?k (COUNT(*) AS ?n) (COUNT(?c) AS ?nc)`, `{ ?s ex:k0 ?k ; ex:none ?a OPTIONAL { ?s ex:f2 ?c } }`, `GROUP BY ?k`, false},
		// Left to optStarRows.
		{`?k (COUNT(*) AS ?n) (COUNT(?c) AS ?nc)`, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:m2 ?c } }`, `GROUP BY ?k`, false},
		{`?k (COUNT(*) AS ?n) (COUNT(?c) AS ?nc)`, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c } FILTER(?k != ex:site1) }`, `GROUP BY ?k`, false},
		{`?k (COUNT(*) AS ?n) (COUNT(DISTINCT ?c) AS ?nc)`, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c } }`, `GROUP BY ?k`, false},
		{`?k (COUNT(*) AS ?n) (SUM(?c) AS ?sc)`, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c } }`, `GROUP BY ?k`, false},
		{`?s (COUNT(*) AS ?n) (COUNT(?c) AS ?nc)`, `{ ?s ex:k0 ?k ; ex:f0 ?a OPTIONAL { ?s ex:f2 ?c } }`, `GROUP BY ?s`, false},
	} {
		src := pre + `SELECT ` + c.sel + ` WHERE ` + c.where + ` ` + c.tail
		got, _ := runGroup(t, ds, src, false)
		want, _ := runGroup(t, ds, src, true)
		if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(want)) {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
		if taken := starBitsTaken(t, ds, src); taken != c.taken {
			t.Errorf("%s: counted from bitmaps %v, want %v", src, taken, c.taken)
		}
	}
	// The data must make the OPTIONAL matter for some keys and not others.
	got, _ := runGroup(t, ds, pre+`SELECT ?k (COUNT(*) - COUNT(?c) AS ?without) WHERE { ?s ex:k0 ?k OPTIONAL { ?s ex:f2 ?c } } GROUP BY ?k`, false)
	if len(got) < 6 {
		t.Errorf("%d groups: the data does not tell the keys apart", len(got))
	}
}

// starBitsTaken reports whether evaluating src counted a star from bitmaps (starBits).
func starBitsTaken(t *testing.T, ds *Dataset, src string) bool {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), ds, q, Options{})
	var out []string
	e.group(firstOp[*algebra.Group](q.Op), e.newRow(), e.collectRows(&out), &err)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return e.bitStars > 0
}

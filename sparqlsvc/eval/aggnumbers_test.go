package eval

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestMinMaxOfExpressionsMatchesReference checks MIN and MAX over STRLEN and over arithmetic, and SUM and AVG of
// STRLEN (aggnumbers.go),
// against refGroup: titles of every kind (non-ASCII, tagged, empty, numbers and IRIs, which make STRLEN an error,
// unbound), products and differences of numbers held in ids mixed with ones that are not (huge, doubles, ill-typed),
// so a group's best moves between an id and a term; groups with no value at all, and no group.
func TestMinMaxOfExpressionsMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	// NaN is in since session 21: ORDER BY's order, which MIN and MAX use, is total (NaN after every number), so
	// the extremes no longer depend on the order the star readers and the reference meet the solutions in.
	vals := aggregateValues()
	b, add := builderAdding(t)
	titles := append([]rdf.Term{rdf.String("naïve café"), rdf.LangString("日本語のタイトル", "ja"),
		rdf.String("a somewhat longer title of a review"), rdf.LangString("Übergrößenträger", "de-AT")}, vals...)
	for i := range 600 {
		s := ex("s", i)
		k := r.IntN(7)
		add(s, ex("k", 0), ex("key", k))
		if k == 6 { // a group where every title and number is missing
			continue
		}
		for range r.IntN(3) {
			pool := titles
			if k < 2 {
				pool = titles[:4] // only strings: the group's value never needs a term
			}
			add(s, ex("t", 0), pool[r.IntN(len(pool))])
		}
		if k < 4 || r.IntN(3) > 0 {
			add(s, ex("a", 0), rdf.Literal(fmt.Sprint(r.IntN(21)-10), rdf.XSDInteger))
		}
		if k < 3 {
			add(s, ex("b", 0), rdf.Literal(fmt.Sprintf("%d.%02d", r.IntN(9), r.IntN(100)), rdf.XSDDecimal))
		} else {
			add(s, ex("b", 0), vals[r.IntN(15)]) // numbers of every type, and one ill-typed
		}
	}
	ds := FromIndex(b.Build())
	aggs := `(MAX(STRLEN(?t)) AS ?lt) (MIN(STRLEN(?t)) AS ?st) (MAX(?a * ?b) AS ?mp) (MIN(?a - ?b) AS ?md) ` +
		`(MIN(?a * 2) AS ?m2) (MAX(-?a) AS ?na) (MAX(STRLEN(?t) + ?a) AS ?la) (COUNT(*) AS ?n) ` +
		`(SUM(STRLEN(?t)) AS ?sl) (AVG(STRLEN(?t)) AS ?al)`
	where := `{ ?s <http://ex.org/k0> ?k OPTIONAL { ?s <http://ex.org/t0> ?t } OPTIONAL { ?s <http://ex.org/a0> ?a } ` +
		`OPTIONAL { ?s <http://ex.org/b0> ?b } }`
	matchReference(t, ds,
		`SELECT ?k `+aggs+` `+where+` GROUP BY ?k`,
		`SELECT `+aggs+` `+where,
		`SELECT ?k `+aggs+` { ?s <http://ex.org/k0> ?k ; <http://ex.org/t0> ?t ; <http://ex.org/a0> ?a ; <http://ex.org/b0> ?b } GROUP BY ?k`,
		`SELECT `+aggs+` { ?s <http://ex.org/none> ?t }`,
	)
}

package eval

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// ratioData is products with a numeric property a (always), b (OPTIONAL: missing for a third of them) and c, over
// producers of two countries: integers and decimals held in ids (negative, zero, the ids' limits ±2^27 and
// products of operands past 2^52), decimals and integers too long for an id, doubles (NaN, ±INF, −0), strings with
// and without a language tag, non-ASCII text, IRIs and blank nodes; some products have two values of b, half of
// them two tags.
func ratioData(t *testing.T) *Dataset {
	r := rand.New(rand.NewPCG(20, 141))
	b := index.NewBuilder()
	ga := graphAdder(t, b)
	add := func(s, p, o rdf.Term) { ga("", s, p, o) }
	num := func() rdf.Term {
		switch r.IntN(16) {
		case 0, 1, 2, 3, 4:
			return intLit(r.IntN(41) - 10)
		case 5, 6:
			return rdf.Literal(fmt.Sprintf("%d.%03d", r.IntN(200)-100, r.IntN(1000)), rdf.XSDDecimal)
		case 7:
			return rdf.Literal(fmt.Sprintf("%d.%d", r.IntN(20), r.IntN(10)), rdf.XSDDecimal)
		case 8: // at and past the ids' limits; operands whose product passes 2^52
			return rdf.Literal([]string{"134217727", "-134217728", "134217728", "100000000", "-99999999",
				"1.5", "0", "0.000", "-0.0"}[r.IntN(9)], rdf.XSDInteger)
		case 9:
			return rdf.Literal([]string{"12345678901234567890.5", "0.0000000000000000001", "3.0000000000000000001",
				"99999999.999", "-134217.727", "2.5"}[r.IntN(6)], rdf.XSDDecimal)
		case 10:
			return rdf.Literal([]string{"NaN", "INF", "-INF", "-0", "0", "3e0", "1.5E0"}[r.IntN(7)], rdf.XSDDouble)
		case 11:
			return []rdf.Term{rdf.String("7"), rdf.LangString("drei", "de"), rdf.String("größer"), exIRI("v"),
				rdf.Blank("n1"), rdf.Literal("3", rdf.XSDNS+"int")}[r.IntN(6)]
		}
		return intLit(r.IntN(2001) - 1000)
	}
	for g := range 6 {
		country := "US"
		if g%3 == 2 {
			country = "DE"
		}
		add(exIRI("g%d", g), exIRI("country"), exIRI("%s", country))
	}
	for p := range 2400 {
		prod := exIRI("p%d", p)
		add(prod, exIRI("grp"), exIRI("g%d", p%6))
		for k := range 1 + p%2 {
			add(prod, exIRI("tag"), exIRI("t%d", k))
		}
		add(prod, exIRI("a"), num())
		add(prod, exIRI("c"), num())
		if p%3 != 0 {
			add(prod, exIRI("b"), num())
			if p%17 == 0 {
				add(prod, exIRI("b"), num())
			}
		}
	}
	return FromIndex(b.Build())
}

// TestRatioAndChoiceKeysMatchPlain holds ratio sites (ratiocmp.go: a quotient compared from its operands' ids,
// an unbound operand's error) and choice keys (groupkeyid.go: IF and COALESCE keys evaluated to ids) to the same
// queries evaluated on terms (noValues, plainKeys, noMemo): h141's shape (IF over a division by an OPTIONAL value,
// grouped through a BIND), its variants (another property, COALESCE, SUM, the other country, the quotient on the
// right, every operator, constants as divisors), FILTERs and BINDs of quotients, and keys choosing variables.
func TestRatioAndChoiceKeysMatchPlain(t *testing.T) {
	ds := ratioData(t)
	const star = `?p :a ?a ; :grp ?g . ?g :country :US . OPTIONAL { ?p :b ?b } `
	queries := []string{
		// h141's shape and its variants
		`SELECT ?class (COUNT(?p) AS ?n) (SAMPLE(?a) AS ?s) { ` + star +
			`BIND(IF(?a / ?b > 1, "above", "below") AS ?class) } GROUP BY ?class`,
		`SELECT ?class (COUNT(?p) AS ?n) (SUM(?c) AS ?sum) { ?p :c ?c ; :grp ?g . ?g :country :DE . OPTIONAL { ?p :b ?b } ` +
			`BIND(IF(?c / ?b <= 0.5, "low", "high") AS ?class) } GROUP BY ?class`,
		`SELECT ?class (COUNT(*) AS ?n) { ` + star +
			`BIND(COALESCE(IF(2 >= ?a / ?b, "x", "y"), "none") AS ?class) } GROUP BY ?class`,
		`SELECT ?class (COUNT(*) AS ?n) (MAX(?a) AS ?hi) { ` + star +
			`BIND(IF(?a / ?b = ?a / ?b, "same", "other") AS ?class) } GROUP BY ?class`,
		`SELECT ?k (COUNT(*) AS ?n) { ` + star + `} GROUP BY (IF(?a / 3 != 1, ?a, ?b) AS ?k)`,
		`SELECT ?k (COUNT(*) AS ?n) { ` + star + `} GROUP BY (COALESCE(?b, ?a) AS ?k)`,
		`SELECT ?k (COUNT(*) AS ?n) { ` + star + `} GROUP BY (COALESCE(?b / ?a, "none", ?a) AS ?k)`,
		`SELECT ?k ?g (COUNT(*) AS ?n) { ` + star + `} GROUP BY ?g (IF(BOUND(?b), "1.50", 1.50) AS ?k)`,
		`SELECT ?k (COUNT(*) AS ?n) { ` + star + `} GROUP BY (IF(?a / ?b < -0.25, "neg", IF(?a / ?b >= 1.5, ?c, "mid")) AS ?k)`,
		`SELECT ?k (COUNT(*) AS ?n) { ?p :a ?a OPTIONAL { ?p :b ?b } } GROUP BY (IF(?b / 100000000 > ?a, "big", "small") AS ?k)`,
		`SELECT ?k (COUNT(*) AS ?n) { ?p :a ?a OPTIONAL { ?p :b ?b } } GROUP BY (IF(134217727 / ?b < ?a, "t", "f") AS ?k)`,
		// FILTERs and BINDs of quotients
		`SELECT ?p { ?p :a ?a ; :b ?b ; :c ?c FILTER(?a / ?b < ?c) }`,
		`SELECT ?p { ?p :a ?a ; :b ?b FILTER(2 > ?a / ?b) }`,
		`SELECT ?p { ?p :a ?a ; :c ?c FILTER(?a / 3 = ?c) }`,
		`SELECT ?p { ?p :a ?a ; :b ?b FILTER(?a / ?b != 1.5) }`,
		`SELECT ?p { ?p :a ?a ; :c ?c OPTIONAL { ?p :b ?b } FILTER(?c <= ?a / ?b || !BOUND(?b)) }`,
		`SELECT ?p { ?p :a ?a ; :c ?c OPTIONAL { ?p :b ?b } FILTER(!(?a / ?b >= ?c)) }`,
		`SELECT ?p ?x { ?p :a ?a ; :c ?c OPTIONAL { ?p :b ?b } BIND(?a / ?b > ?c AS ?x) }`,
		`SELECT ?p ?x { ?p :a ?a OPTIONAL { ?p :b ?b } BIND(IF(?a / ?b > 1, "above", "below") AS ?x) }`,
	}
	for _, q := range queries {
		src := "PREFIX : <http://ex.org/>\n" + q
		want, _, err := runSortedEval(ds, src, Options{}, true)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		got, _, err := runSortedEval(ds, src, Options{}, false)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want {
			t.Errorf("%s\n fast  %q\n plain %q", q, got, want)
		}
		if strings.Count(want, "\n") < 1 {
			t.Errorf("%s: %d rows, want 2 or more", q, strings.Count(want, "\n")+1)
		}
	}
}

// TestRatioSign checks ratioSign against exact rational arithmetic on the edges: the ids' limits, scales 0–3,
// negative divisors, equal quotients, and cross products past 2^52.
func TestRatioSign(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	edge := []int64{0, 1, -1, 2, 3, 7, 10, 100, 999, 1000, 1 << 26, 1<<27 - 1, -(1 << 27), 100000000, -99999999}
	pick := func() int64 {
		if r.IntN(3) == 0 {
			return edge[r.IntN(len(edge))]
		}
		return r.Int64N(1<<28) - 1<<27
	}
	for range 200000 {
		a, b, c := pick(), pick(), pick()
		if b == 0 {
			continue
		}
		sa, sb, sc := r.IntN(4), r.IntN(4), r.IntN(4)
		// a/10^sa / (b/10^sb) − c/10^sc has the sign of (a·10^sb·10^sc − c·b·10^sa) · sign(b), in 128 bits.
		want := bigSign(a, pow10[sb+sc], c*b, pow10[sa])
		if b < 0 {
			want = -want
		}
		if got := ratioSign(a, sa, b, sb, c, sc); got != want {
			t.Fatalf("ratioSign(%d, %d, %d, %d, %d, %d) = %d, want %d", a, sa, b, sb, c, sc, got, want)
		}
	}
}

// bigSign is the sign of x·m − y·n, exactly.
func bigSign(x, m, y, n int64) int {
	l := new(big.Int).Mul(big.NewInt(x), big.NewInt(m))
	return l.Cmp(new(big.Int).Mul(big.NewInt(y), big.NewInt(n)))
}

// TestSolutionCacheDirectMatchesReference: groups over a star read per subject whose solutions all differ (h141's
// shape through groupHop's sink, a star with an OPTIONAL through groupOptStars) pass the one-entry solution cache's
// sample (cacheSample) and are handed on as they come; the groups must be refGroup's from every solution of the
// join, with the solutions an unread pattern multiplies (two tags) counted as often.
func TestSolutionCacheDirectMatchesReference(t *testing.T) {
	ds := ratioData(t)
	for _, q := range []string{
		`SELECT ?class (COUNT(*) AS ?n) (SUM(?a) AS ?s) (MIN(?g) AS ?x) { ?p :a ?a ; :grp ?g ; :tag ?t . ?g :country :US .
			OPTIONAL { ?p :b ?b } BIND(IF(?a / ?b > 1, "above", "below") AS ?class) } GROUP BY ?class`,
		`SELECT ?k (COUNT(*) AS ?n) (AVG(?a) AS ?m) (MAX(?c) AS ?hi) { ?p :a ?a ; :c ?c ; :tag ?t OPTIONAL { ?p :b ?b } }
			GROUP BY (COALESCE(?b, "none") AS ?k)`,
	} {
		src := "PREFIX : <http://ex.org/>\n" + q
		got, _ := runGroup(t, ds, src, false)
		want, _ := runGroup(t, ds, src, true)
		slices.Sort(got)
		slices.Sort(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) < 2 {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
}

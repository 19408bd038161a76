package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestGroupOptStarsMatchReference: GROUP BY over a star with OPTIONAL stars on its subject, read per subject
// (groupOptStars), gives what refGroup gives from every solution of the join: subjects without a mandatory
// pattern's rows, with none, one or several rows of an OPTIONAL's patterns (several rows multiply; an OPTIONAL star
// of two patterns is absent when either has none), repeated values, keys that are a mandatory object, an
// OPTIONAL's object (unbound for some subjects), the subject, or none, COUNT(*), COUNT of an object (whether bound),
// DISTINCT, SUM, AVG, MIN and MAX, filters on a mandatory object, inside an OPTIONAL, and over the OPTIONALs on
// their variables (!BOUND, tested per solution); and the forms it must leave to the join (an OPTIONAL on another
// subject, a filter inside an OPTIONAL reading the mandatory side, a shared variable, an EXISTS) give the same
// answer there.
func TestGroupOptStarsMatchReference(t *testing.T) {
	ds := optStarData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	counted := `(COUNT(*) AS ?n) (COUNT(?c) AS ?nc) (COUNT(?d) AS ?nd) (COUNT(?a) AS ?na) (COUNT(?s) AS ?ns)`
	valued := `(COUNT(DISTINCT ?c) AS ?dc) (SUM(?c) AS ?sc) (AVG(?d) AS ?ad) (MIN(?c) AS ?lo) (MAX(?d) AS ?hi) (COUNT(*) AS ?n)`
	for _, c := range []struct {
		where, keys string
		handled     bool
	}{
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } }`, `?k`, true},
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } OPTIONAL { ?s ex:p3 ?d } }`, `?k`, true},
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c ; ex:p3 ?d } }`, `?k ?a`, true},
		{`{ ?s ex:p0 ?a OPTIONAL { ?s ex:p2 ?c } OPTIONAL { ?s ex:p3 ?d } }`, `?c`, true},
		{`{ ?s ex:p0 ?a OPTIONAL { ?s ex:p2 ?c } OPTIONAL { ?s ex:p3 ?d } }`, ``, true},
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } }`, `?s`, true},
		{`{ ?s ex:p1 ?k OPTIONAL { ?s ex:p2 ?c FILTER(?c > 2) } OPTIONAL { ?s ex:p3 ?d } }`, `?k`, true},
		{`{ ?s ex:p1 ?k ; ex:p0 ?a OPTIONAL { ?s ex:p2 ?c ; ex:p3 ?d FILTER(?c != 1 && ?d < 2) } FILTER(?k != ex:site2) }`, `?k`, true},
		{`{ ?s ex:p1 ?k OPTIONAL { ?s ex:p4 ?c } OPTIONAL { ?s ex:p2 ?d } }`, `?k`, true},
		{`{ ?s ex:p1 ?k OPTIONAL { ?s ex:none ?c } OPTIONAL { ?s ex:p2 ?d } }`, `?k`, true},
		{`{ ?s ex:none ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } }`, `?k`, true},
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?a ex:p2 ?c } }`, `?k`, false},
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } FILTER(!BOUND(?c)) }`, `?k`, true},
		{`{ ?s ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } OPTIONAL { ?s ex:p3 ?d } FILTER(!BOUND(?c) || ?c > 2) FILTER(?k != ex:site1) }`, `?k`, true},
		{`{ ?s ex:p1 ?k ; ex:p0 ?a OPTIONAL { ?s ex:p2 ?c ; ex:p3 ?d } FILTER(BOUND(?c) || !BOUND(?d) && ?a != ex:product3) }`, `?a`, true},
		{`{ ?s ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } FILTER(STRLEN(STR(?s)) > 20) }`, ``, true},
		{`{ ?s ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } FILTER NOT EXISTS { ?s ex:p4 ?w } }`, `?k`, false},
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c FILTER(?c > ?k) } }`, `?k`, false},
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?k } }`, `?k`, false},
		// A star without OPTIONALs is taken when its aggregates merge (optStarSplit): COUNTs, not DISTINCT or MIN.
		{`{ ?s ex:p0 ?a ; ex:p1 ?k }`, `?k`, true},
	} {
		for _, sel := range []string{counted, valued} {
			src := pre + `SELECT ` + sel + ` WHERE ` + c.where
			if c.keys != "" {
				src = pre + `SELECT ` + c.keys + ` ` + sel + ` WHERE ` + c.where + ` GROUP BY ` + c.keys
			}
			handled := c.handled && (sel == counted || strings.Contains(c.where, "OPTIONAL"))
			checkGroupPath(t, ds, src, (*evaluator).groupOptStars, handled)
		}
	}
	// The data must make the OPTIONAL matter: a few sanity checks.
	for _, c := range []struct{ a, b string }{
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } }`, `{ ?s ex:p0 ?a ; ex:p1 ?k }`},
		{`{ ?s ex:p0 ?a ; ex:p1 ?k OPTIONAL { ?s ex:p2 ?c } }`, `{ ?s ex:p0 ?a ; ex:p1 ?k ; ex:p2 ?c }`},
	} {
		ga, _ := runGroup(t, ds, pre+`SELECT ?k (COUNT(*) AS ?n) WHERE `+c.a+` GROUP BY ?k`, true)
		gb, _ := runGroup(t, ds, pre+`SELECT ?k (COUNT(*) AS ?n) WHERE `+c.b+` GROUP BY ?k`, true)
		if strings.Join(ga, "") == strings.Join(gb, "") {
			t.Errorf("%s and %s count the same (%q): the data does not tell them apart", c.a, c.b, ga)
		}
	}
}

// checkGroupPath checks that src's answer is refGroup's (groups in any order) and that path takes its first GROUP
// BY when handled says it must, and leaves it otherwise.
func checkGroupPath(t *testing.T, ds *Dataset, src string, path func(*evaluator, *algebra.Group, []ID, *groupState, *error) (bool, bool), handled bool) {
	t.Helper()
	got, _ := runGroup(t, ds, src, false)
	want, _ := runGroup(t, ds, src, true)
	slices.Sort(got) // groups come in the order their first solution came
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", src, got, want)
	}
	if took := groupPathTakes(t, ds, src, path); took != handled {
		t.Errorf("%s: handled %v, want %v", src, took, handled)
	}
}

// groupPathTakes reports whether path (groupStars, groupOptStars …) takes the first GROUP BY of src; an error
// fails the test.
func groupPathTakes(t *testing.T, ds *Dataset, src string, path func(*evaluator, *algebra.Group, []ID, *groupState, *error) (bool, bool)) bool {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(context.Background(), ds, q, Options{})
	x := firstOp[*algebra.Group](q.Op)
	handled, _ := path(e, x, e.newRow(), e.newGroupState(x), &err)
	if err != nil {
		t.Errorf("%s: %v", src, err)
	}
	return handled
}

// optStarData is 3 000 subjects with none, one or several rows of ex:p0 … ex:p5 each, and subjects of ex:p2 alone.
func optStarData(t *testing.T) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(151, 152))
	b, add := builderAdding(t)
	counts := []int{0, 1, 1, 1, 2, 3} // mostly one row, sometimes none or several
	r5 := rand.New(rand.NewPCG(153, 154))
	titles := []rdf.Term{rdf.String("naïve café"), rdf.LangString("日本語のタイトル", "ja"), rdf.String(""), rdf.String("abc"),
		rdf.LangString("Übergröße", "de-AT"), rdf.Literal("12", rdf.XSDInteger), rdf.IRI("http://ex.org/é")}
	for i := range 3000 {
		s := ex("s", i)
		for range counts[r.IntN(len(counts))] {
			add(s, ex("p", 0), ex("product", r.IntN(50)))
		}
		for range counts[r.IntN(len(counts))] {
			add(s, ex("p", 1), ex("site", r.IntN(6)))
		}
		for range r.IntN(3) { // OPTIONAL: missing for a third of the subjects
			add(s, ex("p", 2), rdf.Literal(fmt.Sprint(r.IntN(6)), rdf.XSDInteger))
		}
		for range r.IntN(3) {
			add(s, ex("p", 3), rdf.Literal(fmt.Sprintf("%d.5", r.IntN(4)), rdf.XSDDecimal))
		}
		if r.IntN(4) == 0 {
			add(s, ex("p", 4), rdf.String(fmt.Sprint("w", r.IntN(3))))
		}
		// Titles for STRLEN (non-ASCII, tagged, empty, and terms STRLEN refuses), from a generator of their own so
		// that the other predicates' data stays as it was.
		for range counts[r5.IntN(len(counts))] {
			add(s, ex("p", 5), titles[r5.IntN(len(titles))])
		}
		if i%7 == 0 { // subjects of the OPTIONAL's predicates alone
			add(ex("t", i), ex("p", 2), rdf.Literal("9", rdf.XSDInteger))
		}
	}
	return FromIndex(b.Build())
}

// TestGroupPlainStarsMatchReference: a GROUP BY over a star without OPTIONALs, read per subject and grouped on two
// goroutines (optStarSplit, every probe timed as long), gives what refGroup gives from every solution of the join:
// keys that are an object, two objects, the subject or none, subjects with none or several rows of a pattern, a
// FILTER narrowing one pattern, COUNT, SUM, AVG, SAMPLE, MIN and MAX of a variable (session 21d) and of STRLEN. The split must happen and its
// groups merge. Stars whose aggregates do not merge (MIN or MAX of expressions other than STRLEN, DISTINCT) or whose
// key is an expression are left to the join (on the old code every star without an OPTIONAL was).
func TestGroupPlainStarsMatchReference(t *testing.T) {
	ds := optStarData(t)
	const pre = `PREFIX ex: <http://ex.org/> `
	for _, c := range []struct {
		src   string
		taken bool
	}{
		{`SELECT ?k (COUNT(*) AS ?n) (COUNT(?a) AS ?na) (SAMPLE(?a) AS ?sa) { ?s ex:p0 ?a ; ex:p1 ?k } GROUP BY ?k`, true},
		{`SELECT ?k ?a (COUNT(*) AS ?n) (SUM(?c) AS ?sc) (AVG(?d) AS ?ad) { ?s ex:p0 ?a ; ex:p1 ?k ; ex:p2 ?c ; ex:p3 ?d } GROUP BY ?k ?a`, true},
		{`SELECT ?a (COUNT(*) AS ?n) (AVG(?c) AS ?ac) (SAMPLE(?k) AS ?sk) { ?s ex:p0 ?a ; ex:p1 ?k ; ex:p2 ?c FILTER(?c > 1) } GROUP BY ?a`, true},
		{`SELECT ?s (COUNT(*) AS ?n) { ?s ex:p0 ?a ; ex:p1 ?k } GROUP BY ?s`, true},
		{`SELECT (COUNT(*) AS ?n) (SUM(?d) AS ?sd) { ?s ex:p1 ?k ; ex:p3 ?d }`, true},
		// MIN and MAX of a variable: merged where both halves met numbers held in ids, else the half grouped again.
		{`SELECT ?k (MIN(?c) AS ?m) (MAX(?c) AS ?x) { ?s ex:p1 ?k ; ex:p2 ?c } GROUP BY ?k`, true},
		// MIN and MAX of STRLEN: integers or errors, in any order the same extreme (minMaxValueID).
		{`SELECT ?k (MAX(STRLEN(?t)) AS ?lt) (MIN(STRLEN(?t)) AS ?st) (SUM(?c * ?c) AS ?sc) (AVG(?c - 1) AS ?ac) (COUNT(*) AS ?n) (AVG(STRLEN(?t)) AS ?al) ` +
			`{ ?s ex:p1 ?k ; ex:p5 ?t ; ex:p2 ?c } GROUP BY ?k`, true},
		{`SELECT (MAX(STRLEN(?t)) AS ?lt) (MIN(STRLEN(?t)) AS ?st) { ?s ex:p0 ?a ; ex:p5 ?t }`, true},
		{`SELECT ?k (MIN(STRLEN(STR(?t))) AS ?st) { ?s ex:p1 ?k ; ex:p5 ?t } GROUP BY ?k`, false},
		{`SELECT ?k (MAX(?c * 2) AS ?m) { ?s ex:p1 ?k ; ex:p2 ?c } GROUP BY ?k`, false},
		{`SELECT ?k (COUNT(DISTINCT ?c) AS ?m) { ?s ex:p1 ?k ; ex:p2 ?c } GROUP BY ?k`, false},
		{`SELECT ?v (COUNT(*) AS ?n) { ?s ex:p1 ?k ; ex:p2 ?c } GROUP BY (STR(?c) AS ?v)`, false},
	} {
		src := pre + c.src
		got, cores := runGroupPool(t, ds, src, NewCores(2))
		want, _ := runGroup(t, ds, src, true)
		if len(want) == 0 {
			t.Fatalf("%s: no groups: the data does not test it", src)
		}
		slices.Sort(got) // groups come in the order their first solution came
		slices.Sort(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", src, got, want)
		}
		if took := groupPathTakes(t, ds, src, (*evaluator).groupOptStars); took != c.taken {
			t.Errorf("%s: taken %v, want %v", src, took, c.taken)
		}
		if forks, _, _ := cores.Splits(); c.taken && (forks == 0 || cores.Chunks() == 0) {
			t.Errorf("%s: %d splits, %d merged: the star's subjects were not split", src, forks, cores.Chunks())
		}
	}
}

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
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// hierarchyDates builds a random class hierarchy (0–2 parents per class: cycles, self-loops, diamonds), labels on
// the classes (plain, with language tags, two or none), a few items of one to three of its classes and many items of
// classes without a parent (BSBM's offers beside its products), each with zero to two dc:dates of every form: dates
// held in their ids, forms that are no dates (30 February), dates with timezones, dateTimes, strings. Each triple is
// also copied into one of two named graphs, so a pattern in GRAPH ?g or over FROM meets parts of the hierarchy.
func hierarchyDates(t *testing.T, seed uint64) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 81))
	sub, typ := rdf.IRI("http://ex.org/sub"), rdf.IRI("http://ex.org/type")
	label, date := rdf.IRI("http://ex.org/label"), rdf.IRI("http://ex.org/date")
	b, add := builderAddingCopies(t, r)
	xsd := rdf.XSDNS
	dateOf := func() rdf.Term {
		day := fmt.Sprintf("%04d-%02d-%02d", 2004+r.IntN(4), 1+r.IntN(3), 1+r.IntN(31))
		switch r.IntN(9) {
		case 0:
			return rdf.Literal(day+[]string{"Z", "+05:00", "-14:00"}[r.IntN(3)], xsd+"date")
		case 1:
			return rdf.Literal(day+"T10:30:00", xsd+"dateTime")
		case 2:
			return rdf.String(day)
		case 3:
			return rdf.Literal("0000-01-01", xsd+"date")
		}
		return rdf.Literal(day, xsd+"date") // held in its id; 30 and 31 February are no dates
	}
	classes := 4 + r.IntN(16)
	for c := range classes {
		for range r.IntN(3) {
			add(ex("c", c), sub, ex("c", r.IntN(classes)))
		}
		for range r.IntN(3) {
			words := []string{"apple", "axe", "Arc", "bee", "cat", "a"}
			l := rdf.String(words[r.IntN(len(words))])
			if r.IntN(3) == 0 {
				l = rdf.LangString(l.Value, []string{"en", "de"}[r.IntN(2)])
			}
			add(ex("c", c), label, l)
		}
	}
	for c := range 3 { // classes without a parent, some labelled: `*` reaches them by a zero-length step
		if r.IntN(2) == 0 {
			add(ex("flat", c), label, rdf.String([]string{"apple", "bee"}[r.IntN(2)]))
		}
	}
	item := func(i int, kind string, class func() rdf.Term) {
		for range 1 + r.IntN(3) {
			add(ex(kind, i), typ, class())
		}
		if r.IntN(16) == 0 { // a labelled node that is no class: `*` matches it by a zero-length step
			add(ex(kind, i), label, rdf.String([]string{"axe", "cat"}[r.IntN(2)]))
		}
		for range r.IntN(3) {
			add(ex(kind, i), date, dateOf())
		}
	}
	for i := range 20 + r.IntN(30) {
		item(i, "p", func() rdf.Term { return ex("c", r.IntN(classes)) })
	}
	for i := range 400 + r.IntN(200) {
		item(i, "o", func() rdf.Term { return ex("flat", r.IntN(3)) })
	}
	return FromIndex(b.Build())
}

// runJoins evaluates src whole, as written (plain) or not, and returns its solutions sorted, the steps taken,
// whether a join started from its path's domain and whether one started from its path's far end (farFirst).
func runJoins(t *testing.T, ds *Dataset, src string, plain bool) ([]string, int, bool, bool) {
	t.Helper()
	out, e := evalJoins(t, ds, src, plain)
	domain := false
	for _, p := range e.domainPlans {
		domain = domain || p != nil
	}
	far := false
	for _, f := range e.farOrders {
		far = far || f
	}
	return out, e.steps, domain, far
}

// evalJoins evaluates src whole, as written (plain) or not, and returns its solutions sorted and the evaluator,
// whose choices the caller reads.
func evalJoins(t *testing.T, ds *Dataset, src string, plain bool) ([]string, *evaluator) {
	t.Helper()
	return evalJoinsWith(t, ds, src, Options{plainJoins: plain})
}

// evalJoinsWith is evalJoins with the options opt.
func evalJoinsWith(t *testing.T, ds *Dataset, src string, opt Options) ([]string, *evaluator) {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	e := newEvaluator(context.Background(), ds, q, opt)
	var out []string
	vars := firstOp[*algebra.Project](q.Op).Vars
	err = e.run(q.Op, e.newRow(), func(row []ID) bool {
		parts := make([]string, len(vars))
		for i, v := range vars {
			parts[i] = e.t.term(row[e.slot(v)]).String()
		}
		out = append(out, strings.Join(parts, " "))
		return true
	})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	slices.Sort(out)
	return out, e
}

// TestDomainFirstMatchesPlainJoins: joins of a BGP with a path whose start the BGP binds, evaluated from the
// path's first link's domain (domainFirst), with a FILTER's conjuncts moved below the joins (belowJoin), give the
// solutions the joins as written give, on random hierarchies (cycles, several parents, labels with language tags,
// dates of every form): h81's shape, +, a sequence, the path written first, an inverse closure, both ends one
// variable, a FILTER reading both sides. The taken ones must be taken, h81's in fewer steps; a zero-length path, an
// alternative, a constant start and an anchored path are declined. The same in named graphs (GRAPH ?g, FROM).
func TestDomainFirstMatchesPlainJoins(t *testing.T) {
	const pre = `PREFIX : <http://ex.org/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> `
	taken := []string{
		`SELECT ?a ?l (COUNT(DISTINCT ?i) AS ?n) { ?i :date ?d ; :type/:sub+ ?a . ?a :label ?l
			FILTER(?d >= "2006-01-01"^^xsd:date) FILTER(STRSTARTS(?l, "a")) } GROUP BY ?a ?l`,
		`SELECT ?i ?d ?c ?a { ?i :date ?d ; :type ?c . ?c :sub+ ?a FILTER(?d < "2006-02-15"^^xsd:date) }`,
		`SELECT ?i ?a { ?i :type ?c . ?c :sub/:sub+ ?a }`,
		`SELECT ?i ?a ?d { ?c :sub+ ?a . ?i :type ?c ; :date ?d FILTER(?d <= "2007-01-01"^^xsd:date) }`,
		`SELECT ?i ?a { ?i :type ?c . ?a ^:sub+ ?c }`,
		`SELECT ?i ?c { ?i :type ?c . ?c :sub+ ?c }`,
		`SELECT ?i ?a ?l { ?i :type ?c ; :date ?d . ?c :sub+ ?a . ?a :label ?l FILTER(?d != "2005-02-01Z"^^xsd:date && LANG(?l) = "") FILTER(?i != ?a) }`,
	}
	declined := []string{
		`SELECT ?i ?a { ?i :type ?c . ?c :sub* ?a }`,
		`SELECT ?i ?a { ?i :type ?c . ?c (:sub|:label) ?a }`,
		`SELECT ?a { ?i :type <http://ex.org/c1> . <http://ex.org/c1> :sub+ ?a }`,
		`SELECT ?i ?d { ?i :type ?c ; :date ?d . ?c :sub+ <http://ex.org/c1> FILTER(?d > "2005-01-01"^^xsd:date) }`,
	}
	// In named graphs: each graph's own plan, compared with the joins as written; h81's shape must be taken in one
	// of the graphs at least, and so must the union of FROMs.
	graphs := []string{
		`SELECT ?g ?a ?l (COUNT(DISTINCT ?i) AS ?n) { GRAPH ?g { ?i :date ?d ; :type/:sub+ ?a . ?a :label ?l
			FILTER(?d >= "2006-01-01"^^xsd:date) FILTER(STRSTARTS(?l, "a")) } } GROUP BY ?g ?a ?l`,
		`SELECT ?i ?a FROM <http://ex.org/g0> FROM <http://ex.org/g1> { ?i :type ?c . ?c :sub+ ?a }`,
		`SELECT ?i ?a ?g { ?i :type ?c . GRAPH ?g { ?c :sub+ ?a } }`,
	}
	inGraphs := [2]int{}
	for seed := range uint64(8) {
		ds := hierarchyDates(t, seed)
		for gi, src := range graphs {
			src = pre + src
			got, _, domain, _ := runJoins(t, ds, src, false)
			want, _, _, _ := runJoins(t, ds, src, true)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("seed %d: %s:\n got %d %q\nwant %d %q", seed, src, len(got), got, len(want), want)
			}
			if domain && gi < 2 {
				inGraphs[gi]++
			}
		}
		for qi, src := range append(slices.Clone(taken), declined...) {
			src = pre + src
			got, steps, domain, _ := runJoins(t, ds, src, false)
			want, plainSteps, _, _ := runJoins(t, ds, src, true)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("seed %d: %s:\n got %d %q\nwant %d %q", seed, src, len(got), got, len(want), want)
			}
			if domain != (qi < len(taken)) {
				t.Errorf("seed %d: %s: domain first %v", seed, src, domain)
			}
			if qi == 0 && steps >= plainSteps {
				t.Errorf("seed %d: %s: %d steps against %d as written", seed, src, steps, plainSteps)
			}
		}
	}
	if inGraphs[0] == 0 || inGraphs[1] == 0 {
		t.Errorf("domain first taken in named graphs: %v times", inGraphs)
	}
}

// TestInlineDateComparisonsByID: a variable holding an xsd:date in its id against a constant xsd:date compares by
// id (inlineDateCompare) where both are dates without timezones, with the answer the builtin comparison of the
// terms gives; a form that is no date, a constant with a timezone or of another type take the general path. Values
// of the dictionary's date blocks (a zone, a dateTime) keep their own paths, held to the same answers.
func TestInlineDateComparisonsByID(t *testing.T) {
	xsd := rdf.XSDNS
	b, add := builderAdding(t)
	var values []rdf.Term
	for _, lex := range []string{"2006-01-01", "2005-12-31", "2006-01-02", "2006-02-30", "2006-02-28", "0000-01-01",
		"9999-12-31", "2004-02-29", "2005-02-29", "1999-07-15"} {
		values = append(values, rdf.Literal(lex, xsd+"date"))
	}
	values = append(values, rdf.Literal("2006-01-01Z", xsd+"date"), rdf.Literal("2006-01-01T00:00:00", xsd+"dateTime"))
	for i, v := range values {
		add(rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), rdf.IRI("http://ex.org/d"), v)
	}
	ds := FromIndex(b.Build())
	consts := []rdf.Term{rdf.Literal("2006-01-01", xsd+"date"), rdf.Literal("0000-01-01", xsd+"date"),
		rdf.Literal("2005-02-29", xsd+"date"), rdf.Literal("2006-01-01+01:00", xsd+"date"),
		rdf.Literal("2006-01-01T00:00:00", xsd+"dateTime"), rdf.Literal("2004-02-29", xsd+"date")}
	q, err := parser.Parse(`SELECT ?v { ?s <http://ex.org/d> ?v }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byID := 0
	for _, c := range consts {
		kid, constInline := index.InlineID(c)
		for _, op := range []string{"<", "<=", ">", ">=", "=", "!="} {
			for _, flip := range []bool{false, true} {
				e := newEvaluator(context.Background(), ds, q, Options{})
				args := []algebra.Expr{algebra.Var("v"), algebra.Constant{Term: c}}
				if flip {
					args[0], args[1] = args[1], args[0]
				}
				call := &algebra.Call{Func: op, Args: args}
				row := e.newRow()
				for _, v := range values {
					id := e.t.lookup(v)
					row[e.slot("v")] = id
					r, ok := e.siteCompare(call, row)
					_, valid := ds.Dict.DateValue(id)
					_, constValid := ds.Dict.DateValue(kid)
					wantByID := index.IsInlineDate(id) && valid && constInline && index.IsInlineDate(kid) && constValid
					if index.IsInlineDate(id) && ok != wantByID {
						t.Errorf("%s %s %s (flip %v): by id %v, want %v", v, op, c, flip, ok, wantByID)
					}
					if !ok {
						continue
					}
					byID++
					want := refTest(op, v, c)
					if flip {
						want = refTest(op, c, v)
					}
					if r != want {
						t.Errorf("%s %s %s (flip %v): %v, the terms compare %v", v, op, c, flip, r, want)
					}
				}
			}
		}
	}
	if byID == 0 {
		t.Error("no comparison was answered by id")
	}
}

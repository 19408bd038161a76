package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestGroupFieldsMatchReference: a GROUP BY over one pattern whose expressions read the object only through YEAR …
// MINUTES, its rows counted per reading of those fields and handed over later (groupfields.go), gives what refGroup
// gives from every solution in turn, groups in the same order: dateTimes with and without a timezone at offsets up
// to ±14:00, xsd:dates (HOURS of which the column does not answer), strings, numbers and invalid forms among them;
// every aggregate kind (MIN, MAX and GROUP_CONCAT decline the path), SUM and AVG of integers, decimals, doubles
// after integers in one group (the counting must stop there, after adding what it counted), strings and errors;
// unbound variables; FILTERs on the fields, on the object and narrowed by value. On one core and on two (the
// group split taken wherever it may be, each goroutine counting its own tuples). The path must be taken where it may and not elsewhere.
func TestGroupFieldsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	b := index.NewBuilder()
	dt := rdf.XSDNS + "dateTime"
	add := func(s rdf.Term, p int, o rdf.Term) {
		if err := b.Add(rdf.Triple(s, ex("p", p), o)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6000 {
		at := start.Add(time.Duration(r.Int64N(int64(400 * 24 * time.Hour))))
		var o rdf.Term
		switch k := r.IntN(20); {
		case k < 8:
			o = rdf.Literal(at.Format("2006-01-02T15:04:05"), dt)
		case k < 12:
			// Fractions of up to nine digits: those past three are no tuple's (SECONDS' decimal has no id).
			o = rdf.Literal(at.UTC().Format([]string{"2006-01-02T15:04:05.999Z", "2006-01-02T15:04:05.999999999Z"}[r.IntN(2)]), dt)
		case k < 16: // an offset of up to ±14:00, in quarters of an hour
			o = rdf.Literal(at.In(time.FixedZone("", (r.IntN(113)-56)*15*60)).Format("2006-01-02T15:04:05-07:00"), dt)
		case k == 16:
			o = rdf.Literal(at.Format("2006-01-02"), index.XSDDate)
		case k == 17:
			o = rdf.Literal(at.Format("2006-01-02")+"Z", index.XSDDate)
		case k == 18:
			o = []rdf.Term{rdf.String("2008-01-01T10:00:00"), rdf.Literal(fmt.Sprint(r.IntN(30)), rdf.XSDInteger),
				rdf.Literal("2008-02-30T25:00:00", dt), rdf.Literal("x", dt)}[r.IntN(4)]
		default: // p0's only dateTimes with few readings: long tuples of equal values too
			o = rdf.Literal(fmt.Sprintf("2009-05-0%dT0%d:1%d:00Z", 1+r.IntN(3), r.IntN(3), r.IntN(2)), dt)
		}
		add(ex("s", i), 0, o)
		// p1: dateTimes only, with and without a timezone
		add(ex("s", i), 1, rdf.Literal(at.Format("2006-01-02T15:04:05"), dt))
		if r.IntN(2) == 0 {
			add(ex("s", i), 1, rdf.Literal(at.In(time.FixedZone("", (r.IntN(57)-28)*30*60)).Format("2006-01-02T15:04:05-07:00"), dt))
		}
	}
	ds := FromIndex(b.Build())
	aggs := `(COUNT(*) AS ?n) (COUNT(MINUTES(?o)) AS ?cm) (COUNT(DISTINCT MINUTES(?o)) AS ?cdm) (COUNT(?z) AS ?cz)
		(SUM(IF(MINUTES(?o) < 30, 1, 0)) AS ?first) (AVG(MINUTES(?o)) AS ?am) (SUM(MINUTES(?o) * 1.25 - HOURS(?o)) AS ?sd)
		(SAMPLE(MONTH(?o)) AS ?sa) (SUM(IF(BOUND(?z), 1, 2)) AS ?sb) (AVG(DAY(?o) - 15.5) AS ?ad)`
	// Doubles after integers in one group: 1e16 swallows a 1 added after it, not 1s added before.
	doubles := `(COUNT(*) AS ?n) (SUM(IF(MONTH(?o) < 12, 1, 1.0e16)) AS ?sm) (AVG(IF(MONTH(?o) < 11, 3, 0.1e0)) AS ?a)`
	few := `(COUNT(*) AS ?n) (SUM(IF(MINUTES(?o) < 30, 1, 0)) AS ?first) (COUNT(HOURS(?o)) AS ?ch) (AVG(HOURS(?o)) AS ?ah)`
	declined := []string{
		`(MIN(MINUTES(?o)) AS ?mn)`, `(MAX(HOURS(?o)) AS ?mx)`, `(GROUP_CONCAT(STR(MINUTES(?o))) AS ?g)`,
		`(SUM(DISTINCT MINUTES(?o)) AS ?sd)`, `(COUNT(DISTINCT *) AS ?cd)`, `(COUNT(?o) AS ?co)`,
		`(COUNT(TZ(?o)) AS ?tz)`, `(SUM(IF(RAND() < 2, 1, 0)) AS ?r)`,
	}
	type query struct {
		src  string
		path bool // read by tuple (on one core, where the split does not apply)
	}
	var queries []query
	for p := range 2 {
		pat := fmt.Sprintf(`{ ?s <http://ex.org/p%d> ?o `, p)
		queries = append(queries,
			query{`SELECT ?h ` + aggs + pat + `} GROUP BY (HOURS(?o) AS ?h)`, true},
			query{`SELECT ?h ?mi ` + aggs + pat + `} GROUP BY (HOURS(?o) AS ?h) (MINUTES(?o) AS ?mi)`, true},
			query{`SELECT ?y ?m ` + aggs + pat + `} GROUP BY (YEAR(?o) AS ?y) (MONTH(?o) AS ?m)`, true},
			query{`SELECT ?k ` + aggs + pat + `} GROUP BY (MINUTES(?o) < 30 || DAY(?o) = 3 AS ?k)`, true},
			query{`SELECT ` + aggs + pat + `}`, true},
			query{`SELECT ?h ` + doubles + pat + `} GROUP BY (HOURS(?o) AS ?h)`, true},
			query{`SELECT ?d ` + aggs + pat + `FILTER(HOURS(?o) > 5 && MINUTES(?o) != 7) } GROUP BY (DAY(?o) AS ?d)`, true},
			query{`SELECT ?h ` + aggs + pat + `FILTER(?o >= "2008-06-01T00:00:00Z"^^<` + dt + `>) } GROUP BY (HOURS(?o) AS ?h)`, p == 1},
			query{`SELECT ?h ` + aggs + pat + `FILTER(STR(?o) > "2008-06") } GROUP BY (HOURS(?o) AS ?h)`, false},
			query{`SELECT ?o (COUNT(*) AS ?n) ` + pat + `} GROUP BY ?o`, false},
			// Few readings (hour and minute, or the month): many rows of a tuple, runs of one value among them.
			query{`SELECT ?h ` + few + pat + `} GROUP BY (HOURS(?o) AS ?h)`, true},
			query{`SELECT ?h ` + few + pat + `FILTER(MINUTES(?o) != 7 && HOURS(?o) > 5) } GROUP BY (HOURS(?o) AS ?h)`, true},
			query{`SELECT ?m (COUNT(*) AS ?n) (SUM(MONTH(?o)) AS ?sm) (COUNT(HOURS(?o)) AS ?ch) ` + pat + `} GROUP BY (MONTH(?o) AS ?m)`, true},
			// COUNT of the subject, bound in every row, reads no value (runReads): counted as COUNT(*).
			query{`SELECT ?h (COUNT(*) AS ?n) (COUNT(?s) AS ?cs)` + pat + `} GROUP BY (HOURS(?o) AS ?h)`, true},
			// SECONDS, read from the lexical form (a decimal; fractions of up to three digits, others in turn).
			query{`SELECT ?h (COUNT(*) AS ?n) (SUM(SECONDS(?o)) AS ?sec)` + pat + `} GROUP BY (HOURS(?o) AS ?h)`, true},
			query{`SELECT ?sc (COUNT(*) AS ?n) (AVG(MINUTES(?o)) AS ?am)` + pat + `} GROUP BY (SECONDS(?o) AS ?sc)`, true},
			query{`SELECT ?sc (COUNT(*) AS ?n) ` + pat + `} GROUP BY (SECONDS(?o) * 2 + MINUTES(?o) AS ?sc)`, true},
			query{`SELECT (COUNT(*) AS ?n) ` + pat + `FILTER(SECONDS(?o) < 10) }`, true},
			query{`SELECT ?h (COUNT(*) AS ?n) ` + pat + `FILTER(SECONDS(?o) >= 4.5 && HOURS(?o) < 20) } GROUP BY (HOURS(?o) AS ?h)`, true},
		)
		for _, d := range declined {
			queries = append(queries, query{`SELECT ?h (COUNT(*) AS ?n) ` + d + pat + `} GROUP BY (HOURS(?o) AS ?h)`, false})
		}
	}
	for _, q := range queries {
		want, _ := runGroup(t, ds, q.src, true)
		for _, cores := range []int{1, 2} {
			got := runGroupCores(t, ds, q.src, cores)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s, %d cores:\n got %q\nwant %q", q.src, cores, got, want)
			}
		}
		// Taken or not: the group's table of tuples holds readings after groupRuns, on one core.
		pq, err := parser.Parse(q.src, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := newEvaluator(context.Background(), ds, pq, Options{Cores: NewCores(1)})
		x := firstOp[*algebra.Group](pq.Op)
		gs := e.newGroupState(x)
		if handled, _ := e.groupRuns(x, e.newRow(), gs, &err); !handled || err != nil {
			t.Fatalf("%s: not handled by groupRuns (%v)", q.src, err)
		}
		if taken := gs.tuples != nil && gs.tuples.len > 0; taken != q.path {
			t.Errorf("%s: read by tuple %v, want %v", q.src, taken, q.path)
		}
	}
}

// runGroupCores is runGroup (not the reference) with a pool of cores; on two, the split's probe is made small
// enough for the test's rows and timed as long, so the split is taken wherever it may be.
func runGroupCores(t *testing.T, ds *Dataset, src string, cores int) []string {
	out, _ := runGroupPool(t, ds, src, NewCores(cores))
	return out
}

// splitOptions are the options under which a query splits wherever it may on small data, over cores.
func splitOptions(cores *Cores) Options {
	opt := Options{Cores: cores}
	opt.forkMin, opt.forkChunk = 64, 16
	opt.forkCosts = func(int, time.Duration, time.Duration) (time.Duration, time.Duration) { return time.Second, 0 }
	return opt
}

// runGroupPool is runGroupCores with the pool given, which then tells the splits made.
func runGroupPool(t *testing.T, ds *Dataset, src string, cores *Cores) ([]string, *Cores) {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	e := newEvaluator(context.Background(), ds, q, splitOptions(cores))
	var out []string
	e.group(firstOp[*algebra.Group](q.Op), e.newRow(), e.collectRows(&out), &err)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return out, cores
}

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

// The test data helpers the package's tests share: IRIs and literals of the http://ex.org/ graphs they build, an
// index builder that fails the test on a bad triple, parsing and running a query, and a result's rows as text. One
// copy here keeps the tests' data and their comparisons alike, so a test says only what it builds and checks.

// ex is the IRI http://ex.org/<s><i>: the subjects, predicates and classes of the tests' graphs.
func ex(s string, i int) rdf.Term { return rdf.IRI(fmt.Sprintf("http://ex.org/%s%d", s, i)) }

// exIRI is the IRI http://ex.org/ followed by fmt.Sprintf(f, a...).
func exIRI(f string, a ...any) rdf.Term { return rdf.IRI("http://ex.org/" + fmt.Sprintf(f, a...)) }

// intLit is the xsd:integer literal of v.
func intLit(v int) rdf.Term { return rdf.Literal(fmt.Sprint(v), rdf.XSDInteger) }

// builderAdding returns an index builder and a function that adds a triple to it, failing the test on an error.
func builderAdding(t testing.TB) (*index.Builder, func(s, p, o rdf.Term)) {
	b := index.NewBuilder()
	return b, func(s, p, o rdf.Term) {
		if err := b.Add(rdf.Triple(s, p, o)); err != nil {
			t.Fatal(err)
		}
	}
}

// graphAdder returns a function that adds a triple to b in the named graph http://ex.org/g (the default graph
// when g is empty).
func graphAdder(t testing.TB, b *index.Builder) func(g string, s, p, o rdf.Term) {
	return func(g string, s, p, o rdf.Term) {
		q := rdf.Triple(s, p, o)
		if g != "" {
			q.G = rdf.IRI("http://ex.org/" + g)
		}
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
}

// mustParse parses the query src, failing the test on an error.
func mustParse(t testing.TB, src string) *algebra.Query {
	t.Helper()
	q, err := parser.Parse(src, parser.Options{})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return q
}

// mustRun answers the query src over ds with opt, failing the test on an error.
func mustRun(t testing.TB, ds *Dataset, src string, opt Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), ds, mustParse(t, src), opt)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return res
}

// resultRows returns a result's solutions in their order, each as its terms.
func resultRows(res *Result) []string {
	var out []string
	for _, row := range res.Rows {
		var parts []string
		for _, v := range row {
			parts = append(parts, v.String())
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// sortedResult returns a result's solutions as resultRows does, sorted: the order of unordered solutions is the
// plan's, and a fast path may change it.
func sortedResult(res *Result) []string {
	rows := resultRows(res)
	slices.Sort(rows)
	return rows
}

// The helpers the package's external tests (package eval_test) share with its own.
var (
	MustParse    = mustParse
	MustRun      = mustRun
	ResultRows   = resultRows
	SortedResult = sortedResult
)

// builderAddingCopies returns an index builder and a function that adds a triple to its default graph and a copy to
// one of the named graphs http://ex.org/g0 and g1, picked by r: patterns in GRAPH ?g or over FROM then meet parts
// of the data.
func builderAddingCopies(t testing.TB, r *rand.Rand) (*index.Builder, func(s, p, o rdf.Term)) {
	b := index.NewBuilder()
	return b, func(s, p, o rdf.Term) {
		q := rdf.Triple(s, p, o)
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
		q.G = ex("g", r.IntN(2))
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
}

// matchPlainWithOne runs src with plainOptions, again with one path switched on (on), and with the default options,
// and reports an answer that differs from the plain one (what names the path and the case); it returns the plain
// answer and the evaluator of the run with the one path.
func matchPlainWithOne(t *testing.T, ds *Dataset, src string, on func(*Options), what string) (string, *evaluator) {
	t.Helper()
	want, err := runSorted(ds, src, plainOptions(), true)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	opt := plainOptions()
	on(&opt)
	got, e, err := runSortedEval(ds, src, opt, true)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got != want {
		t.Errorf("%s: differ from plain evaluation\n got %.600s\nwant %.600s", what, got, want)
	}
	if got, err = runSorted(ds, src, Options{}, false); err != nil {
		t.Fatalf("%s, default options: %v", what, err)
	}
	if got != want {
		t.Errorf("%s: default options differ from plain evaluation\n got %.600s\nwant %.600s", what, got, want)
	}
	return want, e
}

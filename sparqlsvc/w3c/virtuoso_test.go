package w3c_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
	"github.com/ldhub/ldhub/sparqlsvc/remote/virtuosotest"
)

var virtuoso virtuosotest.Shared

func TestMain(m *testing.M) { os.Exit(virtuoso.Run(m)) }

// TestW3CSPARQLEvalVirtuoso runs the SPARQL 1.0 and 1.1 query evaluation suites through ldhub's external-store
// backend on a real Virtuoso 7: each test's data is loaded as store graphs, the query is rewritten for that
// dataset (sparqlsvc/remote) and the answer compared with the expected one, exactly as for the built-in engine
// (docs/conformance.md has both scores side by side). The failures listed are Virtuoso's own answers.
func TestW3CSPARQLEvalVirtuoso(t *testing.T) {
	v := virtuoso.Get(t)
	st, err := remote.New(remote.Config{QueryURL: v.QueryURL, User: v.User, Password: v.Password})
	if err != nil {
		t.Fatal(err)
	}
	s := &suite{reg: codec.Default(), store: st, loaded: map[string]bool{}}
	runSuiteOn(t, s, "sparql/sparql10/manifest.ttl", "SPARQL 1.0 evaluation, ldhub + Virtuoso", virtuosoKnown10)
	runSuiteOn(t, s, "sparql/sparql11/manifest-sparql11-query.ttl", "SPARQL 1.1 Query evaluation, ldhub + Virtuoso", virtuosoKnown11)
}

// storeDataset loads each data file once as a store graph of its own (per role: a file read as the default graph
// and as a named graph keeps its blank nodes apart, as on the built-in engine) and returns the query's dataset.
func (s *suite) storeDataset(defaults, named []string) (*remote.Query, error) {
	var ds remote.Dataset
	load := func(p, role string) (string, error) {
		rel, _ := filepath.Rel(s.dir, p)
		g := "urn:ldhub-w3c:" + role + ":" + filepath.ToSlash(rel)
		if s.loaded[g] {
			return g, nil
		}
		qs, _, err := s.readQuads(p, role+fmt.Sprint(len(s.loaded)), rdf.Term{})
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, q := range qs {
			for _, t := range []rdf.Term{q.S, q.P, q.O} {
				rdf.AppendNTriples(&b, t)
				b.WriteByte(' ')
			}
			b.WriteString(".\n")
		}
		nt := b.String()
		if err := s.store.PutGraph(context.Background(), g, func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(nt)), nil
		}, int64(len(nt))); err != nil {
			return "", err
		}
		s.loaded[g] = true
		return g, nil
	}
	for _, p := range defaults {
		g, err := load(p, "d")
		if err != nil {
			return nil, err
		}
		ds.Default = append(ds.Default, g)
	}
	for _, p := range named {
		g, err := load(p, "n")
		if err != nil {
			return nil, err
		}
		ds.Named = append(ds.Named, remote.NamedGraph{Name: conformance.W3CBase(p), Graph: g})
	}
	return &remote.Query{Store: s.store, Dataset: ds}, nil
}

// collector keeps a whole answer, for comparison.
type collector struct{ res *eval.Result }

func (c *collector) Begin(vars []string) error { c.res.Vars = vars; return nil }
func (c *collector) Row(v []rdf.Term) error {
	c.res.Rows = append(c.res.Rows, slices.Clone(v))
	return nil
}
func (c *collector) Boolean(v bool) error    { c.res.Boolean = v; return nil }
func (c *collector) Triple(t rdf.Quad) error { c.res.Triples = append(c.res.Triples, t); return nil }

// The tests Virtuoso 7.2 (Debian's 7.2.x) answers differently, with the first words of how. Each was checked to be
// Virtuoso's own answer, not ldhub's rewriting or transport (docs/conformance.md lists them by cause): its typing of
// literals (numbers and booleans normalised at load, booleans as 1/0, casts, numeric promotion, sameTerm and = on
// unknown datatypes), regular expressions, property paths without a bound end ("transitive start not given"), some
// SPARQL 1.1 functions (IRI() ignores BASE, hashes of non-ASCII text), MINUS with OPTIONAL inside it (it answers
// nothing, in a constant graph too), and GRAPH ?g inside EXISTS with ?g bound outside. A new failure, or one of
// these passing, fails the test.
var (
	virtuosoKnown10 = map[string]string{
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/boolean-effective-value/manifest#dawg-bev-6":                "1 solutions like <http://example.org/ns#x2> \"0\"^^<http://www.w3.org/2001/XMLSchema#boolean",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/cast/manifest#cast-bool":                                    "6 solutions, want 1 (got 6 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/cast/manifest#cast-dT":                                      "500 SPARQL Request Failed: Virtuoso 22007 Error DT006: Cannot convert true to datetime : I",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/cast/manifest#cast-dec":                                     "3 solutions, want 2 (got 3 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/cast/manifest#cast-int":                                     "3 solutions, want 1 (got 3 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/distinct/manifest#distinct-1":                               "5 solutions, want 9 (got 5 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/distinct/manifest#distinct-9":                               "13 solutions, want 17 (got 13 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-builtin/manifest#case-insensitive-booleans":            "1 solutions like \"1\"^^<http://www.w3.org/2001/XMLSchema#integer> \"0\"^^<http://www.w3.org/2",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-builtin/manifest#dawg-datatype-2":                      "4 solutions, want 5 (got 4 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-builtin/manifest#dawg-str-1":                           "7 solutions, want 4 (got 7 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-builtin/manifest#dawg-str-2":                           "0 solutions, want 1 (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-builtin/manifest#sameTerm-eq":                          "42 solutions, want 14 (got 42 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-builtin/manifest#sameTerm-not-eq":                      "0 solutions, want 28 (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-builtin/manifest#sameTerm-simple":                      "42 solutions, want 14 (got 42 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-equals/manifest#eq-2-1":                                "18 solutions like \"1\"^^<http://www.w3.org/2001/XMLSchema#double> \"1\"^^<http://www.w3.org/2",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-equals/manifest#eq-2-2":                                "18 solutions like \"1\"^^<http://www.w3.org/2001/XMLSchema#double> \"1\"^^<http://www.w3.org/2",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-equals/manifest#eq-bool":                               "10 solutions, want 6 (got 10 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-equals/manifest#eq-dateTime":                           "4 solutions, want 5 (got 4 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-equals/manifest#eq-graph-1":                            "6 solutions, want 2 (got 6 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-equals/manifest#eq-graph-2":                            "6 solutions, want 1 (got 6 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-ops/manifest#add-numbers-cast":                         "1 solutions like \"3\"^^<http://www.w3.org/2001/XMLSchema#decimal> \"3\"^^<http://www.w3.org/2",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-ops/manifest#divide-numbers-cast":                      "1 solutions like \"3\"^^<http://www.w3.org/2001/XMLSchema#decimal> \"3\"^^<http://www.w3.org/2",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-ops/manifest#multiply-numbers-cast":                    "1 solutions like \"3\"^^<http://www.w3.org/2001/XMLSchema#decimal> \"3\"^^<http://www.w3.org/2",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/expr-ops/manifest#subtract-numbers-cast":                    "1 solutions like \"3\"^^<http://www.w3.org/2001/XMLSchema#decimal> \"3\"^^<http://www.w3.org/2",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#date-2":                                 "5 solutions, want 3 (got 5 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#date-3":                                 "4 solutions, want 3 (got 4 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-cmp-01":                            "3 solutions, want 1 (got 3 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-cmp-02":                            "5 solutions, want 3 (got 5 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-01":                             "2 solutions, want 0 (got 2 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-04":                             "6 solutions, want 2 (got 6 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-06":                             "7 solutions, want 0 (got 7 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-07":                             "1 solutions like <http://example/x5> \"0\"^^<http://www.w3.org/2001/XMLSchema#integer> <http",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-08":                             "52 solutions, want 42 (got 52 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-09":                             "1 solutions, want 0 (got 1 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-10":                             "63 solutions, want 52 (got 63 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-11":                             "64 solutions, want 52 (got 64 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/open-world/manifest#open-eq-12":                             "0 solutions, want 10 (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/regex/manifest#dawg-regex-003":                              "2 solutions, want 1 (got 2 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/regex/manifest#regex-ignore-whitespaces":                    "0 solutions, want 1 (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/regex/manifest#regex-ignore-whitespaces-class-expression":   "0 solutions, want 1 (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/regex/manifest#regex-no-metacharacters":                     "500 SPARQL Request Failed: Virtuoso 2201B Error SR098: regexp error at 'a?+*.{}()[]c' colu",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/regex/manifest#regex-no-metacharacters-case-insensitive":    "500 SPARQL Request Failed: Virtuoso 2201B Error SR098: regexp error at 'a?+*.{}()[]C' colu",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/regex/manifest#regex-quantifier-counted-exact":              "0 solutions, want 1 (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/regex/manifest#regex-quantifier-counted-lower-bound":        "0 solutions, want 3 (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/regex/manifest#regex-quantifier-counted-lower-upper-bounds": "0 solutions, want 2 (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/sort/manifest#dawg-sort-6":                                  "right solutions, wrong order: solution 0 differs: {?address=\"Fascination Street 11\"}, want",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/sort/manifest#dawg-sort-8":                                  "right solutions, wrong order: solution 0 differs: {?name=\"Dirk\" ?emp=<http://example.org/d",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/type-promotion/manifest#type-promotion-03":                  "boolean false, want true (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/type-promotion/manifest#type-promotion-05":                  "boolean false, want true (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/type-promotion/manifest#type-promotion-10":                  "boolean false, want true (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/type-promotion/manifest#type-promotion-15":                  "boolean false, want true (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/type-promotion/manifest#type-promotion-25":                  "boolean true, want false (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/type-promotion/manifest#type-promotion-29":                  "boolean true, want false (got 0 rows)",
		"http://www.w3.org/2001/sw/DataAccess/tests/data-r2/type-promotion/manifest#type-promotion-30":                  "boolean true, want false (got 0 rows)",
	}
	virtuosoKnown11 = map[string]string{
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-avg-02":         "1 solutions like <http://www.example.org/mixed2> \"0.2\"^^<http://www.w3.org/2001/XMLSchema#",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-avg-03":         "1 solutions like  , want 0 (got 1 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-avg-distinct":   "1 solutions like <http://www.example.org/doubles> \"1050\"^^<http://www.w3.org/2001/XMLSchem",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-err-01":         "500 SPARQL Request Failed: Virtuoso 22003 Error SR087: Non numeric argument(s) to arithmet",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-err-02":         "1 solutions like <http://example.com/data/#x> \"2.5\"^^<http://www.w3.org/2001/XMLSchema#dec",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg-sum-02":         "1 solutions like <http://www.example.org/mixed2> \"0.4\"^^<http://www.w3.org/2001/XMLSchema#",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/aggregates/manifest#agg06":              "400 Bad Request: Virtuoso 37000 Error SP031: SPARQL compiler: HAVING clause should be prec",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/bind/manifest#bind10":                   "1 solutions, want 0 (got 1 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/bindings/manifest#values7":              "3 solutions, want 5 (got 3 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/cast/manifest#cast-bool":                "1 solutions like <http://example.org/b01> \"1\"^^<http://www.w3.org/2001/XMLSchema#boolean> ",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/cast/manifest#cast-decimal":             "1 solutions like <http://example.org/b01> \"1\"^^<http://www.w3.org/2001/XMLSchema#boolean> ",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/cast/manifest#cast-double":              "1 solutions like <http://example.org/b01> \"1\"^^<http://www.w3.org/2001/XMLSchema#boolean> ",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/cast/manifest#cast-float":               "1 solutions like <http://example.org/b01> \"1\"^^<http://www.w3.org/2001/XMLSchema#boolean> ",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/cast/manifest#cast-int":                 "1 solutions like <http://example.org/b01> \"1\"^^<http://www.w3.org/2001/XMLSchema#boolean> ",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/cast/manifest#cast-string":              "1 solutions like <http://example.org/b01> \"1\"^^<http://www.w3.org/2001/XMLSchema#boolean> ",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/exists/manifest#exists-graph-variable":  "0 solutions, want 1 (got 0 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#bnode01":             "400 Bad Request: Virtuoso 37000 Error SP031: SPARQL compiler: Internal error: Built-in fun",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#bnode02":             "400 Bad Request: Virtuoso 37000 Error SP031: SPARQL compiler: Internal error: Built-in fun",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#coalesce01":          "500 SPARQL Request Failed: Virtuoso 22012 Error SR084: Division by 0. SPARQL query: SELECT",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#concat02":            "0 solutions like  , want 13 (got 49 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#ends01":              "500 SPARQL Request Failed: Virtuoso 22023 Error SL001: The SPARQL 1.1 function STRENDS() n",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#if01":                "1 solutions like \"123\" \"0\"^^<http://www.w3.org/2001/XMLSchema#integer> , want 0 (got 7 row",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#if02":                "500 SPARQL Request Failed: Virtuoso 22012 Error SR084: Division by 0. SPARQL query: SELECT",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#iri01":               "IRI(\"uri\") gives <uri>: Virtuoso ignores the BASE ldhub sends",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#md5-02":              "0 solutions like \"e7ada485d13b1decf628c9211bc3a97b\" , want 1 (got 1 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#notin02":             "500 SPARQL Request Failed: Virtuoso 22012 Error SR084: Division by 0. SPARQL query: ASK FR",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#plus-1-corrected":    "0 solutions like \"1\" \"2\"  , want 2 (got 8 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#replace01":           "1 solutions like <http://example.org/s2> \"---\" , want 0 (got 9 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#seconds":             "0 solutions like <http://example.org/d1> \"1\"^^<http://www.w3.org/2001/XMLSchema#decimal> ,",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#sha1-02":             "1 solutions like \"09aceab37bf5a751be420820fa2e412481174a05\" , want 0 (got 1 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#sha256-02":           "0 solutions like \"0fbe868d1df356ca9df7ebff346da3a56280e059a7ea81186ef885b140d254ee\" , want",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#sha384-02":           "1 solutions like \"57156ef5e33d4b9d56545dbd443a8954ae9cfe1fde080ccab88957cea97f11ba32e1afaf",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#sha512-02":           "0 solutions like \"b433ed0e60c818bea72d3aa1a43db89b3ed2b624597407b7912bbb7685f2e45ae5500e09",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#strafter01a":         "500 SPARQL Request Failed: Virtuoso 22023 Error SL001: The SPARQL 1.1 function STRAFTER() ",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#strafter02":          "500 SPARQL Request Failed: Virtuoso 22003 Error SR586: Incomplete RDF box as argument 1 fo",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#strbefore01a":        "500 SPARQL Request Failed: Virtuoso 22023 Error SL001: The SPARQL 1.1 function STRBEFORE()",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#strbefore02":         "500 SPARQL Request Failed: Virtuoso 22003 Error SR586: Incomplete RDF box as argument 1 fo",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#strdt01":             "0 solutions like <http://example.org/s2>  , want 1 (got 1 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#strdt03-rdf11":       "0 solutions like <http://example.org/d1>  , want 1 (got 16 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#strlang01":           "0 solutions like <http://example.org/s2>  , want 1 (got 1 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#strlang03-rdf11":     "0 solutions like <http://example.org/d1>  , want 1 (got 16 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#timezone":            "500 SPARQL Request Failed: Virtuoso 22007 Error Function rdf_timezone_impl needs a datetim",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/functions/manifest#uuid02":              "boolean false, want true (got 0 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/negation/manifest#full-minuend":         "0 solutions, want 2 (got 0 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/negation/manifest#graph-minus":          "0 solutions, want 1 (got 0 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/negation/manifest#partial-minuend":      "0 solutions, want 2 (got 0 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/project-expression/manifest#projexp01":  "1 solutions like <http://www.example.org/instance#a> \"1\"^^<http://www.w3.org/2001/XMLSchem",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/project-expression/manifest#projexp02":  "0 solutions like <http://www.example.org/instance#a> \"1\"^^<http://www.w3.org/2001/XMLSchem",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp12":            "2 solutions, want 1 (got 2 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp14":            "500 SPARQL Request Failed: Virtuoso 37000 Error TR...: transitive start not given SPARQL q",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp16":            "500 SPARQL Request Failed: Virtuoso 37000 Error TR...: transitive start not given SPARQL q",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp21":            "4 solutions, want 3 (got 4 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp23":            "6 solutions, want 4 (got 6 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp25":            "4 solutions, want 3 (got 4 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp28a":           "4 solutions, want 3 (got 4 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp34":            "500 SPARQL Request Failed: Virtuoso 37000 Error TR...: transitive start not given SPARQL q",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp35":            "500 SPARQL Request Failed: Virtuoso 37000 Error TR...: Query contains a transitive derived",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp36":            "2 solutions, want 1 (got 2 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#pp37":            "5 solutions, want 3 (got 5 rows)",
		"http://www.w3.org/2009/sparql/docs/tests/data-sparql11/property-path/manifest#values_and_path": "500 SPARQL Request Failed: Virtuoso 37000 Error TR...: transitive start not given SPARQL q",
	}
)

package w3c_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/index"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
	"github.com/ldhub/ldhub/sparqlsvc/results"
)

const (
	mfQueryEval   = conformance.MF + "QueryEvaluationTest"
	mfCSVResult   = conformance.MF + "CSVResultFormatTest"
	qtQuery       = conformance.QT + "query"
	qtData        = conformance.QT + "data"
	qtGraphData   = conformance.QT + "graphData"
	qtServiceData = conformance.QT + "serviceData"
	qtEndpoint    = conformance.QT + "endpoint"
	mfCardinality = conformance.MF + "resultCardinality"
	w3cRoot       = "https://w3c.github.io/rdf-tests/"
)

func TestW3CSPARQL10Eval(t *testing.T) {
	runEvalSuite(t, "sparql/sparql10/manifest.ttl", "SPARQL 1.0 evaluation", known10)
}

func TestW3CSPARQL11Eval(t *testing.T) {
	runEvalSuite(t, "sparql/sparql11/manifest-sparql11-query.ttl", "SPARQL 1.1 Query evaluation", known11)
}

func TestW3CSPARQL11Results(t *testing.T) {
	runEvalSuite(t, "sparql/sparql11/manifest-sparql11-results.ttl", "SPARQL 1.1 Results formats", nil)
}

func TestW3CSPARQL11Federation(t *testing.T) {
	runEvalSuite(t, "sparql/sparql11/manifest-sparql11-fed.ttl", "SPARQL 1.1 Federation evaluation (local stub endpoints)", nil)
}

// Tests expected to fail, with the reason (kept in step with docs/conformance.md).
var (
	known10 = map[string]string{}
	known11 = map[string]string{}
)

type suite struct {
	dir string
	reg *codec.Registry
	// store, when set, runs every query on an external SPARQL store through sparqlsvc/remote instead of the
	// built-in engine (virtuoso_test.go); loaded holds the store graphs already filled, by file and role.
	store  *remote.Store
	loaded map[string]bool
}

func runEvalSuite(t *testing.T, manifest, name string, known map[string]string) {
	runSuiteOn(t, &suite{reg: codec.Default()}, manifest, name, known)
}

func runSuiteOn(t *testing.T, s *suite, manifest, name string, known map[string]string) {
	dir := conformance.SuitesDir(t)
	s.dir = dir
	m, err := conformance.LoadManifest(filepath.Join(dir, manifest))
	if err != nil {
		t.Fatal(err)
	}
	res := conformance.Result{Suite: name, Known: known}
	n := 0
	for _, test := range m.Tests {
		if !test.HasType(mfQueryEval) && !test.HasType(mfCSVResult) {
			continue
		}
		n++
		if only := os.Getenv("LDHUB_W3C_ONLY"); only != "" && !strings.Contains(test.IRI, only) {
			continue
		}
		if err := s.runTest(m, test); err != nil {
			res.Fail(test.IRI, err.Error())
		} else {
			res.Passed++
		}
	}
	if n == 0 {
		t.Fatalf("%s: no evaluation tests found", manifest)
	}
	conformance.Report(t, res)
}

// local maps a W3C IRI of the suites back to its file.
func (s *suite) local(iri string) string {
	if rest, ok := strings.CutPrefix(iri, w3cRoot); ok {
		return filepath.Join(s.dir, filepath.FromSlash(rest))
	}
	return conformance.LocalPath(rdf.IRI(iri))
}

func (s *suite) readQuads(path string, blanks string, graph rdf.Term) ([]rdf.Quad, []rdf.Prefix, error) {
	syn, ok := s.reg.ByPath(path)
	if !ok {
		return nil, nil, fmt.Errorf("no syntax for %s", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	dec := syn.NewDecoder(f, rdf.DecodeOptions{Base: conformance.W3CBase(path), Blanks: rdf.NewBlankNodes(blanks)})
	var out []rdf.Quad
	for {
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		if !graph.IsZero() {
			q.G = graph
		}
		out = append(out, q)
	}
	var prefixes []rdf.Prefix
	if ps, ok := dec.(rdf.PrefixSource); ok {
		prefixes = ps.Prefixes()
	}
	return out, prefixes, nil
}

// dataset loads the default-graph files (merged, blank nodes kept apart per file) and named-graph files.
func (s *suite) dataset(defaults, named []string) (*eval.Dataset, error) {
	b := index.NewBuilder()
	for i, p := range defaults {
		qs, _, err := s.readQuads(p, fmt.Sprintf("d%d", i), rdf.Term{})
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			if err := b.Add(q); err != nil {
				return nil, err
			}
		}
	}
	for i, p := range named {
		qs, _, err := s.readQuads(p, fmt.Sprintf("n%d", i), rdf.IRI(conformance.W3CBase(p)))
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			if err := b.Add(q); err != nil {
				return nil, err
			}
		}
	}
	return eval.FromIndex(b.Build()), nil
}

func (s *suite) runTest(m *conformance.Manifest, test conformance.Test) error {
	action := test.Action
	queryPath := conformance.LocalPath(m.Object(action, qtQuery))
	src, err := os.ReadFile(queryPath)
	if err != nil {
		return err
	}
	q, err := parser.Parse(string(src), parser.Options{Base: conformance.W3CBase(queryPath)})
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	var defaults, named []string
	for _, d := range m.Objects(action, qtData) {
		defaults = append(defaults, conformance.LocalPath(d))
	}
	for _, g := range m.Objects(action, qtGraphData) {
		named = append(named, conformance.LocalPath(g))
	}
	// A dataset clause in the query wins over the test's data (constructwhere04 gives both).
	if q.Dataset != nil {
		defaults, named = nil, nil
		for _, d := range q.Dataset.Default {
			defaults = append(defaults, s.local(d))
		}
		for _, g := range q.Dataset.Named {
			named = append(named, s.local(g))
		}
	}
	opt := eval.Options{Timeout: 20 * time.Second}
	if s.store != nil {
		if len(m.Objects(action, qtServiceData)) > 0 {
			return errors.New("SERVICE is refused on the external store")
		}
		rq, err := s.storeDataset(defaults, named)
		if err != nil {
			return err
		}
		c := &collector{res: &eval.Result{Form: q.Form}}
		if err := rq.Stream(context.Background(), q, opt, c); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return s.check(m, test, q, c.res)
	}
	ds, err := s.dataset(defaults, named)
	if err != nil {
		return err
	}
	if sd := m.Objects(action, qtServiceData); len(sd) > 0 {
		stub := stubService{}
		for _, node := range sd {
			ep := m.Object(node, qtEndpoint)
			var files []string
			for _, d := range m.Objects(node, qtData) {
				files = append(files, conformance.LocalPath(d))
			}
			eds, err := s.dataset(files, nil)
			if err != nil {
				return err
			}
			stub[ep.Value] = eds
		}
		opt.Service = stub
	}
	got, err := eval.Run(context.Background(), ds, q, opt)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return s.check(m, test, q, got)
}

// check compares an answer with the test's expected result.
func (s *suite) check(m *conformance.Manifest, test conformance.Test, q *algebra.Query, got *eval.Result) error {
	resultPath := conformance.LocalPath(test.Result)
	if test.HasType(mfCSVResult) {
		return compareCSV(got, resultPath)
	}
	lax := m.Object(rdf.IRI(test.IRI), mfCardinality).Value == conformance.MF+"LaxCardinality"
	return s.compare(q, got, resultPath, lax)
}

// compareCSV writes the solutions as CSV and compares them with the expected file cell by cell. CSV drops term
// types, so both sides are read back as strings, with _:labels as blank nodes so labels may differ consistently.
func compareCSV(got *eval.Result, path string) error {
	want, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := results.WriteAll(&buf, results.CSV, &results.Result{Vars: got.Vars, Rows: got.Rows}); err != nil {
		return err
	}
	a, err := readCSV(buf.Bytes())
	if err != nil {
		return fmt.Errorf("our CSV does not parse: %w", err)
	}
	b, err := readCSV(want)
	if err != nil {
		return err
	}
	if ok, why := results.Equal(a, b, false); !ok {
		return fmt.Errorf("CSV differs: %s\n%s", why, buf.String())
	}
	return nil
}

func readCSV(data []byte) (*results.Result, error) {
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, fmt.Errorf("bad CSV: %v", err)
	}
	r := &results.Result{Vars: recs[0]}
	for _, rec := range recs[1:] {
		row := make([]rdf.Term, len(rec))
		for i, c := range rec {
			switch {
			case c == "":
			case strings.HasPrefix(c, "_:"):
				row[i] = rdf.Blank(c[2:])
			default:
				row[i] = rdf.String(c)
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r, nil
}

// canonicalNumbers rewrites numeric literals to one lexical form per value. The expected files write computed
// numbers in several forms ("0", "0.0" and "0E0" for the same double; "1.0e6" for data that says "1.0E6"), so
// numbers are compared by datatype and value; every other term is compared exactly.
func canonicalNumbers(r *results.Result) {
	for _, row := range r.Rows {
		for i, t := range row {
			if t.Kind == rdf.KindLiteral && builtin.IsNumeric(t) {
				if c, err := builtin.Plus(t); err == nil {
					c.Datatype = t.Datatype
					row[i] = c
				}
			}
		}
	}
}

func hasOrderBy(op algebra.Op) bool {
	for {
		switch x := op.(type) {
		case *algebra.OrderBy:
			return true
		case *algebra.Slice:
			op = x.Op
		case *algebra.Distinct:
			op = x.Op
		case *algebra.Reduced:
			op = x.Op
		case *algebra.Project:
			op = x.Op
		default:
			return false
		}
	}
}

func (s *suite) compare(q *algebra.Query, got *eval.Result, path string, lax bool) error {
	var want *results.Result
	ordered := hasOrderBy(q.Op)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".srx", ".srj", ".tsv":
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		format := map[string]results.Format{".srx": results.XML, ".srj": results.JSON, ".tsv": results.TSV}[ext]
		if want, err = results.Read(f, format); err != nil {
			return err
		}
	default: // an RDF graph: a CONSTRUCT/DESCRIBE answer or an rs: result set
		quads, _, err := s.readQuads(path, "r", rdf.Term{})
		if err != nil {
			return err
		}
		const rsNS = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#"
		isResultSet := slices.ContainsFunc(quads, func(q rdf.Quad) bool {
			return strings.HasPrefix(q.P.Value, rsNS) || q.O.Value == rsNS+"ResultSet"
		})
		if got.Form == algebra.Construct || got.Form == algebra.Describe || !isResultSet {
			if !iso.Isomorphic(got.Triples, quads) {
				return fmt.Errorf("graph differs: %s", iso.Diff(got.Triples, quads))
			}
			return nil
		}
		var rsOrdered bool
		if want, rsOrdered, err = results.FromRDF(quads); err != nil {
			return err
		}
		ordered = ordered && rsOrdered
	}
	gotRes := &results.Result{Vars: got.Vars, Rows: got.Rows}
	if got.Form == algebra.Ask {
		b := got.Boolean
		gotRes = &results.Result{Boolean: &b}
	}
	canonicalNumbers(gotRes)
	canonicalNumbers(want)
	if lax {
		gotRes, want = dedup(gotRes), dedup(want)
	}
	if ok, why := results.Equal(gotRes, want, ordered); !ok {
		if ordered {
			if ok2, _ := results.Equal(gotRes, want, false); ok2 {
				return fmt.Errorf("right solutions, wrong order: %s", why)
			}
		}
		return fmt.Errorf("%s (got %d rows)", why, len(got.Rows))
	}
	return nil
}

func dedup(r *results.Result) *results.Result {
	if r.Boolean != nil {
		return r
	}
	seen := map[string]bool{}
	out := &results.Result{Vars: r.Vars}
	for _, row := range r.Rows {
		var b strings.Builder
		for _, t := range row {
			b.WriteString(t.String())
			b.WriteByte('\t')
		}
		if !seen[b.String()] {
			seen[b.String()] = true
			out.Rows = append(out.Rows, row)
		}
	}
	return out
}

// stubService answers SERVICE patterns from local datasets, keyed by endpoint IRI (federation tests).
type stubService map[string]*eval.Dataset

func (s stubService) Query(ctx context.Context, endpoint string, pattern algebra.Op, vars []algebra.Var) ([]string, [][]rdf.Term, error) {
	ds, ok := s[endpoint]
	if !ok {
		return nil, nil, fmt.Errorf("unknown endpoint %s", endpoint)
	}
	q := &algebra.Query{Form: algebra.Select, Op: &algebra.Project{Op: pattern, Vars: vars}}
	r, err := eval.Run(ctx, ds, q, eval.Options{Service: s}) // endpoints may call each other
	if err != nil {
		return nil, nil, err
	}
	return r.Vars, r.Rows, nil
}

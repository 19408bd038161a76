package parser_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

const (
	mfPositive10   = conformance.MF + "PositiveSyntaxTest"
	mfNegative10   = conformance.MF + "NegativeSyntaxTest"
	mfPositive11   = conformance.MF + "PositiveSyntaxTest11"
	mfNegative11   = conformance.MF + "NegativeSyntaxTest11"
	mfQueryEval    = conformance.MF + "QueryEvaluationTest"
	qtQuery        = conformance.QT + "query"
	sparql10Root   = "sparql/sparql10/manifest.ttl"
	sparql11Query  = "sparql/sparql11/manifest-sparql11-query.ttl"
	sparql11Fed    = "sparql/sparql11/manifest-sparql11-fed.ttl"
	syntaxSuffix   = " syntax"
	evalSuffix     = " evaluation queries (parse only)"
	sparql10Suite  = "SPARQL 1.0"
	sparql11Suite  = "SPARQL 1.1 Query"
	sparql11FedSui = "SPARQL 1.1 Federation"
)

func TestW3CSPARQL10Syntax(t *testing.T) {
	dir := conformance.SuitesDir(t)
	runSyntaxSuite(t, filepath.Join(dir, sparql10Root), sparql10Suite, mfPositive10, mfNegative10)
}

func TestW3CSPARQL11Syntax(t *testing.T) {
	dir := conformance.SuitesDir(t)
	runSyntaxSuite(t, filepath.Join(dir, sparql11Query), sparql11Suite, mfPositive11, mfNegative11)
	runSyntaxSuite(t, filepath.Join(dir, sparql11Fed), sparql11FedSui, mfPositive11, mfNegative11)
}

// runSyntaxSuite checks every syntax test of a manifest (positive ones must parse and translate, negative ones
// must be rejected) and, as a second report, that the query of every evaluation test parses.
func runSyntaxSuite(t *testing.T, manifest, suite, positive, negative string) {
	t.Helper()
	m, err := conformance.LoadManifest(manifest)
	if err != nil {
		t.Fatalf("loading %s: %v", manifest, err)
	}
	syntax := conformance.Result{Suite: suite + syntaxSuffix}
	eval := conformance.Result{Suite: suite + evalSuffix}
	var nSyntax, nEval int
	for _, test := range m.Tests {
		name := test.IRI
		switch {
		case test.HasType(positive), test.HasType(negative):
			nSyntax++
			path := conformance.LocalPath(test.Action)
			err := parseFile(path)
			switch {
			case test.HasType(positive) && err != nil:
				syntax.Fail(name, err.Error())
			case test.HasType(negative) && err == nil:
				syntax.Fail(name, "accepted an invalid query ("+filepath.Base(path)+")")
			default:
				syntax.Passed++
			}
		case test.HasType(mfQueryEval):
			q := m.Object(test.Action, qtQuery)
			path := conformance.LocalPath(q)
			if path == "" {
				continue // no query file (a result-format test)
			}
			nEval++
			if err := parseFile(path); err != nil {
				eval.Fail(name, err.Error())
			} else {
				eval.Passed++
			}
		}
	}
	if nSyntax == 0 && nEval == 0 {
		t.Fatalf("%s: no tests found in %s", suite, manifest)
	}
	if nSyntax > 0 {
		conformance.Report(t, syntax)
	}
	if nEval > 0 {
		conformance.Report(t, eval)
	}
}

// parseFile parses a query file with its published IRI as base, as the suites assume (README.md).
func parseFile(path string) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	q, err := parser.Parse(string(text), parser.Options{Base: conformance.W3CBase(path)})
	if err != nil {
		return err
	}
	return checkAlgebra(q)
}

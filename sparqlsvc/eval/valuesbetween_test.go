package eval

import (
	"slices"
	"testing"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// TestValuesBetweenMatchesPlainJoins: a VALUES written between two runs of triples, sharing no variable with the
// first and some with the second, joined to one BGP of both (valuesBetween), gives the solutions (multiplicities
// included) the joins as written give, on random hierarchies: UNDEF in different columns, a column only the
// VALUES binds, values the data lacks, in named graphs. The taken ones must be taken
// (fails on the old code); a VALUES sharing a variable with the first run, or none with the second, is declined.
func TestValuesBetweenMatchesPlainJoins(t *testing.T) {
	const pre = `PREFIX : <http://ex.org/> `
	taken := []string{
		`SELECT ?i ?a ?l { ?i :type ?c . VALUES (?a ?l) { (:c1 UNDEF) (UNDEF "apple") (UNDEF UNDEF) (:c2 "bee") } ?a :label ?l . ?c :sub ?a }`,
		`SELECT ?i ?a ?z { ?i :type ?c . VALUES (?a ?z) { (:c1 1) (UNDEF 2) (:nowhere 3) } ?c :sub ?a }`,
		`SELECT ?i ?l { ?i :type ?c . VALUES ?l { "apple" "axe" "none" } ?c :label ?l }`,
		`SELECT ?g ?i ?a { GRAPH ?g { ?i :type ?c . VALUES ?a { :c0 :c3 } ?c :sub ?a } }`,
	}
	declined := []string{
		`SELECT ?i ?a { ?i :type ?a . VALUES ?a { :c1 :c2 } ?a :label ?l }`,
		`SELECT ?i ?z { ?i :type ?c . VALUES ?z { 1 2 } ?c :sub ?a }`,
	}
	for seed := range uint64(4) {
		ds := hierarchyDates(t, seed)
		for qi, src := range append(slices.Clone(taken), declined...) {
			got, e := evalJoins(t, ds, pre+src, false)
			want, _ := evalJoins(t, ds, pre+src, true)
			if !slices.Equal(got, want) {
				t.Errorf("seed %d: %s:\n got %d %q\nwant %d %q", seed, src, len(got), got, len(want), want)
			}
			between := false // a VALUES joined to a BGP of two runs (valuesFirst's own swaps keep one run of one pattern)
			for _, v := range e.valuesLast {
				if v != nil {
					b, ok := v.Right.(*algebra.BGP)
					between = between || ok && len(b.Triples) > 1
				}
			}
			if between != (qi < len(taken)) {
				t.Errorf("seed %d: %s: VALUES joined first %v", seed, src, between)
			}
		}
	}
}

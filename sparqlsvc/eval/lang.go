package eval

import (
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// LANG(?v) of a literal the data holds is its tag, read from the head of its dictionary key (index.Dict.Lang):
// no term made, no datatype looked up. h15 compares the tag of each of 104 000 review titles with a VALUES
// column's language (FILTER(lang(?title) = ?lang)); the titles' terms were half of the query.

// langOf returns LANG(x) when x is a variable bound to a literal of the dictionary; ok is false otherwise (then
// LANG is evaluated as written: other terms are errors, computed and inline terms are made).
func (e *evaluator) langOf(x algebra.Expr, row []ID) (string, bool) {
	v, ok := x.(algebra.Var)
	if !ok {
		return "", false
	}
	id := row[e.varSlot(v)]
	if id == 0 || id > e.t.base || index.IsInline(id) || e.t.dict == nil {
		return "", false
	}
	return e.t.dict.Lang(id)
}

// langCompare answers LANG(?v) = x and LANG(?v) != x (either way round) where ?v holds a literal of the dictionary
// and x is a simple literal, constant or bound: LANG's value is a simple literal, and two simple literals are equal
// exactly when their strings are. ok is false for other operands (then the comparison is evaluated as written).
func (e *evaluator) langCompare(c *algebra.Call, row []ID) (result, ok bool) {
	if (c.Func != "=" && c.Func != "!=") || len(c.Args) != 2 {
		return false, false
	}
	for i := range 2 {
		l, isCall := c.Args[i].(*algebra.Call)
		if !isCall || l.Func != "LANG" || len(l.Args) != 1 {
			continue
		}
		var other rdf.Term
		switch o := c.Args[1-i].(type) {
		case algebra.Constant:
			other = o.Term
		case algebra.Var:
			id := row[e.varSlot(o)]
			if id == 0 || isScratch(id) {
				return false, false
			}
			other = e.t.term(id)
		default:
			return false, false
		}
		if other.Kind != rdf.KindLiteral || other.Datatype != rdf.XSDString || other.Lang != "" {
			return false, false
		}
		tag, ok := e.langOf(l.Args[0], row)
		if !ok {
			return false, false
		}
		return (tag == other.Value) == (c.Func == "="), true
	}
	return false, false
}

// langMatchesTag answers langMatches(LANG(?v), "range") where ?v holds a literal of the dictionary (langOf) and the
// range is a simple literal constant: both operands are then simple literals, so the function is langMatches of
// the two strings, without LANG's term and the range on the argument stack, the function looked up by name and a
// boolean term made and read back (h90 tests two ranges on every German reviewer's review title). ok is false for
// other operands (then the call is evaluated as written).
func (e *evaluator) langMatchesTag(c *algebra.Call, row []ID) (result, ok bool) {
	if c.Func != "LANGMATCHES" || len(c.Args) != 2 {
		return false, false
	}
	rng, isConst := c.Args[1].(algebra.Constant)
	if !isConst || rng.Term.Kind != rdf.KindLiteral || rng.Term.Datatype != rdf.XSDString {
		return false, false
	}
	l, isCall := c.Args[0].(*algebra.Call)
	if !isCall || l.Func != "LANG" || len(l.Args) != 1 {
		return false, false
	}
	tag, ok := e.langOf(l.Args[0], row)
	if !ok {
		return false, false
	}
	return builtin.LangMatches(tag, rng.Term.Value), true
}

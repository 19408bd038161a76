package eval

import (
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// SUBSTR of a variable or of STR of one, from and for constant integers (d20's GROUP BY SUBSTR(STR(?u), 1, 4)
// over 570 000 offers at 10 M), went through the function machinery per row: STR made a term on the argument
// stack, the call checked its arity by name, and both integers were parsed from their lexical forms, most of the
// query's CPU. substrFast reads the string where it lies (strOperandOf) and slices it there; the result points
// into the dictionary's memory (or the query's), as a term read from it does.

// substrFast answers SUBSTR (c) for row as builtin's substr would when its string is a variable or STR of one
// and its start and length are xsd:integer constants of a few digits; ok is false for any other call, which is
// evaluated as written.
func (e *evaluator) substrFast(c *algebra.Call, row []ID) (t rdf.Term, err error, ok bool) {
	if c.Func != "SUBSTR" || (len(c.Args) != 2 && len(c.Args) != 3) {
		return rdf.Term{}, nil, false
	}
	var bounds [2]float64
	for i, a := range c.Args[1:] {
		if bounds[i], ok = smallIntegerConst(a); !ok {
			return rdf.Term{}, nil, false
		}
	}
	hasLen := len(c.Args) == 3
	if v, isVar := c.Args[0].(algebra.Var); isVar {
		id := row[e.varSlot(v)]
		if id == 0 {
			return rdf.Term{}, errUnbound, true
		}
		t = e.t.term(id)
		if t.Kind != rdf.KindLiteral || (t.Datatype != rdf.XSDString && t.Datatype != rdf.RDFLangString) {
			return rdf.Term{}, builtin.ErrType, true
		}
		t.Value = builtin.Substring(t.Value, bounds[0], bounds[1], hasLen) // its language tag stays (§17.4.3.3)
		return t, nil, true
	}
	if s, isCall := c.Args[0].(*algebra.Call); !isCall || s.Func != "STR" {
		return rdf.Term{}, nil, false
	}
	op, err, ok := e.strOperandOf(c.Args[0], row)
	switch {
	case !ok:
		return rdf.Term{}, nil, false
	case err != nil:
		return rdf.Term{}, err, true
	}
	sub := builtin.Substring(op.value, bounds[0], bounds[1], hasLen)
	return rdf.String(sub), nil, true
}

// smallIntegerConst is x's value when x is an xsd:integer constant of at most nine digits (an optional sign
// first), which a double holds exactly as builtin's numeric reading gives it; ok is false otherwise.
func smallIntegerConst(x algebra.Expr) (float64, bool) {
	c, ok := x.(algebra.Constant)
	if !ok || c.Term.Kind != rdf.KindLiteral || c.Term.Datatype != rdf.XSDInteger {
		return 0, false
	}
	s, neg := c.Term.Value, false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = 10*n + int(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return float64(n), true
}

package eval

import (
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// STRSTARTS, STRENDS and CONTAINS over variables, STR of variables and constants (h120: STRSTARTS(STR(?page),
// STR(?home)) && STRENDS(STR(?product), "00") && CONTAINS(STR(?offer), "/Offer") over 90 000 offers at 10 M) went
// through the function machinery per row: each STR made a term on the argument stack, the call checked its arity
// and its arguments by name, and the answer came back as a boolean term to be read again, about 1 µs a test and
// half of the query's CPU. strTest reads each operand's string where it lies (a term of the dictionary points into
// its memory, a constant is the query's) and compares them there.

// strOperand is one operand of strTest: its string and language tag, and whether it is a string at all (a simple
// literal, xsd:string or a language-tagged literal, as §17.4.3.1.1 asks of these functions' arguments).
type strOperand struct {
	value, lang string
	isString    bool
}

// strOperandOf reads x, a variable, STR of a variable or a constant, for row; ok is false for any other
// expression, which the caller evaluates as written. err is the expression's error: an unbound variable, or STR of
// a blank node.
func (e *evaluator) strOperandOf(x algebra.Expr, row []ID) (op strOperand, err error, ok bool) {
	switch v := x.(type) {
	case algebra.Constant:
		return stringOperand(v.Term), nil, true
	case algebra.Var:
		id := row[e.varSlot(v)]
		if id == 0 {
			return strOperand{}, errUnbound, true
		}
		return stringOperand(e.t.term(id)), nil, true
	case *algebra.Call:
		if v.Func != "STR" || len(v.Args) != 1 {
			return strOperand{}, nil, false
		}
		a, isVar := v.Args[0].(algebra.Var)
		if !isVar {
			return strOperand{}, nil, false
		}
		id := row[e.varSlot(a)]
		if id == 0 {
			return strOperand{}, errUnbound, true
		}
		t := e.t.term(id)
		if t.Kind != rdf.KindIRI && t.Kind != rdf.KindLiteral { // STR of a blank node is an error (§17.4.2.5)
			return strOperand{}, builtin.ErrType, true
		}
		return strOperand{value: t.Value, isString: true}, nil, true
	}
	return strOperand{}, nil, false
}

// stringOperand is t as an operand of the string functions.
func stringOperand(t rdf.Term) strOperand {
	s := t.Kind == rdf.KindLiteral && (t.Datatype == rdf.XSDString || t.Datatype == rdf.RDFLangString)
	return strOperand{value: t.Value, lang: t.Lang, isString: s}
}

// strTest answers STRSTARTS, STRENDS or CONTAINS (c) for row when each operand is a variable, STR of one or a
// constant, as builtin's stringPair would: both operands strings, the second without a language tag or with the
// first's. ok is false for other calls and operands, which are evaluated as written.
func (e *evaluator) strTest(c *algebra.Call, row []ID) (result bool, err error, ok bool) {
	if len(c.Args) != 2 {
		return false, nil, false
	}
	switch c.Func {
	case "STRSTARTS", "STRENDS", "CONTAINS":
	default:
		return false, nil, false
	}
	a, aerr, ok := e.strOperandOf(c.Args[0], row)
	if !ok {
		return false, nil, false
	}
	b, berr, ok := e.strOperandOf(c.Args[1], row)
	if !ok {
		return false, nil, false
	}
	switch {
	case aerr != nil:
		return false, aerr, true
	case berr != nil:
		return false, berr, true
	case !a.isString || !b.isString || (b.lang != "" && !strings.EqualFold(a.lang, b.lang)):
		return false, builtin.ErrType, true
	}
	switch c.Func {
	case "STRSTARTS":
		return strings.HasPrefix(a.value, b.value), nil, true
	case "STRENDS":
		return strings.HasSuffix(a.value, b.value), nil, true
	}
	return strings.Contains(a.value, b.value), nil, true
}

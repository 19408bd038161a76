package eval

import (
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// Arithmetic over numbers held in their ids (index.InlineNumber) is computed on their values (builtin.Number),
// without a term made for each operand, its lexical form parsed back, and the result written and interned: a
// BIND of ?price * 1.19 or a SUM(?price * ?days) over every offer spent most of its time doing that. The values
// are Arith's and the rounding functions' exactly; where an operand is anything else, or a result does not fit,
// the general evaluation decides.

// arithExpr reports whether x is an operation numberValue evaluates: + - * (binary and unary), ABS, CEIL, FLOOR
// and ROUND over variables, constants, YEAR … SECONDS of a variable (fieldArg) and such operations, and the casts
// to xsd:integer and xsd:decimal of such operands or of STR of a variable (numberCast).
func arithExpr(x algebra.Expr) bool {
	if f, ok := x.(*algebra.FunctionCall); ok {
		if !numberCast(f) {
			return false
		}
		if _, ok := strOfVar(f.Args[0]); ok {
			return true
		}
		return arithOperand(f.Args[0])
	}
	c, ok := x.(*algebra.Call)
	if !ok || !arithFunc(c) {
		return false
	}
	for _, a := range c.Args {
		if !arithOperand(a) {
			return false
		}
	}
	return true
}

// arithOperand reports whether numberValue evaluates a as an operand of arithExpr's operations.
func arithOperand(a algebra.Expr) bool {
	switch a := a.(type) {
	case algebra.Var, algebra.Constant:
		return true
	case *algebra.Call:
		_, field := fieldArg(a)
		return field || arithExpr(a)
	case *algebra.FunctionCall:
		return arithExpr(a)
	}
	return false
}

// numberCast reports whether f is a cast numberValue evaluates: xsd:integer or xsd:decimal of one operand.
func numberCast(f *algebra.FunctionCall) bool {
	return len(f.Args) == 1 && (f.IRI == rdf.XSDInteger || f.IRI == rdf.XSDDecimal)
}

// strOfVar returns the variable of STR(?v).
func strOfVar(x algebra.Expr) (algebra.Var, bool) {
	c, ok := x.(*algebra.Call)
	if !ok || c.Func != "STR" || len(c.Args) != 1 {
		return "", false
	}
	v, ok := c.Args[0].(algebra.Var)
	return v, ok
}

// arithFunc reports whether c is one of the operations numberValue evaluates.
func arithFunc(c *algebra.Call) bool {
	switch c.Func {
	case "+", "-":
		return len(c.Args) == 1 || len(c.Args) == 2
	case "*", "/": // a quotient when its 18 places fit (builtin.NumberArith)
		return len(c.Args) == 2
	case "ABS", "CEIL", "FLOOR", "ROUND":
		return len(c.Args) == 1
	}
	return false
}

// walkNumber is numberValue walking x's tree per row: the reference compiled trees are held to (noCompile).
func (e *evaluator) walkNumber(x algebra.Expr, row []ID) (builtin.Number, bool) {
	switch v := x.(type) {
	case algebra.Var:
		id := row[e.varSlot(v)]
		if isScratch(id) { // an earlier BIND's number (numberID)
			return e.t.scratchNumberOf(id)
		}
		n, scale, ok := index.InlineNumber(id)
		return builtin.Number{V: n, Scale: scale, Dec: index.IsInlineDecimal(id)}, ok
	case algebra.Constant:
		return builtin.NumberOf(v.Term)
	case *algebra.FunctionCall:
		if !numberCast(v) {
			return builtin.Number{}, false
		}
		// xsd:decimal(STR(?price)) (b61): a number held in its id prints back byte for byte as a form both casts
		// read as its value, except xsd:integer of a decimal's form ("1.5"), an error Cast gives.
		if sv, ok := strOfVar(v.Args[0]); ok {
			id := row[e.varSlot(sv)]
			n, scale, ok := index.InlineNumber(id)
			if !ok || v.IRI == rdf.XSDInteger && index.IsInlineDecimal(id) {
				return builtin.Number{}, false
			}
			return builtin.NumberCast(v.IRI, builtin.Number{V: n, Scale: scale, Dec: index.IsInlineDecimal(id)})
		}
		a, ok := e.walkNumber(v.Args[0], row)
		if !ok {
			return builtin.Number{}, false
		}
		return builtin.NumberCast(v.IRI, a)
	case *algebra.Call:
		if _, field := fieldArg(v); field {
			// A date's field from the dictionary's column (dateFieldID), the integer (or SECONDS' decimal) the
			// function returns: date arithmetic such as (YEAR(?to) - YEAR(?from)) * 12 + MONTH(?to) - MONTH(?from)
			// made four terms and three results per row.
			id, ok := e.dateFieldID(v, row)
			if !ok {
				return builtin.Number{}, false
			}
			n, scale, ok := index.InlineNumber(id)
			return builtin.Number{V: n, Scale: scale, Dec: index.IsInlineDecimal(id)}, ok
		}
		if !arithFunc(v) {
			// YEAR … SECONDS of a date the column knows: the integer (decimal) dateFieldID reads without a term
			// (SUM(HOURS(?d)), AVG(MINUTES(?d) * 60)).
			if id, ok := e.dateFieldID(v, row); ok {
				n, scale, ok := index.InlineNumber(id)
				return builtin.Number{V: n, Scale: scale, Dec: index.IsInlineDecimal(id)}, ok
			}
			return builtin.Number{}, false
		}
		a, ok := e.argNumber(v, 0, row)
		if !ok {
			return builtin.Number{}, false
		}
		if len(v.Args) == 2 {
			b, ok := e.argNumber(v, 1, row)
			if !ok {
				return builtin.Number{}, false
			}
			return builtin.NumberArith(v.Func[0], a, b)
		}
		switch v.Func {
		case "+": // unary plus: the same number in canonical form
			return a, true
		case "-":
			return builtin.NumberArith('-', builtin.Number{Dec: a.Dec}, a)
		}
		return builtin.NumberRound(v.Func, a)
	}
	return builtin.Number{}, false
}

// sumValue is numberValue for the operand of SUM or AVG, which add its value and never its term: IF(c, a, b) is the
// number of the branch c's effective boolean value picks, c answered from ids where its comparison's site can
// (d07: SUM(IF(MINUTES(?d) < 30, 1, 0)) over every review made the branch's term and parsed it back). An error in c,
// or a branch numberValue cannot compute, is left to the general evaluation, which gives the value or the error.
// (Not in numberValue: a BIND of IF keeps its branch's term as written, "1.50" and not "1.5".)
func (e *evaluator) sumValue(x algebra.Expr, row []ID) (builtin.Number, bool) {
	if c, ok := x.(*algebra.Call); ok && c.Func == "IF" && len(c.Args) == 3 {
		var fatal error
		b, err := e.ebv(c.Args[0], row, &fatal)
		if err != nil || fatal != nil {
			return builtin.Number{}, false
		}
		i := 2
		if b {
			i = 1
		}
		if k, isConst := c.Args[i].(algebra.Constant); isConst {
			return e.constNumber(c, i, k)
		}
		return e.sumValue(c.Args[i], row)
	}
	return e.numberValue(x, row)
}

// argNumber is walkNumber of argument i of c.
func (e *evaluator) argNumber(c *algebra.Call, i int, row []ID) (builtin.Number, bool) {
	if k, isConst := c.Args[i].(algebra.Constant); isConst {
		return e.constNumber(c, i, k)
	}
	return e.walkNumber(c.Args[i], row)
}

// constNum is a constant operand's number: argument arg of call.
type constNum struct {
	call *algebra.Call
	arg  int
	n    builtin.Number
	ok   bool
}

// constNumber is builtin.NumberOf of k, argument i of c, read once while it is among the four met last: SUM(IF(c,
// 1, 0)) or ?price * 1.19 over every row read the constant's lexical form each time (a tenth of d07 on one core).
func (e *evaluator) constNumber(c *algebra.Call, i int, k algebra.Constant) (builtin.Number, bool) {
	for j := range e.constNums {
		if m := &e.constNums[j]; m.call == c && m.arg == i {
			return m.n, m.ok
		}
	}
	n, ok := builtin.NumberOf(k.Term)
	e.constNums[e.nextConst&3] = constNum{c, i, n, ok}
	e.nextConst++
	return n, ok
}

// numberID is the id of x's value when numberValue computes it: the number's own id when it is held in one
// (index.IntegerID, index.DecimalID), else, when scratch allows it (a value read only within its solution:
// markDirect), a scratch id holding the number, its term written only if read. ok is false when numberValue
// cannot compute x or the value would need interning, which the caller does (its memo may know the value).
func (e *evaluator) numberID(x algebra.Expr, row []ID, scratch bool) (ID, bool) {
	n, ok := e.numberValue(x, row)
	if !ok {
		return 0, false
	}
	if id, ok := numberInline(n); ok {
		return id, true
	}
	if scratch {
		return e.t.scratchNumber(n), true
	}
	return 0, false
}

// numberInline is the inline id of n's canonical term, when it has one.
func numberInline(n builtin.Number) (ID, bool) {
	n = n.Normal()
	if n.Dec {
		return index.DecimalID(n.V, n.Scale)
	}
	if n.Scale != 0 {
		return 0, false
	}
	return index.IntegerID(n.V)
}

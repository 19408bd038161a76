package eval

import (
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// Arithmetic whose operands numberValue cannot hold (a decimal past int64 such as an AVG's 18 places, a double) is
// computed in builtin.Value form: each operator's result stays a number for the next one, and a term is written
// only for the value kept (a BIND, an aggregate's operand, a projected expression) or not at all (a comparison).
// h123's FILTER(ABS(?price − ?avg) > 0.5 * ?avg) and MAX(ROUND(ABS(?price − ?avg) * 100 / ?avg)) wrote and parsed
// a term per operator and row. The values are exactly the terms' (builtin.Value); wherever value declines (an
// error, a result past 128 bits, an operand that is no number) the general evaluation gives the value or error.

// value evaluates x in builtin.Value form; ok is false when an operand is no number Value reads, an operator
// is not one it computes, or the terms must decide. An operator's tree runs compiled (compiled.go).
func (e *evaluator) value(x algebra.Expr, row []ID) (builtin.Value, bool) {
	if c, ok := x.(*algebra.Call); ok {
		return e.runProg(e.progOf(c), row)
	}
	return e.walkValue(x, row)
}

// runProg is value of p's call.
func (e *evaluator) runProg(p *progEntry, row []ID) (builtin.Value, bool) {
	switch {
	case e.noValues:
		return builtin.Value{}, false
	case e.noCompile:
		return e.walkValue(p.call, row)
	}
	return p.prog(e, row)
}

// walkValue is value walking x's tree per row: the reference compiled trees are held to (noCompile).
func (e *evaluator) walkValue(x algebra.Expr, row []ID) (builtin.Value, bool) {
	if e.noValues {
		return builtin.Value{}, false
	}
	switch v := x.(type) {
	case algebra.Var:
		return e.varValue(row[e.varSlot(v)])
	case algebra.Constant:
		return builtin.ValueOf(v.Term)
	case *algebra.Call:
		if !arithFunc(v) { // a date's field (numberValue reads it from the dictionary's column)
			n, ok := e.numberValue(x, row)
			return builtin.NumberValue(n), ok
		}
		a, ok := e.argValue(v, 0, row)
		if !ok {
			return builtin.Value{}, false
		}
		if len(v.Args) == 2 {
			b, ok := e.argValue(v, 1, row)
			if !ok {
				return builtin.Value{}, false
			}
			return builtin.ValueArith(v.Func[0], a, b)
		}
		switch v.Func {
		case "+":
			return builtin.ValuePlus(a)
		case "-":
			return builtin.ValueNeg(a)
		}
		return builtin.ValueRound(v.Func, a)
	case *algebra.FunctionCall: // the casts numberValue computes
		n, ok := e.numberValue(x, row)
		return builtin.NumberValue(n), ok
	}
	return builtin.Value{}, false
}

// argValue is value of argument i of c, a constant's read once while it is among the four met last (0.5 * ?avg
// over every row).
func (e *evaluator) argValue(c *algebra.Call, i int, row []ID) (builtin.Value, bool) {
	var k algebra.Constant
	switch a := c.Args[i].(type) {
	case algebra.Var:
		return e.varValue(row[e.varSlot(a)])
	case algebra.Constant:
		k = a
	default:
		return e.walkValue(a, row)
	}
	for j := range e.constVals {
		if m := &e.constVals[j]; m.call == c && m.arg == i {
			return m.v, m.ok
		}
	}
	v, ok := builtin.ValueOf(k.Term)
	e.constVals[e.nextConstVal&3] = constVal{c, i, v, ok}
	e.nextConstVal++
	return v, ok
}

// constVal is a constant operand's Value: argument arg of call.
type constVal struct {
	call *algebra.Call
	arg  int
	v    builtin.Value
	ok   bool
}

// varValue is the Value of a variable's id: a number held in the id or in a scratch id without a term, an overlay
// term's read once per query (terms.overlayValue), others read from their term.
func (e *evaluator) varValue(id ID) (builtin.Value, bool) {
	switch {
	case id == 0:
		return builtin.Value{}, false
	case isScratch(id):
		if n, ok := e.t.scratchNumberOf(id); ok {
			return builtin.NumberValue(n), true
		}
	case e.t.isOverlay(id):
		return e.t.overlayValue(id)
	}
	if n, scale, ok := index.InlineNumber(id); ok {
		return builtin.NumberValue(builtin.Number{V: n, Scale: scale, Dec: index.IsInlineDecimal(id)}), true
	}
	return builtin.ValueOf(e.t.term(id))
}

// overlayValue is builtin.ValueOf of an overlay id's term, read once: a subquery's AVG joined back to every offer
// is one computed term read again for each of them.
func (t *terms) overlayValue(id ID) (builtin.Value, bool) {
	if id == t.lastValID {
		return t.lastVal.v, t.lastVal.ok
	}
	c, seen := t.values[id]
	if !seen {
		c.v, c.ok = builtin.ValueOf(t.extra[id-t.base-1])
		if t.values == nil {
			t.values = map[ID]overlayNum{}
		}
		t.values[id] = c
		t.bytes += 64
	}
	t.lastValID, t.lastVal = id, c
	return c.v, c.ok
}

// overlayNum is an overlay term's Value, ok false when it is no number Value reads.
type overlayNum struct {
	v  builtin.Value
	ok bool
}

// valueCompare is compareTerms' comparison when an operand's value was computed in Value form (vals[i], has[i]):
// the other operand is a number held in its id, a variable's value (varValue) or its term ts[i] read; ok is false
// when it is no number Value reads or the values do not compare (NaN), and the caller compares terms.
func (e *evaluator) valueCompare(c *algebra.Call, row []ID, ids [2]ID, ts [2]rdf.Term, vals [2]builtin.Value, has [2]bool) (result, ok bool) {
	for i := range vals {
		if has[i] {
			continue
		}
		switch a := c.Args[i].(type) {
		case algebra.Var:
			vals[i], ok = e.varValue(row[e.varSlot(a)])
		case algebra.Constant:
			vals[i], ok = e.argValue(c, i, row)
		default:
			if n, scale, inline := index.InlineNumber(ids[i]); inline {
				vals[i], ok = builtin.NumberValue(builtin.Number{V: n, Scale: scale, Dec: index.IsInlineDecimal(ids[i])}), true
			} else {
				vals[i], ok = builtin.ValueOf(ts[i])
			}
		}
		if !ok {
			return false, false
		}
	}
	return compareValues(c.Func, vals[0], vals[1])
}

// minMaxValue is MIN's or MAX's step for an expression's value v: compared with the best key's value where both
// are numbers that differ (OrderKeys' answer then), else by the key v's term has, as accumulate compares terms.
func (e *evaluator) minMaxValue(s *aggState, isMin bool, v builtin.Value) {
	if s.best != nil {
		if c, ok := builtin.CompareValueKey(v, s.best); ok && c != 0 {
			if (isMin && c < 0) || (!isMin && c > 0) {
				*s.best = v.Key()
			}
			return
		}
	}
	k := v.Key()
	if s.best == nil {
		s.best = new(builtin.Key)
		*s.best = k
		return
	}
	if c := builtin.OrderKeys(&k, s.best); (isMin && c < 0) || (!isMin && c > 0) {
		*s.best = k
	}
}

// valueSite reports whether x is a comparison's operand value computed where numberID could not (numberValue
// reads none of ?avg's 18 places), among the four met last: compareTerms then skips numberID for it.
func (e *evaluator) valueSite(x algebra.Expr) bool {
	for _, s := range e.valueSites {
		if s == x {
			return true
		}
	}
	return false
}

// noteValueSite remembers x as a valueSite.
func (e *evaluator) noteValueSite(x algebra.Expr) {
	e.valueSites[e.nextValueSite&3] = x
	e.nextValueSite++
}

// compareByValue is a FILTER's comparison answered in Value form without the general evaluation's steps (a boolean
// term made and read back, the comparison sites asked again) when an operand is a valueSite: the other is a
// variable, a constant or arithmetic. ok is false where either operand is no number Value reads or the values do
// not compare, and the comparison is evaluated as before.
func (e *evaluator) compareByValue(c *algebra.Call, row []ID) (result, ok bool) {
	if e.noValues || !e.valueSite(c.Args[0]) && !e.valueSite(c.Args[1]) {
		return false, false
	}
	if !e.noCompile {
		s := e.cmpSiteOf(c)
		if s.byValue == nil {
			s.byValue = e.compileCompare(c)
		}
		return s.byValue(e, row)
	}
	var vals [2]builtin.Value
	for i := range vals {
		switch a := c.Args[i].(type) {
		case algebra.Var:
			vals[i], ok = e.varValue(row[e.varSlot(a)])
		case algebra.Constant:
			vals[i], ok = e.argValue(c, i, row)
		default:
			if !arithExpr(a) {
				return false, false
			}
			vals[i], ok = e.value(a, row)
		}
		if !ok {
			return false, false
		}
	}
	return compareValues(c.Func, vals[0], vals[1])
}

// compareValues applies comparison operator op to two values; ok is false when they do not compare.
func compareValues(op string, a, b builtin.Value) (result, ok bool) {
	r, ok := builtin.CompareValues(a, b)
	if !ok {
		return false, false
	}
	switch op {
	case "=":
		return r == 0, true
	case "!=":
		return r != 0, true
	case "<":
		return r < 0, true
	case ">":
		return r > 0, true
	case "<=":
		return r <= 0, true
	case ">=":
		return r >= 0, true
	}
	return false, false
}

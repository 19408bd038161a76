package eval

import (
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// numberValue (numbers.go) is what a computed GROUP BY key, a SUM's or AVG's operand, a MIN's or MAX's, an
// arithmetic BIND and a comparison's arithmetic operand are computed with, and it walked its tree per row: a type
// switch per node, each variable's slot found by its name, each constant operand looked for among the four met
// last. h171's GROUP BY ((?r1 - ?r2) / 2 AS ?half) divided two ratings per review, h172's AVG(?days / 8) an
// offer's delivery days, although ratings and days take a few values each. compileNumber makes of the tree, once
// per query and site, a tree of closures (as compileValue does for the Value form): variables read by slot,
// constants read once, subtrees of constants folded, each node calling the builtin operation the walker calls on
// the same operands, so it gives exactly the walker's number or its decline (walkNumber stays the tests'
// reference, noCompile). A tree whose leaves are at most two variables also remembers its values by their ids
// (numMemo): a rating gap or an offer's days are computed once per distinct input.

// numProg is a compiled numberValue: the number of the tree for the row, ok false where walkNumber declines.
type numProg func(e *evaluator, row []ID) (builtin.Number, bool)

// numEntry is an expression's compiled tree.
type numEntry struct {
	prog numProg
}

// nnode is a compiled node: its program, or for a constant (or a subtree of constants) its number, read once.
type nnode struct {
	prog  numProg
	konst bool
	n     builtin.Number
	ok    bool
}

// numDeclined is a node whose number walkNumber never gives.
var numDeclined = nnode{konst: true}

// run is n as a program.
func (n nnode) run() numProg {
	if n.konst {
		v, ok := n.n, n.ok
		return func(*evaluator, []ID) (builtin.Number, bool) { return v, ok }
	}
	return n.prog
}

// numberValue evaluates x when every operand it reads is an xsd:integer or xsd:decimal that fits builtin.Number:
// a variable's number held in its id, or a numeric constant. ok is false otherwise (an operand of another kind, an
// unbound variable, a result that does not fit), and the general evaluation gives the value or the error. A call
// or a cast runs compiled (numProgOf).
func (e *evaluator) numberValue(x algebra.Expr, row []ID) (builtin.Number, bool) {
	switch x.(type) {
	case *algebra.Call, *algebra.FunctionCall:
		if !e.noCompile {
			return e.numProgOf(x).prog(e, row)
		}
	}
	return e.walkNumber(x, row)
}

// numProgOf is x's compiled entry, compiled when first met.
func (e *evaluator) numProgOf(x algebra.Expr) *numEntry {
	p := e.numProgs.lookup(x)
	if p == nil {
		n := e.compileNumber(x)
		if !n.konst {
			if slots, ok := e.numLeafSlots(x, nil); ok && len(slots) > 0 && len(slots) <= 2 {
				n.prog = numMemo(n.prog, slots)
			}
		}
		p = &numEntry{prog: n.run()}
		e.numProgs.add(x, p)
	}
	return p
}

// compileNumber compiles x as walkNumber evaluates it.
func (e *evaluator) compileNumber(x algebra.Expr) nnode {
	switch v := x.(type) {
	case algebra.Var:
		s := e.slot(v)
		return nnode{prog: func(e *evaluator, row []ID) (builtin.Number, bool) { return e.idNumber(row[s]) }}
	case algebra.Constant:
		n, ok := builtin.NumberOf(v.Term)
		return nnode{konst: true, n: n, ok: ok}
	case *algebra.FunctionCall:
		return e.compileNumberCast(v)
	case *algebra.Call:
		if fv, field := fieldArg(v); field {
			s, fn := e.slot(fv), v.Func
			return nnode{prog: func(e *evaluator, row []ID) (builtin.Number, bool) {
				id, ok := e.fieldID(fn, row[s])
				if !ok {
					return builtin.Number{}, false
				}
				return inlineNumber(id)
			}}
		}
		if arithFunc(v) {
			return e.compileNumberArith(v)
		}
	}
	return numDeclined
}

// compileNumberCast compiles walkNumber's casts: xsd:integer or xsd:decimal of STR(?v) or of a number.
func (e *evaluator) compileNumberCast(f *algebra.FunctionCall) nnode {
	if !numberCast(f) {
		return numDeclined
	}
	iri := f.IRI
	if sv, ok := strOfVar(f.Args[0]); ok {
		s := e.slot(sv)
		return nnode{prog: func(e *evaluator, row []ID) (builtin.Number, bool) {
			id := row[s]
			n, scale, ok := index.InlineNumber(id)
			if !ok || iri == rdf.XSDInteger && index.IsInlineDecimal(id) {
				return builtin.Number{}, false
			}
			return builtin.NumberCast(iri, builtin.Number{V: n, Scale: scale, Dec: index.IsInlineDecimal(id)})
		}}
	}
	a := e.compileNumber(f.Args[0])
	if a.konst {
		if !a.ok {
			return numDeclined
		}
		n, ok := builtin.NumberCast(iri, a.n)
		return nnode{konst: true, n: n, ok: ok}
	}
	fa := a.prog
	return nnode{prog: func(e *evaluator, row []ID) (builtin.Number, bool) {
		n, ok := fa(e, row)
		if !ok {
			return builtin.Number{}, false
		}
		return builtin.NumberCast(iri, n)
	}}
}

// compileNumberArith compiles an operator arithFunc accepts. An operand that declines as a constant makes the
// whole node decline, as walkNumber's does whatever the other operand gives.
func (e *evaluator) compileNumberArith(c *algebra.Call) nnode {
	a := e.compileNumber(c.Args[0])
	if a.konst && !a.ok {
		return numDeclined
	}
	if len(c.Args) == 2 {
		b := e.compileNumber(c.Args[1])
		if b.konst && !b.ok {
			return numDeclined
		}
		op := c.Func[0]
		if a.konst && b.konst {
			n, ok := builtin.NumberArith(op, a.n, b.n)
			return nnode{konst: true, n: n, ok: ok}
		}
		fa, fb := a.run(), b.run()
		return nnode{prog: func(e *evaluator, row []ID) (builtin.Number, bool) {
			x, ok := fa(e, row)
			if !ok {
				return builtin.Number{}, false
			}
			y, ok := fb(e, row)
			if !ok {
				return builtin.Number{}, false
			}
			return builtin.NumberArith(op, x, y)
		}}
	}
	var unary func(builtin.Number) (builtin.Number, bool)
	switch name := c.Func; name {
	case "+": // unary plus: the number as it is
		unary = func(n builtin.Number) (builtin.Number, bool) { return n, true }
	case "-":
		unary = func(n builtin.Number) (builtin.Number, bool) {
			return builtin.NumberArith('-', builtin.Number{Dec: n.Dec}, n)
		}
	default: // ABS, CEIL, FLOOR, ROUND
		unary = func(n builtin.Number) (builtin.Number, bool) { return builtin.NumberRound(name, n) }
	}
	if a.konst {
		n, ok := unary(a.n)
		return nnode{konst: true, n: n, ok: ok}
	}
	fa := a.prog
	return nnode{prog: func(e *evaluator, row []ID) (builtin.Number, bool) {
		x, ok := fa(e, row)
		if !ok {
			return builtin.Number{}, false
		}
		return unary(x)
	}}
}

// idNumber is walkNumber of a variable holding id: an earlier BIND's number in a scratch id, or a number held in
// the id.
func (e *evaluator) idNumber(id ID) (builtin.Number, bool) {
	if isScratch(id) {
		return e.t.scratchNumberOf(id)
	}
	return inlineNumber(id)
}

// inlineNumber is the number an id holds (index.InlineNumber), ok false for any other id.
func inlineNumber(id ID) (builtin.Number, bool) {
	n, scale, ok := index.InlineNumber(id)
	return builtin.Number{V: n, Scale: scale, Dec: index.IsInlineDecimal(id)}, ok
}

// numLeafSlots adds to slots the distinct slots of the variables x reads (a date's field and STR under a cast
// included); ok is false when x reads anything compileNumber does not compile, which is then not remembered.
func (e *evaluator) numLeafSlots(x algebra.Expr, slots []int) ([]int, bool) {
	switch v := x.(type) {
	case algebra.Var:
		return addSlot(slots, e.slot(v)), true
	case algebra.Constant:
		return slots, true
	case *algebra.FunctionCall:
		if !numberCast(v) {
			return nil, false
		}
		if sv, ok := strOfVar(v.Args[0]); ok {
			return addSlot(slots, e.slot(sv)), true
		}
		return e.numLeafSlots(v.Args[0], slots)
	case *algebra.Call:
		if fv, field := fieldArg(v); field {
			return addSlot(slots, e.slot(fv)), true
		}
		if !arithFunc(v) {
			return nil, false
		}
		for _, a := range v.Args {
			var ok bool
			if slots, ok = e.numLeafSlots(a, slots); !ok {
				return nil, false
			}
		}
		return slots, true
	}
	return nil, false
}

// addSlot is slots with s, once.
func addSlot(slots []int, s int) []int {
	for _, t := range slots {
		if t == s {
			return slots
		}
	}
	return append(slots, s)
}

// numMemoSize is how many inputs a numMemo remembers: direct-mapped by the ids' hash, enough for the pairs of two
// ratings (100) or the delivery days an offer has, small enough to stay in the first-level cache.
const numMemoSize = 256

// numMemo wraps prog, a pure function of the ids at slots (one or two), with the values of the inputs it met last,
// one per entry of a direct-mapped table. A scratch id is reused for another number per solution (numberID), so
// a row with one is neither answered from the table nor kept in it; data and overlay ids name one term for the
// whole query. Unbound (0) is an input like any other: the walker declines for it every time.
func numMemo(prog numProg, slots []int) numProg {
	type entry struct {
		set  bool
		a, b ID
		n    builtin.Number
		ok   bool
	}
	var table *[numMemoSize]entry // made on the first row: a tree compiled but never run costs nothing
	s0, s1 := slots[0], slots[0]
	if len(slots) == 2 {
		s1 = slots[1]
	}
	return func(e *evaluator, row []ID) (builtin.Number, bool) {
		a, b := row[s0], row[s1]
		if isScratch(a) || isScratch(b) {
			return prog(e, row)
		}
		if table == nil {
			table = new([numMemoSize]entry)
		}
		m := &table[(a*0x9e3779b1^b*0x85ebca6b)>>24%numMemoSize]
		if m.set && m.a == a && m.b == b {
			return m.n, m.ok
		}
		n, ok := prog(e, row)
		*m = entry{true, a, b, n, ok}
		return n, ok
	}
}

package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// An arithmetic tree in Value form (values.go) was walked per row: a type switch per node, the variable's slot
// found by its name's address, each constant operand looked for among the four met last, and arithExpr's walk of
// the whole tree before it, per row and per site. h123 pays that on 82 000 FILTER tests and 39 000 MAX operands at
// 10 M (~1.2 and ~1.5 µs each, a third of it the walk). compileValue makes of the tree, once per query and site,
// a tree of closures that reads the row's ids by slot: constants read once, operators resolved, subtrees of
// constants folded. Each closure calls the builtin operation the walker calls on the same operands in the same
// order, so a compiled tree gives exactly the walker's Value or its decline (then the general evaluation decides,
// as before: errors, division by zero, results past 128 bits, operands that are no numbers).

// valueProg is a compiled arithmetic tree: value of the tree for the row, ok false where walkValue declines.
// It takes the evaluator as an argument rather than holding it, so it holds nothing of one goroutine.
type valueProg func(e *evaluator, row []ID) (builtin.Value, bool)

// cmpProg is a compiled comparison of two Value operands (compareByValue's form).
type cmpProg func(e *evaluator, row []ID) (result, ok bool)

// progEntry is a call's compiled tree and whether arithExpr holds of it (read once, not walked per row).
type progEntry struct {
	call  *algebra.Call
	arith bool
	prog  valueProg
}

// vnode is a compiled node: its program, or for a constant (or a subtree of constants) its value, read once.
type vnode struct {
	prog  valueProg
	konst bool
	v     builtin.Value
	ok    bool
}

// progOf is c's compiled entry, compiled when first met.
func (e *evaluator) progOf(c *algebra.Call) *progEntry {
	p := e.progs.lookup(c)
	if p == nil {
		p = &progEntry{call: c, arith: arithFunc(c) && arithExpr(c)}
		p.prog = e.compileValue(c).run()
		e.progs.add(c, p)
	}
	return p
}

// run is n as a program: a constant's value returned as it is.
func (n vnode) run() valueProg {
	if n.konst {
		v, ok := n.v, n.ok
		return func(*evaluator, []ID) (builtin.Value, bool) { return v, ok }
	}
	return n.prog
}

// declined is a node whose value walkValue never gives.
var declined = vnode{konst: true}

// compileValue compiles x as walkValue evaluates it.
func (e *evaluator) compileValue(x algebra.Expr) vnode {
	switch v := x.(type) {
	case algebra.Var:
		s := e.slot(v)
		return vnode{prog: func(e *evaluator, row []ID) (builtin.Value, bool) { return e.varValue(row[s]) }}
	case algebra.Constant:
		c, ok := builtin.ValueOf(v.Term)
		return vnode{konst: true, v: c, ok: ok}
	case *algebra.Call:
		if arithFunc(v) {
			return e.compileShared(v)
		}
	case *algebra.FunctionCall:
	default:
		return declined
	}
	// A date's field or a cast: numberValue reads it (from the dictionary's column, the id's number), compiled.
	np := e.numProgOf(x).prog
	return vnode{prog: func(e *evaluator, row []ID) (builtin.Value, bool) {
		n, ok := np(e, row)
		return builtin.NumberValue(n), ok
	}}
}

// compileShared is compileArith's node for c, one per query for equal trees: h123's FILTER(ABS(?price − ?avg) >
// 0.5 * ?avg) and its MAX(ROUND(ABS(?price − ?avg) * 100 / ?avg)) read one ABS(?price − ?avg) node. A node over
// one or two variables and constants remembers its last inputs' ids and its value for them (memoLast): the FILTER
// computes 0.5 * ?avg once per product, not per offer, and the MAX reads the ABS the FILTER computed for its row.
func (e *evaluator) compileShared(c *algebra.Call) vnode {
	key := algebra.FormatExpr(c)
	if n, ok := e.progNodes[key]; ok {
		return n
	}
	n := e.compileArith(c)
	if !n.konst {
		if slots, ok := e.leafSlots(c, nil); ok && len(slots) > 0 && len(slots) <= 2 {
			n.prog = memoLast(n.prog, slots)
		}
	}
	if e.progNodes == nil {
		e.progNodes = map[string]vnode{}
	}
	e.progNodes[key] = n
	return n
}

// leafSlots adds to slots the distinct slots of x's variables; ok is false when x reads anything but variables and
// constants through arithFunc's operators (numberValue's operands are left unmemoised).
func (e *evaluator) leafSlots(x algebra.Expr, slots []int) ([]int, bool) {
	switch v := x.(type) {
	case algebra.Var:
		s := e.slot(v)
		for _, t := range slots {
			if t == s {
				return slots, true
			}
		}
		return append(slots, s), true
	case algebra.Constant:
		return slots, true
	case *algebra.Call:
		if !arithFunc(v) {
			return nil, false
		}
		for _, a := range v.Args {
			var ok bool
			if slots, ok = e.leafSlots(a, slots); !ok {
				return nil, false
			}
		}
		return slots, true
	}
	return nil, false
}

// memoLast wraps prog, a pure function of the ids at slots (one or two), with the value of the last ids it met.
// A scratch id is reused for another number per solution (numberID), so a row with one is neither answered from
// the memo nor kept in it; data and overlay ids name one term for the whole query.
func memoLast(prog valueProg, slots []int) valueProg {
	var last struct {
		set  bool
		a, b ID
		v    builtin.Value
		ok   bool
	}
	s0, s1 := slots[0], slots[0]
	if len(slots) == 2 {
		s1 = slots[1]
	}
	return func(e *evaluator, row []ID) (builtin.Value, bool) {
		a, b := row[s0], row[s1]
		if last.set && a == last.a && b == last.b {
			return last.v, last.ok
		}
		v, ok := prog(e, row)
		if !isScratch(a) && !isScratch(b) {
			last.set, last.a, last.b, last.v, last.ok = true, a, b, v, ok
		}
		return v, ok
	}
}

// compileArith compiles an operator arithFunc accepts. An operand that declines as a constant makes the whole
// node decline, as walkValue's does whatever the other operand gives.
func (e *evaluator) compileArith(c *algebra.Call) vnode {
	a := e.compileValue(c.Args[0])
	if a.konst && !a.ok {
		return declined
	}
	if len(c.Args) == 2 {
		b := e.compileValue(c.Args[1])
		if b.konst && !b.ok {
			return declined
		}
		op := c.Func[0]
		switch {
		case a.konst && b.konst:
			v, ok := builtin.ValueArith(op, a.v, b.v)
			return vnode{konst: true, v: v, ok: ok}
		case b.konst: // ?price * 100, ?x / 2
			fa, kb := a.prog, b.v
			return vnode{prog: func(e *evaluator, row []ID) (builtin.Value, bool) {
				x, ok := fa(e, row)
				if !ok {
					return builtin.Value{}, false
				}
				return builtin.ValueArith(op, x, kb)
			}}
		case a.konst: // 0.5 * ?avg
			ka, fb := a.v, b.prog
			return vnode{prog: func(e *evaluator, row []ID) (builtin.Value, bool) {
				y, ok := fb(e, row)
				if !ok {
					return builtin.Value{}, false
				}
				return builtin.ValueArith(op, ka, y)
			}}
		}
		fa, fb := a.prog, b.prog
		return vnode{prog: func(e *evaluator, row []ID) (builtin.Value, bool) {
			x, ok := fa(e, row)
			if !ok {
				return builtin.Value{}, false
			}
			y, ok := fb(e, row)
			if !ok {
				return builtin.Value{}, false
			}
			return builtin.ValueArith(op, x, y)
		}}
	}
	var unary func(builtin.Value) (builtin.Value, bool)
	switch name := c.Func; name {
	case "+":
		unary = builtin.ValuePlus
	case "-":
		unary = builtin.ValueNeg
	default: // ABS, CEIL, FLOOR, ROUND
		unary = func(v builtin.Value) (builtin.Value, bool) { return builtin.ValueRound(name, v) }
	}
	if a.konst {
		v, ok := unary(a.v)
		return vnode{konst: true, v: v, ok: ok}
	}
	fa := a.prog
	return vnode{prog: func(e *evaluator, row []ID) (builtin.Value, bool) {
		x, ok := fa(e, row)
		if !ok {
			return builtin.Value{}, false
		}
		return unary(x)
	}}
}

// compileCompare compiles compareByValue's comparison c: a variable's value, a constant's (read once) or an
// arithmetic operand's; an operand arithExpr rejects makes it decline always, as compareByValue does.
func (e *evaluator) compileCompare(c *algebra.Call) cmpProg {
	var ops [2]vnode
	for i, a := range c.Args {
		switch a.(type) {
		case algebra.Var, algebra.Constant:
		default:
			if !arithExpr(a) {
				return func(*evaluator, []ID) (bool, bool) { return false, false }
			}
		}
		if ops[i] = e.compileValue(a); ops[i].konst && !ops[i].ok {
			return func(*evaluator, []ID) (bool, bool) { return false, false }
		}
	}
	op := c.Func
	fa, fb := ops[0].run(), ops[1].run()
	return func(e *evaluator, row []ID) (result, ok bool) {
		x, ok := fa(e, row)
		if !ok {
			return false, false
		}
		y, ok := fb(e, row)
		if !ok {
			return false, false
		}
		return compareValues(op, x, y)
	}
}

package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// A GROUP BY key that chooses between values, IF(?n1 / ?n5 > 1, "above", "below") or COALESCE(?nick, "anonymous")
// (a BIND's expression moved into the key: groupbind.go), was evaluated per solution to a term that was then
// compared with the last key's term or interned: the branch's constant read, the IF's term built, a string compare
// and, each time the key changes, a hash and a probe of the query's terms (h141: 6 500 products alternating between
// two classes). A choice key is evaluated to the id straight away: the condition by ebv (whose comparison sites
// answer from ids), a constant branch by the id it was interned to the first time it was chosen. The id is the
// one the general path interns, since a constant is interned from its own term as that path does; any other
// branch is evaluated and interned as before. An error in the condition, or no COALESCE operand with a value, is
// the unbound key, as the general path's error is.

// keyNode is a choice key's expression compiled once per group: an IF (kids: then, else), a COALESCE (kids: its
// operands), a constant (its id, 0 until first interned) or any other expression (evaluated and interned).
type keyNode struct {
	x    algebra.Expr
	kind uint8
	id   ID
	kids []*keyNode
}

const (
	keyEval uint8 = iota
	keyConst
	keyIf
	keyCoalesce
)

// choiceKey returns x's keyNode when x is an IF or a COALESCE at its top, else nil.
func choiceKey(x algebra.Expr) *keyNode {
	c, ok := x.(*algebra.Call)
	if !ok || !(c.Func == "IF" && len(c.Args) == 3 || c.Func == "COALESCE") {
		return nil
	}
	return compileKey(x)
}

func compileKey(x algebra.Expr) *keyNode {
	n := &keyNode{x: x}
	switch v := x.(type) {
	case algebra.Constant:
		n.kind = keyConst
	case *algebra.Call:
		switch {
		case v.Func == "IF" && len(v.Args) == 3:
			n.kind, n.kids = keyIf, []*keyNode{compileKey(v.Args[1]), compileKey(v.Args[2])}
		case v.Func == "COALESCE":
			n.kind = keyCoalesce
			for _, a := range v.Args {
				n.kids = append(n.kids, compileKey(a))
			}
		}
	}
	return n
}

// keyID is n's value over row as the id the general path interns it to; err is the expression's error (the key
// is then unbound), fatal conditions go to *errp.
func (e *evaluator) keyID(n *keyNode, row []ID, errp *error) (ID, error) {
	switch n.kind {
	case keyConst:
		if n.id == 0 {
			n.id = e.t.id(n.x.(algebra.Constant).Term)
		}
		return n.id, nil
	case keyIf:
		b, err := e.ebv(n.x.(*algebra.Call).Args[0], row, errp)
		if err != nil {
			return 0, err
		}
		if b {
			return e.keyID(n.kids[0], row, errp)
		}
		return e.keyID(n.kids[1], row, errp)
	case keyCoalesce:
		for _, k := range n.kids {
			if id, err := e.keyID(k, row, errp); err == nil && id != 0 {
				return id, nil
			}
			if *errp != nil {
				return 0, *errp
			}
		}
		return 0, builtin.ErrType
	}
	t, err := e.eval(n.x, row, errp)
	if err != nil {
		return 0, err
	}
	return e.t.id(t), nil
}

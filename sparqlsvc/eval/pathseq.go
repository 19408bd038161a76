package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A sequence path is translated step by step (§18.2.2.4): each joint gets a variable of its own, each link becomes
// a triple of the group's BGP, and every other step (p?, p*, p+, an alternative, a negated set, an inverse of one)
// a path pattern, the parts all joined. h153's `?type rdfs:subClassOf/rdfs:subClassOf?/rdfs:subClassOf? ?ancestor`
// is the triple `?type rdfs:subClassOf ?.p1` and the path patterns `?.p1 rdfs:subClassOf? ?.p2` and `?.p2
// rdfs:subClassOf? ?ancestor`. With `?ancestor rdfs:subClassOf inst:ProductType1` beside it, the BGP is a cross
// product of the ancestors and every subClassOf triple, which only the two optional steps together connect: no
// one path links the BGP's parts (crossSplit), so the join ran both optional steps for each of the 4 × 1 364 pairs
// at 10 M, probed per type.
//
// seqJoin joins such steps back together: in a join, two path patterns that share a joint variable no other operand
// mentions become one path pattern of the sequence of their paths, between their other ends (again while there
// are such pairs). The sequence's pairs for each pair of ends are then computed once and memoised for the query
// by pathPattern (for h153 a table from each ancestor to the types one to three steps below it), and the BGP's
// parts are linked by one path, so crossSplit chains them: the ancestors, the table from each, the subClassOf
// triples into it, the products of each type.
//
// Why it is exact. Let A = (a, P, ?v) and B = (?v, Q, b) be the two path patterns (an end written the other way
// round is the inverse path's), ?v a joint variable no other operand of the join mentions; the translator's
// variables are named by no query, so nothing above the join reads ?v either, except COUNT(DISTINCT *), which
// reads every variable of a solution and turns seqJoin off. The join's solutions are those of the other operands
// joined with Join(A, B), and Join(A, B) without ?v is, with multiplicities, Σ over the values m of ?v of A's
// pairs (a, m) times B's pairs (m, b): the pairs path() enumerates for the sequence P/Q, one per route (§18.5),
// but for one case. pathPattern pairs no value that is not a node of the active graph at an end of a pattern
// whose two ends are variables (evaluated on its own, a zero-length step there only pairs the graph's nodes), while
// the sequence, walked from a constant or bound end that is no node, reaches that value again by a zero-length
// step. Such a value is one of the ends the walk started from (a link, a negated set or a closure's step only
// reaches nodes), so a merged sequence (jointSeqs) drops a joint value that equals an end it was walked from and
// is no node, unless neither step at that joint has two variable ends (A and B each one step as written with a
// constant other end). That covers a variable end bound to a value that is no node too: the walk from it meets the
// value at the joint beside it, whose step has two variable ends. ?v is then unbound in the join's solutions,
// which nothing reads.

// seqJoinOf returns x with the path patterns that share a joint variable merged (see above), or nil when there are
// none; made once per join and bound variables.
func (e *evaluator) seqJoinOf(x *algebra.Join, in []ID) algebra.Op {
	if e.opt.plainJoins || e.distinctAll {
		return nil
	}
	bound := e.boundSet(in)
	if bound.over {
		return nil
	}
	return joinRewrite(&e.seqJoins, crossKey{x, bound}, func() algebra.Op { return e.seqJoin(x, bound) })
}

// seqPart is an operand of a join as seqJoin reads it, and the path pattern it is (nil: another operator).
type seqPart struct {
	op algebra.Op
	pp *algebra.PathPattern
}

// seqJoin is seqJoinOf's work.
func (e *evaluator) seqJoin(x *algebra.Join, bound varset) algebra.Op {
	var parts []seqPart // the join's operands, left to right
	for stack := []algebra.Op{x}; len(stack) > 0; {
		op := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if j, ok := op.(*algebra.Join); ok {
			stack = append(stack, j.Right, j.Left)
			continue
		}
		pp, _ := op.(*algebra.PathPattern)
		parts = append(parts, seqPart{op: op, pp: pp})
	}
	merged := false
	for {
		i, j, v := e.seqJoint(parts, bound)
		if i < 0 {
			break
		}
		m := e.mergeSteps(parts[i].pp, parts[j].pp, v)
		parts[i] = seqPart{op: m, pp: m}
		parts = append(parts[:j], parts[j+1:]...)
		merged = true
	}
	if !merged {
		return nil
	}
	op := parts[0].op
	for _, p := range parts[1:] {
		op = &algebra.Join{Left: op, Right: p.op}
	}
	e.seqMerges++
	return op
}

// seqJoint finds two path patterns of parts joined by a joint variable (algebra.IsPathVar) at one end of each, which
// no other part mentions and the incoming solution leaves unbound: their indexes (i < j) and the variable, or -1.
func (e *evaluator) seqJoint(parts []seqPart, bound varset) (int, int, algebra.Var) {
	ends := func(pp *algebra.PathPattern) [2]algebra.Node { return [2]algebra.Node{pp.S, pp.O} }
	for i, a := range parts {
		if a.pp == nil {
			continue
		}
		for _, n := range ends(a.pp) {
			if !n.IsVar() || !algebra.IsPathVar(n.Var) || bound.has(e.slot(n.Var)) || a.pp.S == a.pp.O {
				continue
			}
			v, s := n.Var, e.slot(n.Var)
			other, ok := -1, true
			for j, b := range parts {
				if j == i || !ok {
					continue
				}
				m := e.infoOf(b.op).mentioned
				switch {
				case m.over:
					ok = false
				case !m.has(s):
				case b.pp != nil && other < 0 && b.pp.S != b.pp.O:
					other = j
				default:
					ok = false // a third mention, or one that is not a path's end
				}
			}
			if ok && other >= 0 {
				return min(i, other), max(i, other), v
			}
		}
	}
	return -1, -1, ""
}

// mergeSteps is the path pattern of the sequence of a's and b's paths through their joint variable v (see above).
func (e *evaluator) mergeSteps(a, b *algebra.PathPattern, v algebra.Var) *algebra.PathPattern {
	at := func(n algebra.Node) bool { return n.IsVar() && n.Var == v }
	// Orient a to end at v and b to start at it, a path written the other way round being its inverse's.
	if !at(a.O) && at(b.O) {
		a, b = b, a
	}
	left, from := a.Path, a.S
	if !at(a.O) {
		left, from = &algebra.PathInverse{Path: a.Path}, a.O
	}
	right, to := b.Path, b.O
	if !at(b.S) {
		right, to = &algebra.PathInverse{Path: b.Path}, b.S
	}
	seq := &algebra.PathSequence{Left: left, Right: right}
	if e.jointSeqs == nil {
		e.jointSeqs = map[*algebra.PathSequence]bool{}
	}
	// Neither step checks the joint's value when each is one step as written (no sequence seqJoin made: the
	// translation leaves none at a pattern's top) with a constant other end.
	single := func(p *algebra.PathPattern, end algebra.Node) bool {
		s, isSeq := p.Path.(*algebra.PathSequence)
		_, made := e.jointSeqs[s]
		return !end.IsVar() && !(isSeq && made)
	}
	e.jointSeqs[seq] = !(single(a, from) && single(b, to))
	return &algebra.PathPattern{S: from, Path: seq, O: to}
}

// distinctAllIn reports whether op holds a COUNT(DISTINCT *), which reads every variable of a solution (a sequence
// path's joints too), in its patterns, sub-queries or EXISTS patterns.
func distinctAllIn(op algebra.Op) bool {
	found := false
	var visit func(op algebra.Op) bool
	visit = func(op algebra.Op) bool {
		g, ok := op.(*algebra.Group)
		if !ok {
			return !found
		}
		var exprs []algebra.Expr // algebra.Walk does not look into a group's keys and aggregates
		for _, k := range g.Keys {
			exprs = append(exprs, k.Expr)
		}
		for _, a := range g.Aggregates {
			found = found || (a.Aggregate.Expr == nil && a.Aggregate.Distinct)
			exprs = append(exprs, a.Aggregate.Expr)
		}
		for _, x := range exprs {
			algebra.WalkExpr(x, func(x algebra.Expr) bool {
				if ex, ok := x.(*algebra.Exists); ok && ex.Pattern != nil {
					algebra.Walk(ex.Pattern, visit)
				}
				return true
			})
		}
		return !found
	}
	algebra.Walk(op, visit)
	return found
}

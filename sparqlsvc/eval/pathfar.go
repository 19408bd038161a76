package eval

import "github.com/ldhub/ldhub/sparqlsvc/algebra"

// A join of a BGP B with a closure path P whose far end a second BGP C binds (h81 with `*`: `?product dc:date ?date
// ; rdf:type/rdfs:subClassOf* ?ancestor . ?ancestor rdfs:label ?l` FILTER(STRSTARTS(?l, "a")), the algebra
// Join(Join(B, P), C)) ran B over every dated resource (936 000 at 10 M), the closure from each one's type, and C
// per pair. A zero-length step matches every node, so P has no domain to start from (domainFirst). When C's rows
// are far fewer than B's, the join starts from C: for each of its solutions P is anchored at the far end, which
// pathFirst walks backwards (the descendants of the ancestor, itself included for `*`), then B per node reached.
//
// Why it is exact. Join is commutative and associative over multisets of solutions: Join(Join(B, P), C) and
// Join(C, Join(B, P)) have the same solutions with the same multiplicities, only their order differs, which a join
// does not fix. Evaluating the inner join from each of C's solutions is how every join here is evaluated (by
// substitution, the right operand from each solution of the left one), with its scoping checked by exec (safe).

// farFirstMin is the factor by which C's estimated rows must be below B's for the join to start from C: the
// estimates count a FILTER as keeping every row, and each of C's solutions also walks the closure backwards.
const farFirstMin = 8

// farFirst reports whether the join x, evaluated from in, should evaluate its right operand C first (see above):
// x's left operand is, under FILTERs whose conjuncts select by substitution, a join of a BGP B (or a FILTER over
// one) with a closure path (p*, p+) whose ends are both free, one certain in B and the other certain in C (a BGP or
// a FILTER over one) and not mentioned in B; that inner join does not start from its path's domain; and C's
// estimated rows are at most 1/farFirstMin of B's. The choice is made once per join, bound variables and graph.
func (e *evaluator) farFirst(x *algebra.Join, in []ID) bool {
	if e.opt.plainJoins {
		return false
	}
	c := filteredBGPOf(x.Right)
	if c == nil || len(c.Triples) == 0 {
		return false
	}
	inner := x.Left
	for {
		f, ok := inner.(*algebra.Filter)
		if !ok {
			break
		}
		for _, ex := range f.Exprs {
			if !pushable(ex) {
				return false
			}
		}
		inner = f.Op
	}
	j, ok := inner.(*algebra.Join)
	if !ok {
		return false
	}
	side := j.Left
	pp, ok := j.Right.(*algebra.PathPattern)
	if !ok {
		side = j.Right
		if pp, ok = j.Left.(*algebra.PathPattern); !ok {
			return false
		}
	}
	switch pp.Path.(type) {
	case *algebra.PathZeroOrMore, *algebra.PathOneOrMore:
	default:
		return false
	}
	b := filteredBGPOf(side)
	if b == nil || len(b.Triples) == 0 || !pp.S.IsVar() || !pp.O.IsVar() {
		return false
	}
	bound := e.boundSet(in)
	if bound.over {
		return false
	}
	k := pathOrderKey{x, bound, e.activeName()}
	if first, ok := e.farOrders[k]; ok {
		return first
	}
	first := e.farFirstCosted(x.Right, j, side, pp, in, bound)
	if e.farOrders == nil {
		e.farOrders = map[pathOrderKey]bool{}
	}
	e.farOrders[k] = first
	return first
}

// farFirstCosted is farFirst's choice once x's shape is checked: j = Join(side, pp) (either order) is x's inner join.
func (e *evaluator) farFirstCosted(c algebra.Op, j *algebra.Join, side algebra.Op, pp *algebra.PathPattern, in []ID, bound varset) bool {
	s, o := e.slot(pp.S.Var), e.slot(pp.O.Var)
	if s == o || bound.has(s) || bound.has(o) {
		return false
	}
	bi, ci := e.infoOf(side), e.infoOf(c)
	near, far := s, o
	if !bi.certain.has(near) {
		near, far = o, s
	}
	if !bi.certain.has(near) || bi.mentioned.has(far) || !ci.certain.has(far) {
		return false
	}
	if e.domainFirstOf(j, in) != nil {
		return false // the inner join starts from its path's domain, which C's rows need not be fewer than
	}
	rowsB, rowsC := e.rowsEstimate(side, bound), e.rowsEstimate(c, bound)
	return rowsC*farFirstMin <= rowsB
}

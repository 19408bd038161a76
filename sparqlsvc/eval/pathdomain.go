package eval

import (
	"slices"

	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A join of a BGP with a property path whose start the BGP binds (h81: `?product dc:date ?date ; rdf:type ?c .
// ?c rdfs:subClassOf+ ?ancestor`) ran the path once per solution of the BGP: every dated resource at 10 M, 936 000
// of them, read its type and looked its walk up, although only the 29 000 products have a type with a superclass.
// A path that cannot take a zero-length step starts only at the subjects of its first link (the objects, for an
// inverse link): `rdfs:subClassOf+` only at a class with a superclass. When those nodes are few and the BGP's rows
// with the start bound to one of them are far fewer than its rows in all, the BGP is evaluated once per such node
// with the start bound, and the path from each of its solutions as before: the domain first.
//
// Why it is exact. Let the join be Join(B, P), P a path pattern with an end ?v certain in B (bound in every solution
// of B) and free in the solution coming in. P's pairs from a node a exist only when a is in the domain D of P's
// first link (it must take one step of it first), so the join's solutions are those of B with ?v = a for a in D,
// each joined with P's pairs from a, with the same multiplicities: B evaluated with ?v bound to a gives exactly B's
// solutions with ?v = a (a BGP, or a FILTER over one, selects by substitution), and P is then evaluated from each of
// them as the join would. Only the order of the solutions differs, which a join does not fix. Join(P, B) is the
// same join, so a path written before the BGP is read the same way (evaluated first from both free ends, it would
// walk from every node of the graph).

// domainPlan is a join's choice for the domain first: the path's end variable's slot, the nodes in its first
// link's domain, ascending, and the join's two sides (the path written first or second).
type domainPlan struct {
	slot      int
	nodes     []ID
	bgp, path algebra.Op
}

// domainKey names a join's choice for one set of variables bound coming in and the active graph.
type domainKey struct {
	x     *algebra.Join
	bound varset
	graph ID
}

// domainFirstMin is the factor by which the domain first must save rows of the BGP (its estimated rows against the
// rows its start's domain gives, plus the domain's own scan) to be taken: the estimates are rough.
const domainFirstMin = 4

// domainScanMin is the factor by which the BGP's estimated rows must exceed its path's first link's rows for the
// domain to be read at all: the choice reads the link's rows and counts the BGP's rows from each node of its domain,
// which must stay small against the join it may replace.
const domainScanMin = 16

// domainFirstOf returns x's domain plan when the join x, evaluated from in, should start from its path's domain (see
// above), else nil; the choice is made once per join, set of bound variables and active graph.
func (e *evaluator) domainFirstOf(x *algebra.Join, in []ID) *domainPlan {
	_, right := x.Right.(*algebra.PathPattern)
	_, left := x.Left.(*algebra.PathPattern)
	if right == left || e.opt.plainJoins {
		return nil
	}
	bound := e.boundSet(in)
	if bound.over {
		return nil
	}
	k := domainKey{x, bound, e.activeName()}
	if p, ok := e.domainPlans[k]; ok {
		return p
	}
	p := e.makeDomainPlan(x, in, bound)
	if e.domainPlans == nil {
		e.domainPlans = map[domainKey]*domainPlan{}
	}
	e.domainPlans[k] = p
	return p
}

// makeDomainPlan is domainFirstOf's work.
func (e *evaluator) makeDomainPlan(x *algebra.Join, in []ID, bound varset) *domainPlan {
	side := x.Left
	pp, ok := x.Right.(*algebra.PathPattern)
	if !ok { // a join is commutative: the path may be written first
		side, pp = x.Right, x.Left.(*algebra.PathPattern)
	}
	bgp := filteredBGPOf(side)
	if bgp == nil || len(bgp.Triples) == 0 {
		return nil
	}
	anchored := func(n algebra.Node) bool { return !n.IsVar() || bound.has(e.slot(n.Var)) }
	if anchored(pp.S) || anchored(pp.O) {
		return nil // pathFirst's case, or the path runs from a bound end as it is
	}
	certain := e.infoOf(side).certain
	var v algebra.Var
	fromSubject := true
	switch {
	case certain.has(e.slot(pp.S.Var)):
		v = pp.S.Var
	case certain.has(e.slot(pp.O.Var)):
		v, fromSubject = pp.O.Var, false
	default:
		return nil
	}
	link, subjects, ok := firstLink(pp.Path, fromSubject)
	if !ok {
		return nil
	}
	p := e.constID(rdfIRI(link.IRI))
	if p == 0 {
		return nil
	}
	rows := e.rowsEstimate(side, bound)
	n := 0
	for _, g := range e.active {
		n += e.count(g, 0, p, 0)
	}
	if float64(n)*domainScanMin > rows {
		return nil // reading the domain, and counting the BGP's rows from each of its nodes, would cost too much
	}
	// The patterns of the BGP that read ?v (once) with a constant predicate: the rows of the cheapest with ?v bound
	// to a node give the BGP's cost from that node.
	vs := e.slot(v)
	var probes []algebra.Triple
	for _, t := range bgp.Triples {
		if !t.P.IsVar() && (t.S.IsVar() && t.S.Var == v) != (t.O.IsVar() && t.O.Var == v) {
			probes = append(probes, t)
		}
	}
	if len(probes) == 0 {
		return nil
	}
	end := func(n algebra.Node, a ID) ID {
		switch {
		case !n.IsVar():
			return e.constID(n.Term)
		case n.Var == v:
			return a
		}
		return in[e.slot(n.Var)]
	}
	var nodes []ID
	for _, g := range e.active {
		e.scan(g, 0, p, 0, func(s, _, o ID) bool {
			if subjects {
				nodes = append(nodes, s)
			} else {
				nodes = append(nodes, o)
			}
			return true
		})
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	limit := (rows - float64(n)*domainFirstMin) / domainFirstMin // the rows from the domain that still pay
	cost := 0.0
	for i, a := range nodes {
		if i&1023 == 1023 && e.check() != nil {
			return nil // past the time limit or cancelled: the join as written meets it at its first step
		}
		best := -1
		for _, t := range probes {
			c := 0
			for _, g := range e.active {
				c += e.count(g, end(t.S, a), e.constID(t.P.Term), end(t.O, a))
			}
			if best < 0 || c < best {
				best = c
			}
		}
		if cost += float64(best); cost > limit {
			return nil
		}
	}
	if err := e.holdBytes(int64(4*len(nodes)) + 64); err != nil {
		return nil // the join as it is, which needs no such list
	}
	return &domainPlan{slot: vs, nodes: nodes, bgp: side, path: pp}
}

// filteredBGPOf returns op when it is a BGP, or the BGP under it when it is a FILTER whose conjuncts select by
// substitution (pushable) over one, else nil: either gives exactly its solutions with the variables a row binds.
func filteredBGPOf(op algebra.Op) *algebra.BGP {
	if f, ok := op.(*algebra.Filter); ok {
		for _, c := range f.Exprs {
			if !pushable(c) {
				return nil
			}
		}
		op = f.Op
	}
	b, _ := op.(*algebra.BGP)
	return b
}

// firstLink returns the link a path must take first from its subject end (fromSubject) or its object end, and
// whether the nodes it can start at are that link's subjects (else its objects); ok is false for a path that may
// take no step, or whose first step is not one link (an alternative, a negated set).
func firstLink(p algebra.Path, fromSubject bool) (link *algebra.PathLink, subjects bool, ok bool) {
	switch x := p.(type) {
	case *algebra.PathLink:
		return x, fromSubject, true
	case *algebra.PathInverse:
		return firstLink(x.Path, !fromSubject)
	case *algebra.PathOneOrMore:
		return firstLink(x.Path, fromSubject)
	case *algebra.PathSequence:
		if fromSubject {
			return firstLink(x.Left, true)
		}
		return firstLink(x.Right, false)
	}
	return nil, false, false
}

// domainFirst evaluates a join from in by its plan: its BGP once per node of the domain with the path's end bound
// to it, and the path from each of its solutions.
func (e *evaluator) domainFirst(d *domainPlan, in []ID, emit emitFn, errp *error) bool {
	row := slices.Clone(in)
	path := func(l []ID) bool { return e.exec(d.path, l, emit, errp) }
	for _, a := range d.nodes {
		row[d.slot] = a
		if !e.exec(d.bgp, row, path, errp) {
			return false
		}
	}
	return true
}

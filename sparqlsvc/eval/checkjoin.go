package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A join whose right operand is one pattern `?x <p> <o>` with a constant predicate and object (q10:
// `?product rdf:type/rdfs:subClassOf* inst:ProductType2 . ?product a bsbm:Product`) checks each left solution by
// evaluating the pattern with its ?x: a search of the subject's triples in SPO, at random, for each of about 7 000
// products at 10 M, three quarters of q10's CPU. The pattern's subjects are the run of (p, o) in POS, in ascending
// order. Once the join has checked 64 left solutions, or a 1/checkRunShare of that run if more, the run's subjects
// are set in a bitmap, charged to the query's memory budget, and every further left solution is checked by one
// bit: reading the run costs a few nanoseconds a row, a probe a cache miss or two.
//
// Why it is exact. A graph holds a triple once, so the pattern has, for ?x bound to s, one solution when (s, p, o)
// is in the active graph and none otherwise; joined with a left solution binding ?x to s it gives that solution
// once or not at all, which is what the bit says (ids above the run's last subject, inline values and the query's
// computed terms are no subject of it). A left solution that leaves ?x unbound is joined by evaluating the pattern,
// as before. Only over one graph of the index's own dictionary (ownGraph); a bitmap is made for one graph.

// checkSite is a join's check pattern (checkJoinOf): ?x's slot, p and o, the graph its bitmap was read from, the
// left solutions checked so far and the bitmap (nil until made).
type checkSite struct {
	slot   int
	p, o   ID
	g      *index.Graph
	checks int
	due    int
	bits   []uint64
	off    bool // the run is too large for a bitmap: checked by evaluating the pattern
}

// checkRunShare: a check pattern's bitmap is made after as many checks as its run's rows over this.
const checkRunShare = 128

// checkMaxBytes bounds a check pattern's bitmap: past it the pattern is evaluated per left solution as written.
const checkMaxBytes = 8 << 20

// checkJoinOf returns the check site of a join's right operand when it is one pattern `?x <p> <o>` whose ?x the
// left operand mentions, else nil; made once per operand.
func (e *evaluator) checkJoinOf(left, right algebra.Op) *checkSite {
	b, ok := right.(*algebra.BGP)
	if !ok || len(b.Triples) != 1 || e.opt.plainJoins {
		return nil
	}
	return madeOnce(&e.checkSites, b, func() *checkSite {
		t := b.Triples[0]
		if !t.S.IsVar() || t.P.IsVar() || t.O.IsVar() {
			return nil
		}
		s := e.slot(t.S.Var)
		if m := e.infoOf(left).mentioned; m.over || !m.has(s) {
			return nil
		}
		p, o := e.constID(t.P.Term), e.constID(t.O.Term)
		if p == 0 || o == 0 {
			return nil // no such triple: the pattern answers at once
		}
		return &checkSite{slot: s, p: p, o: o}
	})
}

// checkJoin evaluates Join(left, right), right being c's pattern, from in (see above).
func (e *evaluator) checkJoin(c *checkSite, left, right algebra.Op, in []ID, emit emitFn, errp *error) bool {
	g := e.ownGraph()
	if g != c.g {
		c.g, c.checks, c.bits, c.off = g, 0, nil, false
		if g != nil {
			c.due = max(64, g.Match(0, c.p, c.o).Len()/checkRunShare)
		}
		if e.opt.checkAt > 0 {
			c.due = e.opt.checkAt
		}
	}
	return e.exec(left, in, func(l []ID) bool {
		x := l[c.slot]
		if x == 0 || g == nil || c.off {
			return e.exec(right, l, emit, errp)
		}
		if c.bits == nil {
			if c.checks++; c.checks < c.due {
				return e.exec(right, l, emit, errp)
			}
			if err := e.checkBits(c); err != nil {
				*errp = err
				return false
			}
			if c.off {
				return e.exec(right, l, emit, errp)
			}
		}
		if i := int(x >> 6); i < len(c.bits) && c.bits[i]&(1<<(x&63)) != 0 {
			return emit(l)
		}
		return true
	}, errp)
}

// checkBits sets c.bits from the subjects of (p, o) in c.g, or c.off when the bitmap would be too large.
func (e *evaluator) checkBits(c *checkSite) error {
	m := c.g.Match(0, c.p, c.o)
	if m.Perm != index.POS || m.Len() == 0 {
		c.off = true
		return nil
	}
	top, _, _ := m.At(m.Len() - 1) // the largest subject: POS holds a run's subjects in ascending order
	n := int(top>>6) + 1
	if 8*n > checkMaxBytes {
		c.off = true
		return nil
	}
	if err := e.holdBytes(int64(8 * n)); err != nil {
		return err
	}
	bits := make([]uint64, n)
	for i := range m.Len() {
		s, _, _ := m.At(i)
		bits[s>>6] |= 1 << (s & 63)
	}
	c.bits = bits
	return nil
}

package eval

import (
	"fmt"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// tripleSet collects triples once each, in first-seen order (CONSTRUCT returns a set).
type tripleSet struct {
	seen map[[3]rdf.Term]bool
	out  []rdf.Quad
}

func (s *tripleSet) add(q rdf.Quad) {
	if s.seen == nil {
		s.seen = map[[3]rdf.Term]bool{}
	}
	k := [3]rdf.Term{q.S, q.P, q.O}
	k[2].Lang = strings.ToLower(k[2].Lang) // tags compare case-insensitively; only objects carry them
	if s.seen[k] {
		return
	}
	s.seen[k] = true
	s.out = append(s.out, q)
}

func (e *evaluator) construct(q *algebra.Query, res *Result) error {
	var set tripleSet
	n := 0
	err := e.run(q.Op, e.newRow(), func(row []ID) bool {
		n++
		fresh := map[string]rdf.Term{}
		inst := func(nd algebra.Node) rdf.Term {
			if nd.IsVar() {
				return e.t.term(row[e.slot(nd.Var)])
			}
			if nd.Term.IsBlank() { // template blank nodes are new for every solution
				b, ok := fresh[nd.Term.Value]
				if !ok {
					b = rdf.Blank(fmt.Sprintf("c%d_%s", n, nd.Term.Value))
					fresh[nd.Term.Value] = b
				}
				return b
			}
			return nd.Term
		}
		for _, t := range q.Template {
			s, p, o := inst(t.S), inst(t.P), inst(t.O)
			if s.IsZero() || p.IsZero() || o.IsZero() || s.IsLiteral() || !p.IsIRI() {
				continue // an unbound or ill-placed term drops the triple (§16.2)
			}
			set.add(rdf.Triple(s, p, o))
		}
		return true
	})
	res.Triples = set.out
	return err
}

// describe returns, for each resource, its triples as subject plus the closure over blank-node objects (a
// concise bounded description).
func (e *evaluator) describe(q *algebra.Query, res *Result) error {
	var targets []ID
	seenT := map[ID]bool{}
	addT := func(id ID) {
		if id != 0 && !seenT[id] {
			seenT[id] = true
			targets = append(targets, id)
		}
	}
	var vars []int
	for _, n := range q.Describe {
		if n.IsVar() {
			vars = append(vars, e.slot(n.Var))
		} else {
			addT(e.constID(n.Term))
		}
	}
	if q.Op != nil && len(vars) > 0 {
		if err := e.run(q.Op, e.newRow(), func(row []ID) bool {
			for _, s := range vars {
				if e.mayMatch(row[s]) {
					addT(row[s])
				}
			}
			return true
		}); err != nil {
			return err
		}
	}
	var set tripleSet
	for len(targets) > 0 {
		id := targets[0]
		targets = targets[1:]
		for _, g := range e.active {
			e.scan(g, id, 0, 0, func(s, p, o ID) bool {
				set.add(rdf.Triple(e.t.term(s), e.t.term(p), e.t.term(o)))
				if e.t.term(o).IsBlank() {
					addT(o)
				}
				return true
			})
		}
	}
	res.Triples = set.out
	return nil
}

package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// tripleSet remembers the triples already delivered, as ids (12 bytes a key), charging each against the budget.
// Language tags compare case-insensitively (only objects carry them), so a tagged object is keyed by its
// lower-cased form's id.
type tripleSet struct {
	e    *evaluator
	seen map[[3]ID]struct{}
}

func (s *tripleSet) add(sid, pid, oid ID) (bool, error) {
	if s.seen == nil {
		s.seen = map[[3]ID]struct{}{}
	}
	if o := s.e.t.term(oid); o.Lang != "" && o.Lang != strings.ToLower(o.Lang) {
		o.Lang = strings.ToLower(o.Lang)
		oid = s.e.t.id(o)
	}
	k := [3]ID{sid, pid, oid}
	if _, ok := s.seen[k]; ok {
		return false, nil
	}
	if err := s.e.holdBytes(48); err != nil {
		return false, err
	}
	s.seen[k] = struct{}{}
	return true, nil
}

// construct delivers the template's triples for each solution, each once. Triples with a template blank node
// are new for every solution, so they are only compared within their own solution; the others go through the
// set of what was delivered.
func (e *evaluator) construct(q *algebra.Query, sink Sink) error {
	set := tripleSet{e: e}
	n := 0
	type inst struct {
		id    ID
		term  rdf.Term
		fresh bool
	}
	var serr error
	var local [][3]rdf.Term
	emit := func(t rdf.Quad) bool {
		if serr = e.deliver(); serr != nil {
			return false
		}
		serr = sink.Triple(t)
		return serr == nil
	}
	err := e.run(q.Op, e.newRow(), func(row []ID) bool {
		n++
		local = local[:0]
		at := func(nd algebra.Node) inst {
			if nd.IsVar() {
				id := row[e.slot(nd.Var)]
				return inst{id: id, term: e.t.term(id)}
			}
			if nd.Term.IsBlank() { // template blank nodes are new for every solution
				return inst{term: rdf.Blank(fmt.Sprintf("c%d_%s", n, nd.Term.Value)), fresh: true}
			}
			return inst{id: e.constID(nd.Term), term: nd.Term}
		}
		for _, t := range q.Template {
			s, p, o := at(t.S), at(t.P), at(t.O)
			if s.term.IsZero() || p.term.IsZero() || o.term.IsZero() || s.term.IsLiteral() || !p.term.IsIRI() {
				continue // an unbound or ill-placed term drops the triple (§16.2)
			}
			if s.fresh || p.fresh || o.fresh {
				k := [3]rdf.Term{s.term, p.term, o.term}
				if slices.Contains(local, k) {
					continue
				}
				local = append(local, k)
			} else {
				if s.id == 0 {
					s.id = e.t.id(s.term)
				}
				if p.id == 0 {
					p.id = e.t.id(p.term)
				}
				if o.id == 0 {
					o.id = e.t.id(o.term)
				}
				fresh, err := set.add(s.id, p.id, o.id)
				if err != nil {
					serr = err
					return false
				}
				if !fresh {
					continue
				}
			}
			if !emit(rdf.Triple(s.term, p.term, o.term)) {
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	return serr
}

// describe delivers, for each resource, its triples as subject plus the closure over blank-node objects (a
// concise bounded description).
func (e *evaluator) describe(q *algebra.Query, sink Sink) error {
	var targets []ID
	seenT := map[ID]bool{}
	var serr error
	addT := func(id ID) {
		if id != 0 && !seenT[id] {
			if err := e.holdBytes(16); err != nil {
				serr = err
				return
			}
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
			return serr == nil
		}); err != nil {
			return err
		}
	}
	set := tripleSet{e: e}
	for len(targets) > 0 && serr == nil {
		id := targets[0]
		targets = targets[1:]
		for _, g := range e.active {
			e.scan(g, id, 0, 0, func(s, p, o ID) bool {
				if serr = e.check(); serr != nil {
					return false
				}
				fresh, err := set.add(s, p, o)
				if serr = err; err != nil || !fresh {
					return err == nil
				}
				if serr = e.deliver(); serr != nil {
					return false
				}
				ot := e.t.term(o)
				if serr = sink.Triple(rdf.Triple(e.t.term(s), e.t.term(p), ot)); serr != nil {
					return false
				}
				if ot.IsBlank() {
					addT(o)
				}
				return serr == nil
			})
			if serr != nil {
				break
			}
		}
	}
	return serr
}

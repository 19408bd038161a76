package parser

import (
	"strconv"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// groupGraphPattern is '{' ( SubSelect | GroupGraphPatternSub ) '}'.
func (p *parser) groupGraphPattern() (*algebra.GroupPattern, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	// Aggregates are never allowed inside a pattern, even one inside an EXISTS in a SELECT expression.
	savedAgg, savedIn := p.aggAllowed, p.inAggregate
	p.aggAllowed, p.inAggregate = false, false
	defer func() { p.aggAllowed, p.inAggregate = savedAgg, savedIn }()

	if err := p.expect("{"); err != nil {
		return nil, err
	}
	p.bgp++
	defer func() { p.bgp++ }()
	g := &algebra.GroupPattern{}
	if p.isKeyword("SELECT") {
		sub := &algebra.QuerySyntax{}
		if err := p.selectQuery(sub, true); err != nil {
			return nil, err
		}
		g.Elements = []algebra.Element{&algebra.SubSelect{Query: sub}}
		return g, p.expect("}")
	}

	// scope holds the variables in scope after the elements so far, for BIND's check; kept up to date as
	// elements are added so that a group of many BINDs stays linear.
	scope := map[algebra.Var]bool{}
	add := func(e algebra.Element) {
		g.Elements = append(g.Elements, e)
		algebra.MarkInScope(e, scope)
	}
	var block *algebra.TriplesBlock
	flush := func() {
		if block != nil && len(block.Triples) > 0 {
			add(block)
		}
		block = nil
	}
	needDot := false // the previous triples were not followed by '.'
	for {
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		if t.kind == tPunct && t.text == "}" {
			p.take()
			flush()
			return g, nil
		}
		if isPatternKeyword(t) || t.kind == tPunct && t.text == "{" {
			flush()
			e, err := p.graphPatternNotTriples(scope)
			if err != nil {
				return nil, err
			}
			// A FILTER does not end the basic graph pattern: triples on both sides of it form one BGP, which
			// matters for blank-node label scope. Every other element does.
			if _, ok := e.(*algebra.FilterElement); !ok {
				p.bgp++
			}
			add(e)
			p.accept(".")
			needDot = false
			continue
		}
		if needDot {
			return nil, p.unexpected("'.' or '}'")
		}
		if !startsTriples(t) {
			return nil, p.unexpected("a triple pattern, a graph pattern or '}'")
		}
		if block == nil {
			block = &algebra.TriplesBlock{}
		}
		if block.Triples, err = p.triplesSameSubject(block.Triples, true); err != nil {
			return nil, err
		}
		needDot = !p.accept(".")
	}
}

func isPatternKeyword(t token) bool {
	if t.kind != tKeyword {
		return false
	}
	switch t.text {
	case "OPTIONAL", "MINUS", "GRAPH", "SERVICE", "FILTER", "BIND", "VALUES":
		return true
	}
	return false
}

// startsTriples reports whether t can begin TriplesSameSubjectPath.
func startsTriples(t token) bool {
	switch t.kind {
	case tVar, tIRI, tPName, tBlank, tString, tInteger, tDecimal, tDouble, tNil, tAnon:
		return true
	case tKeyword:
		return t.text == "TRUE" || t.text == "FALSE"
	case tPunct:
		return t.text == "[" || t.text == "("
	}
	return false
}

// graphPatternNotTriples parses one of GroupOrUnionGraphPattern, OptionalGraphPattern, MinusGraphPattern,
// GraphGraphPattern, ServiceGraphPattern, Filter, Bind or InlineData. scope holds the variables in scope before it
// (for BIND's check).
func (p *parser) graphPatternNotTriples(scope map[algebra.Var]bool) (algebra.Element, error) {
	t, _ := p.take()
	if t.kind == tPunct { // '{'
		p.peeked, p.tok = true, t // give the '{' back to groupGraphPattern
		first, err := p.groupGraphPattern()
		if err != nil {
			return nil, err
		}
		groups := []*algebra.GroupPattern{first}
		for p.acceptKeyword("UNION") {
			next, err := p.groupGraphPattern()
			if err != nil {
				return nil, err
			}
			groups = append(groups, next)
		}
		if len(groups) == 1 {
			return &algebra.GroupElement{Group: first}, nil
		}
		return &algebra.UnionElement{Groups: groups}, nil
	}
	switch t.text {
	case "OPTIONAL":
		sub, err := p.groupGraphPattern()
		return &algebra.OptionalElement{Group: sub}, err
	case "MINUS":
		sub, err := p.groupGraphPattern()
		return &algebra.MinusElement{Group: sub}, err
	case "GRAPH":
		name, err := p.varOrIRI()
		if err != nil {
			return nil, err
		}
		sub, err := p.groupGraphPattern()
		return &algebra.GraphElement{Name: name, Group: sub}, err
	case "SERVICE":
		silent := p.acceptKeyword("SILENT")
		name, err := p.varOrIRI()
		if err != nil {
			return nil, err
		}
		sub, err := p.groupGraphPattern()
		return &algebra.ServiceElement{Name: name, Silent: silent, Group: sub}, err
	case "FILTER":
		e, ok, err := p.constraint()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, p.unexpected("'(', a function call or a built-in call after FILTER")
		}
		return &algebra.FilterElement{Expr: e}, nil
	case "BIND":
		if err := p.expect("("); err != nil {
			return nil, err
		}
		e, err := p.expression()
		if err != nil {
			return nil, err
		}
		if err := p.expectKeyword("AS"); err != nil {
			return nil, err
		}
		vt, _ := p.peek()
		v, err := p.variable()
		if err != nil {
			return nil, err
		}
		if scope[v] {
			return nil, p.errorf(vt, "BIND assigns ?%s, which is already in scope in this group", v)
		}
		return &algebra.BindElement{Expr: e, Var: v}, p.expect(")")
	case "VALUES":
		tab, err := p.dataBlock()
		return &algebra.ValuesElement{Data: tab}, err
	}
	return nil, p.errorf(t, "expected a graph pattern but found %s", t)
}

// varOrIRI is Var | iri.
func (p *parser) varOrIRI() (algebra.Node, error) {
	t, err := p.peek()
	if err != nil {
		return algebra.Node{}, err
	}
	if t.kind == tVar {
		p.take()
		return algebra.VarNode(algebra.Var(t.text)), nil
	}
	if t.kind == tIRI || t.kind == tPName {
		s, err := p.iri()
		return algebra.TermNode(rdf.IRI(s)), err
	}
	return algebra.Node{}, p.unexpected("a variable or an IRI")
}

// triplesSameSubject parses TriplesSameSubject (paths false, CONSTRUCT templates) or TriplesSameSubjectPath
// (paths true), appending the triples to out.
func (p *parser) triplesSameSubject(out []algebra.TriplePath, paths bool) ([]algebra.TriplePath, error) {
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	if t.kind == tPunct && (t.text == "[" || t.text == "(") {
		subj, out, err := p.graphNode(out, paths)
		if err != nil {
			return nil, err
		}
		// TriplesNode PropertyList: the property list may be empty.
		if p.startsVerb(paths) {
			return p.propertyList(subj, out, paths)
		}
		return out, nil
	}
	subj, out, err := p.graphNode(out, paths)
	if err != nil {
		return nil, err
	}
	if !p.startsVerb(paths) {
		return nil, p.unexpected("a predicate")
	}
	return p.propertyList(subj, out, paths)
}

func (p *parser) startsVerb(paths bool) bool {
	t, err := p.peek()
	if err != nil {
		return false
	}
	switch t.kind {
	case tVar, tIRI, tPName:
		return true
	case tKeyword:
		return t.raw == "a"
	case tPunct:
		return paths && (t.text == "^" || t.text == "!" || t.text == "(")
	}
	return false
}

// propertyList parses PropertyListNotEmpty or PropertyListPathNotEmpty for subject s.
func (p *parser) propertyList(s algebra.Node, out []algebra.TriplePath, paths bool) ([]algebra.TriplePath, error) {
	for {
		var pred algebra.Node
		var path algebra.Path
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		switch {
		case t.kind == tVar:
			p.take()
			pred = algebra.VarNode(algebra.Var(t.text))
		case !paths && t.kind == tKeyword && t.raw == "a":
			p.take()
			pred = algebra.TermNode(rdf.IRI(rdf.RDFType))
		case !paths:
			s, err := p.iri()
			if err != nil {
				return nil, err
			}
			pred = algebra.TermNode(rdf.IRI(s))
		default:
			if path, err = p.path(); err != nil {
				return nil, err
			}
			if l, ok := path.(*algebra.PathLink); ok {
				pred, path = algebra.TermNode(rdf.IRI(l.IRI)), nil
			}
		}
		for {
			// The object's own triples ([ ... ] or a collection) follow the triple that uses it, so patterns
			// read in the order written.
			o, nested, err := p.graphNode(nil, paths)
			if err != nil {
				return nil, err
			}
			out = append(out, algebra.TriplePath{S: s, P: pred, Path: path, O: o})
			out = append(out, nested...)
			if !p.accept(",") {
				break
			}
		}
		if !p.accept(";") {
			return out, nil
		}
		for p.accept(";") {
		}
		if !p.startsVerb(paths) {
			return out, nil
		}
	}
}

// graphNode parses GraphNode / GraphNodePath: a variable, a term, a blank node property list or a collection.
// The triples of property lists and collections are appended to out.
func (p *parser) graphNode(out []algebra.TriplePath, paths bool) (algebra.Node, []algebra.TriplePath, error) {
	if err := p.enter(); err != nil {
		return algebra.Node{}, nil, err
	}
	defer p.leave()
	t, err := p.peek()
	if err != nil {
		return algebra.Node{}, nil, err
	}
	switch t.kind {
	case tVar:
		p.take()
		return algebra.VarNode(algebra.Var(t.text)), out, nil
	case tIRI, tPName:
		s, err := p.iri()
		return algebra.TermNode(rdf.IRI(s)), out, err
	case tString, tInteger, tDecimal, tDouble:
		l, err := p.literal()
		return algebra.TermNode(l), out, err
	case tBlank:
		p.take()
		if !p.inTemplate {
			if id, ok := p.bnodeBGP[t.text]; ok && id != p.bgp {
				return algebra.Node{}, nil, p.errorf(t, "blank node _:%s is used in more than one basic graph pattern", t.text)
			}
			p.bnodeBGP[t.text] = p.bgp
		}
		return algebra.TermNode(rdf.Blank(t.text)), out, nil
	case tAnon:
		p.take()
		return algebra.TermNode(p.freshBlank()), out, nil
	case tNil:
		p.take()
		return algebra.TermNode(rdf.IRI(rdf.RDFNil)), out, nil
	case tKeyword:
		if t.text == "TRUE" || t.text == "FALSE" {
			p.take()
			return algebra.TermNode(rdf.Literal(lower(t.text), rdf.XSDBoolean)), out, nil
		}
	case tPunct:
		switch t.text {
		case "[":
			p.take()
			b := algebra.TermNode(p.freshBlank())
			if !p.startsVerb(paths) {
				return algebra.Node{}, nil, p.unexpected("a predicate")
			}
			if out, err = p.propertyList(b, out, paths); err != nil {
				return algebra.Node{}, nil, err
			}
			return b, out, p.expect("]")
		case "(":
			p.take()
			var items []algebra.Node
			for !p.accept(")") {
				var n algebra.Node
				if n, out, err = p.graphNode(out, paths); err != nil {
					return algebra.Node{}, nil, err
				}
				items = append(items, n)
			}
			if len(items) == 0 {
				return algebra.TermNode(rdf.IRI(rdf.RDFNil)), out, nil
			}
			cells := make([]algebra.Node, len(items))
			for i := range cells {
				cells[i] = algebra.TermNode(p.freshBlank())
			}
			for i, item := range items {
				rest := algebra.TermNode(rdf.IRI(rdf.RDFNil))
				if i+1 < len(cells) {
					rest = cells[i+1]
				}
				out = append(out,
					algebra.TriplePath{S: cells[i], P: algebra.TermNode(rdf.IRI(rdf.RDFFirst)), O: item},
					algebra.TriplePath{S: cells[i], P: algebra.TermNode(rdf.IRI(rdf.RDFRest)), O: rest})
			}
			return cells[0], out, nil
		}
	}
	return algebra.Node{}, nil, p.unexpected("a variable, an IRI, a literal or a blank node")
}

// freshBlank mints a blank node for [] and collections. Its label starts with '.', which no query can write, so it
// never meets a labelled blank node of the query.
func (p *parser) freshBlank() rdf.Term {
	p.nAnon++
	return rdf.Blank(".b" + strconv.Itoa(p.nAnon))
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// path parses Path: PathAlternative.
func (p *parser) path() (algebra.Path, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	left, err := p.pathSequence()
	if err != nil {
		return nil, err
	}
	for p.accept("|") {
		right, err := p.pathSequence()
		if err != nil {
			return nil, err
		}
		left = &algebra.PathAlternative{Left: left, Right: right}
	}
	return left, nil
}

// pathSequence is PathEltOrInverse ( '/' PathEltOrInverse )*.
func (p *parser) pathSequence() (algebra.Path, error) {
	left, err := p.pathEltOrInverse()
	if err != nil {
		return nil, err
	}
	for p.accept("/") {
		right, err := p.pathEltOrInverse()
		if err != nil {
			return nil, err
		}
		left = &algebra.PathSequence{Left: left, Right: right}
	}
	return left, nil
}

// pathEltOrInverse is PathElt | '^' PathElt, PathElt being PathPrimary PathMod?.
func (p *parser) pathEltOrInverse() (algebra.Path, error) {
	inverse := p.accept("^")
	prim, err := p.pathPrimary()
	if err != nil {
		return nil, err
	}
	switch {
	case p.accept("*"):
		prim = &algebra.PathZeroOrMore{Path: prim}
	case p.accept("+"):
		prim = &algebra.PathOneOrMore{Path: prim}
	case p.accept("?"):
		prim = &algebra.PathZeroOrOne{Path: prim}
	}
	if inverse {
		prim = &algebra.PathInverse{Path: prim}
	}
	return prim, nil
}

// pathPrimary is iri | 'a' | '!' PathNegatedPropertySet | '(' Path ')'.
func (p *parser) pathPrimary() (algebra.Path, error) {
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	switch {
	case t.kind == tIRI || t.kind == tPName:
		s, err := p.iri()
		return &algebra.PathLink{IRI: s}, err
	case t.kind == tKeyword && t.raw == "a":
		p.take()
		return &algebra.PathLink{IRI: rdf.RDFType}, nil
	case t.kind == tPunct && t.text == "!":
		p.take()
		return p.negatedPropertySet()
	case t.kind == tPunct && t.text == "(":
		p.take()
		inner, err := p.path()
		if err != nil {
			return nil, err
		}
		return inner, p.expect(")")
	}
	return nil, p.unexpected("a property path")
}

// negatedPropertySet parses what follows '!' and applies the §18.2.2.4 translation: forward members form one
// PathNegated, inverse members the inverse of another, and an alternative joins the two when both occur.
func (p *parser) negatedPropertySet() (algebra.Path, error) {
	var fwd, inv []string
	one := func() error {
		inverse := p.accept("^")
		t, err := p.peek()
		if err != nil {
			return err
		}
		var s string
		if t.kind == tKeyword && t.raw == "a" {
			p.take()
			s = rdf.RDFType
		} else if s, err = p.iri(); err != nil {
			return err
		}
		if inverse {
			inv = append(inv, s)
		} else {
			fwd = append(fwd, s)
		}
		return nil
	}
	switch {
	case p.accept("("):
		for {
			if err := one(); err != nil {
				return nil, err
			}
			if !p.accept("|") {
				break
			}
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	default:
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		if t.kind == tNil {
			p.take()
			return &algebra.PathNegated{}, nil
		}
		if err := one(); err != nil {
			return nil, err
		}
	}
	switch {
	case len(inv) == 0:
		return &algebra.PathNegated{IRIs: fwd}, nil
	case len(fwd) == 0:
		return &algebra.PathInverse{Path: &algebra.PathNegated{IRIs: inv}}, nil
	}
	return &algebra.PathAlternative{
		Left:  &algebra.PathNegated{IRIs: fwd},
		Right: &algebra.PathInverse{Path: &algebra.PathNegated{IRIs: inv}},
	}, nil
}

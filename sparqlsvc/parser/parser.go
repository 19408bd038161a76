// Package parser is a hand-written recursive-descent parser for the SPARQL 1.1 Query language (SPARQL 1.1 §19).
// It builds the syntax tree of sparqlsvc/algebra, checks the side conditions of the grammar that the productions
// alone do not express (variable scope of BIND and SELECT expressions, grouping rules, where aggregates may occur,
// blank-node label scope, VALUES row widths), and translates the result to the algebra.
//
// Errors are *rdf.SyntaxError with Syntax "sparql" and the line and column (in characters) of the offending
// token, so messages read "sparql: line 3, column 12: expected '}' but found 'FILTER'".
package parser

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// Options configure parsing.
type Options struct {
	// Base is the IRI relative references resolve against until the query's own BASE.
	Base string
	// Prefixes are in effect before the query's own PREFIX declarations, which override them: an endpoint's
	// well-known prefixes (rdf:, xsd:, ...). They are not added to the syntax tree's Prefixes.
	Prefixes []rdf.Prefix
	// MaxDepth bounds the nesting of groups, expressions and paths (rdf.DefaultMaxDepth when zero), so that a
	// hostile query cannot exhaust the stack.
	MaxDepth int
}

// Parse parses a query and translates it to the algebra.
func Parse(query string, o Options) (*algebra.Query, error) {
	syn, err := ParseSyntax(query, o)
	if err != nil {
		return nil, err
	}
	q, err := algebra.Translate(syn)
	if err != nil {
		return nil, fmt.Errorf("sparql: translating to algebra: %w", err)
	}
	return q, nil
}

// ParseSyntax parses a query into its syntax tree.
func ParseSyntax(query string, o Options) (*algebra.QuerySyntax, error) {
	if !utf8.ValidString(query) {
		// Bytes that are not UTF-8 would otherwise travel inside literals to every result writer.
		i := 0
		for i < len(query) {
			r, size := utf8.DecodeRuneInString(query[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		line, col := sourcePosition(query, nil, i)
		return nil, &rdf.SyntaxError{Syntax: "sparql", Line: line, Column: col, Msg: "the query is not valid UTF-8"}
	}
	src, shifts := unescapeCodepoints(query)
	p := &parser{
		lex:      lexer{src: src, line: 1, col: 1},
		base:     o.Base,
		prefixes: map[string]string{},
		maxDepth: rdf.Limits{MaxDepth: o.MaxDepth}.Depth(),
		bnodeBGP: map[string]int{},
	}
	for _, pr := range o.Prefixes {
		p.prefixes[pr.Name] = pr.IRI
	}
	q, err := p.parse()
	if err != nil {
		var e *errAt
		if !errors.As(err, &e) {
			return nil, &rdf.SyntaxError{Syntax: "sparql", Msg: err.Error()}
		}
		line, col := e.line, e.col
		if shifts != nil {
			line, col = sourcePosition(query, shifts, e.off)
		}
		return nil, &rdf.SyntaxError{Syntax: "sparql", Line: line, Column: col, Msg: e.msg}
	}
	return q, nil
}

type parser struct {
	lex      lexer
	tok      token // current token
	peeked   bool
	lexErr   error // the first lexer error, returned by every later peek
	base     string
	prefixes map[string]string
	prefixed []rdf.Prefix

	depth, maxDepth int

	// Blank-node labels are scoped to one basic graph pattern; bnodeBGP maps each label used in a query pattern
	// to the number of the BGP it was first used in, bgp numbers the current one.
	bnodeBGP map[string]int
	bgp      int
	nAnon    int

	// aggAllowed is set while parsing where aggregates may occur (SELECT expressions, HAVING, ORDER BY);
	// inAggregate while parsing an aggregate's argument, which may not hold another aggregate.
	aggAllowed, inAggregate bool
	// inTemplate is set while parsing a CONSTRUCT template, where blank-node labels are not BGP-scoped.
	inTemplate bool
}

// peek returns the current token, reading it if needed.
func (p *parser) peek() (token, error) {
	if p.lexErr != nil {
		// Sticky: a caller that only tests the token (isPunct, accept) must not make the lexer resume mid-token.
		return token{kind: tEOF}, p.lexErr
	}
	if !p.peeked {
		t, err := p.lex.next()
		if err != nil {
			p.lexErr = err
			return t, err
		}
		p.tok, p.peeked = t, true
	}
	return p.tok, nil
}

// take consumes and returns the current token.
func (p *parser) take() (token, error) {
	t, err := p.peek()
	p.peeked = false
	return t, err
}

// isPunct reports whether the current token is the punctuation s; isKeyword likewise for a keyword.
func (p *parser) isPunct(s string) bool {
	t, err := p.peek()
	return err == nil && t.kind == tPunct && t.text == s
}

func (p *parser) isKeyword(s string) bool {
	t, err := p.peek()
	return err == nil && t.kind == tKeyword && t.text == s
}

// accept consumes the punctuation s if it is next.
func (p *parser) accept(s string) bool {
	if p.isPunct(s) {
		p.peeked = false
		return true
	}
	return false
}

func (p *parser) acceptKeyword(s string) bool {
	if p.isKeyword(s) {
		p.peeked = false
		return true
	}
	return false
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return errorAt(t, format, args...)
}

// unexpected reports that the current token is not what the grammar allows here.
func (p *parser) unexpected(want string) error {
	t, err := p.peek()
	if err != nil {
		return err
	}
	return p.errorf(t, "expected %s but found %s", want, t)
}

func (p *parser) expect(s string) error {
	if _, err := p.peek(); err != nil {
		return err
	}
	if !p.accept(s) {
		return p.unexpected("'" + s + "'")
	}
	return nil
}

func (p *parser) expectKeyword(s string) error {
	if _, err := p.peek(); err != nil {
		return err
	}
	if !p.acceptKeyword(s) {
		return p.unexpected(s)
	}
	return nil
}

// enter counts nesting depth; every recursive production calls it and defers leave.
func (p *parser) enter() error {
	p.depth++
	if p.depth > p.maxDepth {
		t, _ := p.peek()
		return p.errorf(t, "query nested deeper than %d levels", p.maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// parse is QueryUnit: Prologue ( SelectQuery | ConstructQuery | DescribeQuery | AskQuery ) ValuesClause.
func (p *parser) parse() (*algebra.QuerySyntax, error) {
	if err := p.prologue(); err != nil {
		return nil, err
	}
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	q := &algebra.QuerySyntax{Limit: -1}
	switch {
	case t.kind == tKeyword && t.text == "SELECT":
		err = p.selectQuery(q, false)
	case t.kind == tKeyword && t.text == "CONSTRUCT":
		err = p.constructQuery(q)
	case t.kind == tKeyword && t.text == "DESCRIBE":
		err = p.describeQuery(q)
	case t.kind == tKeyword && t.text == "ASK":
		err = p.askQuery(q)
	default:
		return nil, p.unexpected("SELECT, CONSTRUCT, DESCRIBE or ASK")
	}
	if err != nil {
		return nil, err
	}
	if q.Form != algebra.Select {
		if err := p.valuesClause(q); err != nil {
			return nil, err
		}
	}
	t, err = p.peek()
	if err != nil {
		return nil, err
	}
	if t.kind != tEOF {
		return nil, p.errorf(t, "expected end of query but found %s", t)
	}
	q.Base = p.base
	q.Prefixes = p.prefixed
	return q, nil
}

// prologue is ( BASE IRIREF | PREFIX PNAME_NS IRIREF )*.
func (p *parser) prologue() error {
	for {
		switch {
		case p.acceptKeyword("BASE"):
			t, err := p.take()
			if err != nil {
				return err
			}
			if t.kind != tIRI {
				return p.errorf(t, "expected an IRI after BASE but found %s", t)
			}
			b, err := p.resolve(t, t.text)
			if err != nil {
				return err
			}
			p.base = b
		case p.acceptKeyword("PREFIX"):
			t, err := p.take()
			if err != nil {
				return err
			}
			if t.kind != tPName || t.local != "" {
				return p.errorf(t, "expected a prefix name ending in ':' after PREFIX but found %s", t)
			}
			it, err := p.take()
			if err != nil {
				return err
			}
			if it.kind != tIRI {
				return p.errorf(it, "expected an IRI after PREFIX %s: but found %s", t.text, it)
			}
			v, err := p.resolve(it, it.text)
			if err != nil {
				return err
			}
			p.prefixes[t.text] = v
			p.prefixed = append(p.prefixed, rdf.Prefix{Name: t.text, IRI: v})
		default:
			_, err := p.peek()
			return err
		}
	}
}

// resolve resolves an IRI reference against the base.
func (p *parser) resolve(t token, ref string) (string, error) {
	if iri.IsAbsolute(ref) {
		// Absolute IRIs are kept exactly as written: SPARQL compares IRIs as strings.
		return ref, nil
	}
	r, err := iri.Resolve(p.base, ref)
	if err != nil {
		return "", p.errorf(t, "cannot resolve <%s>: %v", ref, err)
	}
	return r, nil
}

// iriOf turns an IRIREF or prefixed-name token into an absolute IRI.
func (p *parser) iriOf(t token) (string, error) {
	if t.kind == tIRI {
		return p.resolve(t, t.text)
	}
	ns, ok := p.prefixes[t.text]
	if !ok {
		return "", p.errorf(t, "undeclared prefix %q", t.text+":")
	}
	return ns + t.local, nil
}

// iri parses iri ::= IRIREF | PrefixedName.
func (p *parser) iri() (string, error) {
	t, err := p.take()
	if err != nil {
		return "", err
	}
	if t.kind != tIRI && t.kind != tPName {
		return "", p.errorf(t, "expected an IRI but found %s", t)
	}
	return p.iriOf(t)
}

// selectQuery parses SelectQuery, or SubSelect when sub is set (which has no dataset and takes its own VALUES).
func (p *parser) selectQuery(q *algebra.QuerySyntax, sub bool) error {
	q.Form = algebra.Select
	q.Limit = -1
	pos, err := p.selectClause(q)
	if err != nil {
		return err
	}
	if !sub {
		if err := p.datasetClauses(q); err != nil {
			return err
		}
	}
	if err := p.whereClause(q, true); err != nil {
		return err
	}
	if err := p.solutionModifier(q); err != nil {
		return err
	}
	if err := p.valuesClause(q); err != nil {
		return err
	}
	return p.checkSelect(q, pos)
}

// selectClause is SELECT ( DISTINCT | REDUCED )? ( ( Var | ( '(' Expression AS Var ')' ) )+ | '*' ).
// It returns the position of each item (of the '*' for SELECT *), for the errors of checkSelect.
func (p *parser) selectClause(q *algebra.QuerySyntax) ([]token, error) {
	var pos []token
	if err := p.expectKeyword("SELECT"); err != nil {
		return nil, err
	}
	sc := &algebra.SelectClause{}
	q.Select = sc
	if p.acceptKeyword("DISTINCT") {
		sc.Distinct = true
	} else if p.acceptKeyword("REDUCED") {
		sc.Reduced = true
	}
	if star, _ := p.peek(); p.accept("*") {
		sc.Star = true
		return []token{star}, nil
	}
	for {
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		switch {
		case t.kind == tVar:
			p.take()
			pos = append(pos, t)
			sc.Items = append(sc.Items, algebra.SelectItem{Var: algebra.Var(t.text)})
		case t.kind == tPunct && t.text == "(":
			p.take()
			pos = append(pos, t)
			p.aggAllowed = true
			e, err := p.expression()
			p.aggAllowed = false
			if err != nil {
				return nil, err
			}
			if err := p.expectKeyword("AS"); err != nil {
				return nil, err
			}
			v, err := p.variable()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			sc.Items = append(sc.Items, algebra.SelectItem{Var: v, Expr: e})
		default:
			if len(sc.Items) == 0 {
				return nil, p.unexpected("'*', a variable or '(' expression AS variable ')'")
			}
			return pos, nil
		}
	}
}

func (p *parser) variable() (algebra.Var, error) {
	t, err := p.take()
	if err != nil {
		return "", err
	}
	if t.kind != tVar {
		return "", p.errorf(t, "expected a variable but found %s", t)
	}
	return algebra.Var(t.text), nil
}

// datasetClauses is ( FROM ( iri | NAMED iri ) )*.
func (p *parser) datasetClauses(q *algebra.QuerySyntax) error {
	for p.acceptKeyword("FROM") {
		if q.Dataset == nil {
			q.Dataset = &algebra.Dataset{}
		}
		named := p.acceptKeyword("NAMED")
		s, err := p.iri()
		if err != nil {
			return err
		}
		if named {
			q.Dataset.Named = append(q.Dataset.Named, s)
		} else {
			q.Dataset.Default = append(q.Dataset.Default, s)
		}
	}
	_, err := p.peek()
	return err
}

// whereClause is WHERE? GroupGraphPattern.
func (p *parser) whereClause(q *algebra.QuerySyntax, required bool) error {
	hasWhere := p.acceptKeyword("WHERE")
	if !hasWhere && !required && !p.isPunct("{") {
		return nil
	}
	g, err := p.groupGraphPattern()
	if err != nil {
		return err
	}
	q.Where = g
	return nil
}

func (p *parser) constructQuery(q *algebra.QuerySyntax) error {
	p.take()
	q.Form = algebra.Construct
	if p.isPunct("{") {
		p.take()
		p.inTemplate = true
		tmpl, err := p.triplesTemplate("}")
		p.inTemplate = false
		if err != nil {
			return err
		}
		if err := p.expect("}"); err != nil {
			return err
		}
		q.Template = plainTriples(tmpl)
		if err := p.datasetClauses(q); err != nil {
			return err
		}
		if err := p.whereClause(q, true); err != nil {
			return err
		}
		return p.solutionModifier(q)
	}
	// CONSTRUCT WHERE { TriplesTemplate }: the template is the pattern.
	if err := p.datasetClauses(q); err != nil {
		return err
	}
	if err := p.expectKeyword("WHERE"); err != nil {
		return err
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	p.bgp++
	tps, err := p.triplesTemplate("}")
	if err != nil {
		return err
	}
	if err := p.expect("}"); err != nil {
		return err
	}
	q.Template = plainTriples(tps)
	q.Where = &algebra.GroupPattern{}
	if len(tps) > 0 {
		q.Where.Elements = []algebra.Element{&algebra.TriplesBlock{Triples: tps}}
	}
	return p.solutionModifier(q)
}

// plainTriples converts template triples, which never hold paths.
func plainTriples(tps []algebra.TriplePath) []algebra.Triple {
	out := make([]algebra.Triple, len(tps))
	for i, t := range tps {
		out[i] = algebra.Triple{S: t.S, P: t.P, O: t.O}
	}
	return out
}

// triplesTemplate parses TriplesSameSubject ( '.' TriplesSameSubject? )* up to the closing token (without paths).
func (p *parser) triplesTemplate(closer string) ([]algebra.TriplePath, error) {
	var out []algebra.TriplePath
	for !p.isPunct(closer) {
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		if t.kind == tEOF {
			return nil, p.unexpected("'" + closer + "'")
		}
		if out, err = p.triplesSameSubject(out, false); err != nil {
			return nil, err
		}
		if !p.accept(".") {
			break
		}
	}
	return out, nil
}

func (p *parser) describeQuery(q *algebra.QuerySyntax) error {
	p.take()
	q.Form = algebra.Describe
	if p.accept("*") {
		q.DescribeAll = true
	} else {
		for {
			t, err := p.peek()
			if err != nil {
				return err
			}
			if t.kind == tVar {
				p.take()
				q.Describe = append(q.Describe, algebra.VarNode(algebra.Var(t.text)))
				continue
			}
			if t.kind == tIRI || t.kind == tPName {
				s, err := p.iri()
				if err != nil {
					return err
				}
				q.Describe = append(q.Describe, algebra.TermNode(rdf.IRI(s)))
				continue
			}
			break
		}
		if len(q.Describe) == 0 {
			return p.unexpected("'*', a variable or an IRI after DESCRIBE")
		}
	}
	if err := p.datasetClauses(q); err != nil {
		return err
	}
	if err := p.whereClause(q, false); err != nil {
		return err
	}
	return p.solutionModifier(q)
}

func (p *parser) askQuery(q *algebra.QuerySyntax) error {
	p.take()
	q.Form = algebra.Ask
	if err := p.datasetClauses(q); err != nil {
		return err
	}
	if err := p.whereClause(q, true); err != nil {
		return err
	}
	return p.solutionModifier(q)
}

// solutionModifier is GroupClause? HavingClause? OrderClause? LimitOffsetClauses?.
func (p *parser) solutionModifier(q *algebra.QuerySyntax) error {
	if p.acceptKeyword("GROUP") {
		if err := p.expectKeyword("BY"); err != nil {
			return err
		}
		for {
			k, ok, err := p.groupCondition()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			q.GroupBy = append(q.GroupBy, k)
		}
		if len(q.GroupBy) == 0 {
			return p.unexpected("a GROUP BY condition")
		}
	}
	if p.acceptKeyword("HAVING") {
		p.aggAllowed = true
		defer func() { p.aggAllowed = false }()
		for {
			e, ok, err := p.constraint()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			q.Having = append(q.Having, e)
		}
		if len(q.Having) == 0 {
			return p.unexpected("a HAVING condition")
		}
	}
	if p.acceptKeyword("ORDER") {
		if err := p.expectKeyword("BY"); err != nil {
			return err
		}
		p.aggAllowed = true
		for {
			c, ok, err := p.orderCondition()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			q.OrderBy = append(q.OrderBy, c)
		}
		p.aggAllowed = false
		if len(q.OrderBy) == 0 {
			return p.unexpected("an ORDER BY condition")
		}
	}
	var limit, offset bool
	for range 2 {
		switch {
		case !limit && p.acceptKeyword("LIMIT"):
			limit = true
			n, err := p.integer()
			if err != nil {
				return err
			}
			q.Limit = n
		case !offset && p.acceptKeyword("OFFSET"):
			offset = true
			n, err := p.integer()
			if err != nil {
				return err
			}
			q.Offset = n
		}
	}
	_, err := p.peek()
	return err
}

func (p *parser) integer() (int64, error) {
	t, err := p.take()
	if err != nil {
		return 0, err
	}
	if t.kind != tInteger || t.text[0] == '+' || t.text[0] == '-' {
		return 0, p.errorf(t, "expected a non-negative integer but found %s", t)
	}
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		return 0, p.errorf(t, "integer %s is too large", t.text)
	}
	return n, nil
}

// groupCondition is BuiltInCall | FunctionCall | '(' Expression ( AS Var )? ')' | Var.
func (p *parser) groupCondition() (algebra.GroupKey, bool, error) {
	t, err := p.peek()
	if err != nil {
		return algebra.GroupKey{}, false, err
	}
	switch {
	case t.kind == tVar:
		p.take()
		v := algebra.Var(t.text)
		return algebra.GroupKey{Var: v, Expr: v}, true, nil
	case t.kind == tPunct && t.text == "(":
		p.take()
		e, err := p.expression()
		if err != nil {
			return algebra.GroupKey{}, false, err
		}
		var v algebra.Var
		if p.acceptKeyword("AS") {
			if v, err = p.variable(); err != nil {
				return algebra.GroupKey{}, false, err
			}
		}
		if err := p.expect(")"); err != nil {
			return algebra.GroupKey{}, false, err
		}
		if x, ok := e.(algebra.Var); ok && v == "" {
			// GROUP BY (?x) is a simple expression consisting of just a variable: ?x is grouped and projectable.
			v = x
		}
		return algebra.GroupKey{Var: v, Expr: e}, true, nil
	case t.kind == tKeyword && isBuiltin(t.text) && !isAggregate(t.text):
		e, err := p.builtinCall()
		return algebra.GroupKey{Expr: e}, err == nil, err
	case t.kind == tIRI || t.kind == tPName:
		e, err := p.iriOrFunction(true)
		return algebra.GroupKey{Expr: e}, err == nil, err
	}
	return algebra.GroupKey{}, false, nil
}

// constraint is BrackettedExpression | BuiltInCall | FunctionCall; ok is false when none starts here.
func (p *parser) constraint() (algebra.Expr, bool, error) {
	t, err := p.peek()
	if err != nil {
		return nil, false, err
	}
	switch {
	case t.kind == tPunct && t.text == "(":
		p.take()
		e, err := p.expression()
		if err != nil {
			return nil, false, err
		}
		return e, true, p.expect(")")
	case t.kind == tKeyword && isBuiltin(t.text):
		e, err := p.builtinCall()
		return e, err == nil, err
	case t.kind == tKeyword && t.text == "NOT":
		e, err := p.builtinCall()
		return e, err == nil, err
	case t.kind == tIRI || t.kind == tPName:
		e, err := p.iriOrFunction(true)
		return e, err == nil, err
	}
	return nil, false, nil
}

// orderCondition is ( ASC | DESC ) BrackettedExpression | Constraint | Var.
func (p *parser) orderCondition() (algebra.OrderCond, bool, error) {
	t, err := p.peek()
	if err != nil {
		return algebra.OrderCond{}, false, err
	}
	if t.kind == tKeyword && (t.text == "ASC" || t.text == "DESC") {
		p.take()
		if err := p.expect("("); err != nil {
			return algebra.OrderCond{}, false, err
		}
		e, err := p.expression()
		if err != nil {
			return algebra.OrderCond{}, false, err
		}
		return algebra.OrderCond{Expr: e, Desc: t.text == "DESC"}, true, p.expect(")")
	}
	if t.kind == tVar {
		p.take()
		return algebra.OrderCond{Expr: algebra.Var(t.text)}, true, nil
	}
	e, ok, err := p.constraint()
	return algebra.OrderCond{Expr: e}, ok, err
}

// valuesClause is ( VALUES DataBlock )?.
func (p *parser) valuesClause(q *algebra.QuerySyntax) error {
	if !p.acceptKeyword("VALUES") {
		_, err := p.peek()
		return err
	}
	t, err := p.dataBlock()
	if err != nil {
		return err
	}
	q.Values = t
	return nil
}

// dataBlock is InlineDataOneVar | InlineDataFull.
func (p *parser) dataBlock() (*algebra.Table, error) {
	tab := &algebra.Table{}
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	switch {
	case t.kind == tVar:
		p.take()
		tab.Vars = []algebra.Var{algebra.Var(t.text)}
		if err := p.expect("{"); err != nil {
			return nil, err
		}
		for !p.accept("}") {
			v, err := p.dataBlockValue()
			if err != nil {
				return nil, err
			}
			tab.Rows = append(tab.Rows, []rdf.Term{v})
		}
		return tab, nil
	case t.kind == tNil:
		p.take()
	case t.kind == tPunct && t.text == "(":
		p.take()
		for !p.accept(")") {
			v, err := p.variable()
			if err != nil {
				return nil, err
			}
			tab.Vars = append(tab.Vars, v)
		}
	default:
		return nil, p.unexpected("a variable or '(' after VALUES")
	}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	for !p.accept("}") {
		t, err := p.take()
		if err != nil {
			return nil, err
		}
		var row []rdf.Term
		switch {
		case t.kind == tNil:
		case t.kind == tPunct && t.text == "(":
			for !p.accept(")") {
				v, err := p.dataBlockValue()
				if err != nil {
					return nil, err
				}
				row = append(row, v)
			}
		default:
			return nil, p.errorf(t, "expected '(' or '}' in VALUES but found %s", t)
		}
		if len(row) != len(tab.Vars) {
			return nil, p.errorf(t, "VALUES row has %d values for %d variables", len(row), len(tab.Vars))
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab, nil
}

// dataBlockValue is iri | RDFLiteral | NumericLiteral | BooleanLiteral | UNDEF; UNDEF is the zero Term.
func (p *parser) dataBlockValue() (rdf.Term, error) {
	if p.acceptKeyword("UNDEF") {
		return rdf.Term{}, nil
	}
	t, err := p.peek()
	if err != nil {
		return rdf.Term{}, err
	}
	switch t.kind {
	case tIRI, tPName:
		s, err := p.iri()
		return rdf.IRI(s), err
	case tString, tInteger, tDecimal, tDouble:
		return p.literal()
	case tKeyword:
		if t.text == "TRUE" || t.text == "FALSE" {
			p.take()
			return rdf.Literal(strings.ToLower(t.text), rdf.XSDBoolean), nil
		}
	}
	return rdf.Term{}, p.unexpected("an IRI, a literal or UNDEF")
}

// literal parses RDFLiteral | NumericLiteral.
func (p *parser) literal() (rdf.Term, error) {
	t, err := p.take()
	if err != nil {
		return rdf.Term{}, err
	}
	switch t.kind {
	case tInteger:
		return rdf.Literal(t.text, rdf.XSDInteger), nil
	case tDecimal:
		return rdf.Literal(t.text, rdf.XSDDecimal), nil
	case tDouble:
		return rdf.Literal(t.text, rdf.XSDDouble), nil
	case tString:
		n, err := p.peek()
		if err != nil {
			return rdf.Term{}, err
		}
		if n.kind == tLang {
			p.take()
			return rdf.LangString(t.text, n.text), nil
		}
		if p.accept("^^") {
			dt, err := p.iri()
			if err != nil {
				return rdf.Term{}, err
			}
			return rdf.Literal(t.text, dt), nil
		}
		return rdf.String(t.text), nil
	}
	return rdf.Term{}, p.errorf(t, "expected a literal but found %s", t)
}

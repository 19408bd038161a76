package parser

import (
	"strconv"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

func isAggregate(kw string) bool {
	switch kw {
	case "COUNT", "SUM", "MIN", "MAX", "AVG", "SAMPLE", "GROUP_CONCAT":
		return true
	}
	return false
}

// isBuiltin reports whether a keyword starts a BuiltInCall.
func isBuiltin(kw string) bool {
	if _, _, ok := algebra.BuiltinArity(kw); ok {
		return true
	}
	return kw == "BOUND" || kw == "BNODE" || kw == "EXISTS" || kw == "NOT" || isAggregate(kw)
}

// canonicalFunc gives synonyms one name so the evaluator has one case per function.
func canonicalFunc(kw string) string {
	switch kw {
	case "URI":
		return "IRI"
	case "ISURI":
		return "ISIRI"
	}
	return kw
}

// expression is Expression: ConditionalOrExpression.
func (p *parser) expression() (algebra.Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	left, err := p.andExpression()
	if err != nil {
		return nil, err
	}
	for p.accept("||") {
		right, err := p.andExpression()
		if err != nil {
			return nil, err
		}
		left = &algebra.Call{Func: "||", Args: []algebra.Expr{left, right}}
	}
	return left, nil
}

func (p *parser) andExpression() (algebra.Expr, error) {
	left, err := p.relational()
	if err != nil {
		return nil, err
	}
	for p.accept("&&") {
		right, err := p.relational()
		if err != nil {
			return nil, err
		}
		left = &algebra.Call{Func: "&&", Args: []algebra.Expr{left, right}}
	}
	return left, nil
}

// relational is NumericExpression ( op NumericExpression | IN list | NOT IN list )?: not associative.
func (p *parser) relational() (algebra.Expr, error) {
	left, err := p.additive()
	if err != nil {
		return nil, err
	}
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	switch {
	case t.kind == tPunct && (t.text == "=" || t.text == "!=" || t.text == "<" || t.text == ">" || t.text == "<=" || t.text == ">="):
		p.take()
		right, err := p.additive()
		if err != nil {
			return nil, err
		}
		return &algebra.Call{Func: t.text, Args: []algebra.Expr{left, right}}, nil
	case t.kind == tKeyword && t.text == "IN":
		p.take()
		list, err := p.expressionList()
		return &algebra.In{Expr: left, List: list}, err
	case t.kind == tKeyword && t.text == "NOT":
		p.take()
		if err := p.expectKeyword("IN"); err != nil {
			return nil, err
		}
		list, err := p.expressionList()
		return &algebra.In{Expr: left, List: list, Not: true}, err
	}
	return left, nil
}

// additive is AdditiveExpression. A signed number right after an operand is the grammar's
// NumericLiteralPositive/Negative: its sign is the operator ("?x -1" is ?x - 1).
func (p *parser) additive() (algebra.Expr, error) {
	left, err := p.multiplicative()
	if err != nil {
		return nil, err
	}
	for {
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		switch {
		case t.kind == tPunct && (t.text == "+" || t.text == "-"):
			p.take()
			right, err := p.multiplicative()
			if err != nil {
				return nil, err
			}
			left = &algebra.Call{Func: t.text, Args: []algebra.Expr{left, right}}
		case (t.kind == tInteger || t.kind == tDecimal || t.kind == tDouble) && (t.text[0] == '+' || t.text[0] == '-'):
			lit, err := p.literal()
			if err != nil {
				return nil, err
			}
			lit.Value = lit.Value[1:]
			var right algebra.Expr = algebra.Constant{Term: lit}
			if right, err = p.multiplicativeRest(right); err != nil {
				return nil, err
			}
			left = &algebra.Call{Func: t.text[:1], Args: []algebra.Expr{left, right}}
		default:
			return left, nil
		}
	}
}

func (p *parser) multiplicative() (algebra.Expr, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	return p.multiplicativeRest(left)
}

func (p *parser) multiplicativeRest(left algebra.Expr) (algebra.Expr, error) {
	for {
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		if t.kind != tPunct || t.text != "*" && t.text != "/" {
			return left, nil
		}
		p.take()
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = &algebra.Call{Func: t.text, Args: []algebra.Expr{left, right}}
	}
}

// unary is ( '!' | '+' | '-' )? PrimaryExpression.
func (p *parser) unary() (algebra.Expr, error) {
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	if t.kind == tPunct && (t.text == "!" || t.text == "+" || t.text == "-") {
		p.take()
		// The operand is a PrimaryExpression: "!!?x" is not SPARQL, "!(!?x)" is.
		arg, err := p.primary()
		if err != nil {
			return nil, err
		}
		return &algebra.Call{Func: t.text, Args: []algebra.Expr{arg}}, nil
	}
	return p.primary()
}

// primary is BrackettedExpression | BuiltInCall | iriOrFunction | RDFLiteral | NumericLiteral | BooleanLiteral |
// Var.
func (p *parser) primary() (algebra.Expr, error) {
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case tVar:
		p.take()
		return algebra.Var(t.text), nil
	case tIRI, tPName:
		return p.iriOrFunction(false)
	case tString, tInteger, tDecimal, tDouble:
		l, err := p.literal()
		return algebra.Constant{Term: l}, err
	case tKeyword:
		if t.text == "TRUE" || t.text == "FALSE" {
			p.take()
			return algebra.Constant{Term: rdf.Literal(lower(t.text), rdf.XSDBoolean)}, nil
		}
		if isBuiltin(t.text) {
			return p.builtinCall()
		}
	case tPunct:
		if t.text == "(" {
			p.take()
			e, err := p.expression()
			if err != nil {
				return nil, err
			}
			return e, p.expect(")")
		}
	}
	return nil, p.unexpected("an expression")
}

// iriOrFunction is iri ArgList?; with call set, the argument list is required (FunctionCall).
func (p *parser) iriOrFunction(call bool) (algebra.Expr, error) {
	t, _ := p.peek()
	s, err := p.iri()
	if err != nil {
		return nil, err
	}
	n, err := p.peek()
	if err != nil {
		return nil, err
	}
	if n.kind == tNil {
		p.take()
		return &algebra.FunctionCall{IRI: s}, nil
	}
	if n.kind != tPunct || n.text != "(" {
		if call {
			return nil, p.errorf(t, "expected a function call but found the IRI %s alone", t)
		}
		return algebra.Constant{Term: rdf.IRI(s)}, nil
	}
	p.take()
	f := &algebra.FunctionCall{IRI: s, Distinct: p.acceptKeyword("DISTINCT")}
	for {
		e, err := p.expression()
		if err != nil {
			return nil, err
		}
		f.Args = append(f.Args, e)
		if !p.accept(",") {
			break
		}
	}
	return f, p.expect(")")
}

// expressionList is NIL | '(' Expression ( ',' Expression )* ')'.
func (p *parser) expressionList() ([]algebra.Expr, error) {
	t, err := p.take()
	if err != nil {
		return nil, err
	}
	if t.kind == tNil {
		return nil, nil
	}
	if t.kind != tPunct || t.text != "(" {
		return nil, p.errorf(t, "expected '(' but found %s", t)
	}
	var list []algebra.Expr
	for {
		e, err := p.expression()
		if err != nil {
			return nil, err
		}
		list = append(list, e)
		if !p.accept(",") {
			break
		}
	}
	return list, p.expect(")")
}

// builtinCall parses BuiltInCall, including aggregates and EXISTS / NOT EXISTS.
func (p *parser) builtinCall() (algebra.Expr, error) {
	t, err := p.take()
	if err != nil {
		return nil, err
	}
	name := t.text
	switch {
	case name == "NOT":
		if err := p.expectKeyword("EXISTS"); err != nil {
			return nil, err
		}
		g, err := p.groupGraphPattern()
		return &algebra.Exists{Not: true, Group: g}, err
	case name == "EXISTS":
		g, err := p.groupGraphPattern()
		return &algebra.Exists{Group: g}, err
	case name == "BOUND":
		if err := p.expect("("); err != nil {
			return nil, err
		}
		v, err := p.variable()
		if err != nil {
			return nil, err
		}
		return &algebra.Call{Func: name, Args: []algebra.Expr{v}}, p.expect(")")
	case name == "BNODE":
		n, err := p.peek()
		if err != nil {
			return nil, err
		}
		if n.kind == tNil {
			p.take()
			return &algebra.Call{Func: name}, nil
		}
		if err := p.expect("("); err != nil {
			return nil, err
		}
		e, err := p.expression()
		if err != nil {
			return nil, err
		}
		return &algebra.Call{Func: name, Args: []algebra.Expr{e}}, p.expect(")")
	case isAggregate(name):
		return p.aggregate(t)
	}
	lo, hi, _ := algebra.BuiltinArity(name)
	args, err := p.expressionList()
	if err != nil {
		return nil, err
	}
	if len(args) < lo || hi >= 0 && len(args) > hi {
		want := "any number of"
		switch {
		case lo == hi:
			want = strconv.Itoa(lo)
		case hi >= 0:
			want = strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
		}
		return nil, p.errorf(t, "%s takes %s arguments, not %d", t.raw, want, len(args))
	}
	return &algebra.Call{Func: canonicalFunc(name), Args: args}, nil
}

// aggregate parses Aggregate after its keyword t.
func (p *parser) aggregate(t token) (algebra.Expr, error) {
	if !p.aggAllowed {
		return nil, p.errorf(t, "aggregate %s is only allowed in SELECT expressions, HAVING and ORDER BY", t.raw)
	}
	if p.inAggregate {
		return nil, p.errorf(t, "aggregate %s inside another aggregate", t.raw)
	}
	p.inAggregate = true
	defer func() { p.inAggregate = false }()
	if err := p.expect("("); err != nil {
		return nil, err
	}
	a := &algebra.Aggregate{Name: t.text, Distinct: p.acceptKeyword("DISTINCT")}
	if t.text == "COUNT" && p.accept("*") {
		return a, p.expect(")")
	}
	e, err := p.expression()
	if err != nil {
		return nil, err
	}
	a.Expr = e
	if t.text == "GROUP_CONCAT" {
		a.Separator = " "
		if p.accept(";") {
			if err := p.expectKeyword("SEPARATOR"); err != nil {
				return nil, err
			}
			if err := p.expect("="); err != nil {
				return nil, err
			}
			s, err := p.take()
			if err != nil {
				return nil, err
			}
			if s.kind != tString {
				return nil, p.errorf(s, "expected a string after SEPARATOR= but found %s", s)
			}
			a.Separator = s.text
		}
	}
	return a, p.expect(")")
}

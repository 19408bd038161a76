package algebra

import "github.com/ldhub/ldhub/content/rdf"

// Expr is an expression (§17). The concrete types are Var, Constant, *Call, *FunctionCall, *In, *Exists and, in
// the syntax tree only, *Aggregate (the translation replaces each aggregate by the variable its Group binds).
type Expr interface{ expr() }

// Constant is an RDF term in an expression.
type Constant struct{ Term rdf.Term }

// Call is an operator or a built-in function (§17.3, §17.4). Func is the operator as written ("||", "&&", "=",
// "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "!"; unary "-" and "+" have one argument) or the built-in's
// keyword in upper case ("STR", "REGEX", "COALESCE", ...; URI is spelled "IRI", isURI "ISIRI").
type Call struct {
	Func string
	Args []Expr
}

// FunctionCall is a call of a function named by IRI: an XSD cast (xsd:integer(?x)) or an extension function.
// Distinct is set when an extension aggregate was written with DISTINCT.
type FunctionCall struct {
	IRI      string
	Args     []Expr
	Distinct bool
}

// In is `Expr IN (List...)`, or NOT IN when Not is set.
type In struct {
	Expr Expr
	List []Expr
	Not  bool
}

// Exists is EXISTS { ... } (or NOT EXISTS when Not is set): whether Pattern, with the current solution's bindings
// substituted (§18.6 substitute), has a solution. The parser fills Group (the syntax); the copy Translate puts in
// the algebra also has Pattern.
type Exists struct {
	Not     bool
	Group   *GroupPattern
	Pattern Op
}

// Aggregate is a set function (§18.5.1): COUNT, SUM, MIN, MAX, AVG, SAMPLE or GROUP_CONCAT. Expr is nil for
// COUNT(*). Separator is GROUP_CONCAT's separator (" " when the query gives none).
type Aggregate struct {
	Name      string
	Distinct  bool
	Expr      Expr
	Separator string
}

func (Var) expr()           {}
func (Constant) expr()      {}
func (*Call) expr()         {}
func (*FunctionCall) expr() {}
func (*In) expr()           {}
func (*Exists) expr()       {}
func (*Aggregate) expr()    {}

// WalkExpr calls fn for e and then, if fn returns true, for its sub-expressions in order. It does not enter the
// pattern of an EXISTS.
func WalkExpr(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	switch x := e.(type) {
	case *Call:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *FunctionCall:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *In:
		WalkExpr(x.Expr, fn)
		for _, a := range x.List {
			WalkExpr(a, fn)
		}
	case *Aggregate:
		WalkExpr(x.Expr, fn)
	}
}

// ExprVars returns the variables an expression mentions, outside EXISTS patterns, in order of first use.
func ExprVars(e Expr) []Var {
	var out []Var
	seen := map[Var]bool{}
	WalkExpr(e, func(e Expr) bool {
		if v, ok := e.(Var); ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
		return true
	})
	return out
}

// HasAggregate reports whether e contains an aggregate.
func HasAggregate(e Expr) bool {
	found := false
	WalkExpr(e, func(e Expr) bool {
		if _, ok := e.(*Aggregate); ok {
			found = true
		}
		return !found
	})
	return found
}

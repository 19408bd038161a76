package algebra

import (
	"sort"

	"github.com/ldhub/ldhub/content/rdf"
)

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

// builtinArity holds the built-in functions of §17.4 that take a plain argument list, by keyword, with their
// argument counts (min, max; max -1 = any).
var builtinArity = map[string][2]int{
	"STR": {1, 1}, "LANG": {1, 1}, "LANGMATCHES": {2, 2}, "DATATYPE": {1, 1}, "IRI": {1, 1}, "URI": {1, 1},
	"RAND": {0, 0}, "ABS": {1, 1}, "CEIL": {1, 1}, "FLOOR": {1, 1}, "ROUND": {1, 1}, "CONCAT": {0, -1},
	"SUBSTR": {2, 3}, "STRLEN": {1, 1}, "REPLACE": {3, 4}, "UCASE": {1, 1}, "LCASE": {1, 1},
	"ENCODE_FOR_URI": {1, 1}, "CONTAINS": {2, 2}, "STRSTARTS": {2, 2}, "STRENDS": {2, 2}, "STRBEFORE": {2, 2},
	"STRAFTER": {2, 2}, "YEAR": {1, 1}, "MONTH": {1, 1}, "DAY": {1, 1}, "HOURS": {1, 1}, "MINUTES": {1, 1},
	"SECONDS": {1, 1}, "TIMEZONE": {1, 1}, "TZ": {1, 1}, "NOW": {0, 0}, "UUID": {0, 0}, "STRUUID": {0, 0},
	"MD5": {1, 1}, "SHA1": {1, 1}, "SHA256": {1, 1}, "SHA384": {1, 1}, "SHA512": {1, 1}, "COALESCE": {0, -1},
	"IF": {3, 3}, "STRLANG": {2, 2}, "STRDT": {2, 2}, "SAMETERM": {2, 2}, "ISIRI": {1, 1}, "ISURI": {1, 1},
	"ISBLANK": {1, 1}, "ISLITERAL": {1, 1}, "ISNUMERIC": {1, 1}, "REGEX": {2, 3},
}

// BuiltinArity returns the argument counts of a built-in function that takes a plain argument list (max -1 means
// any number); ok is false for other names.
func BuiltinArity(name string) (min, max int, ok bool) {
	a, ok := builtinArity[name]
	return a[0], a[1], ok
}

// Builtins returns, sorted, the Func names a *Call can hold besides the operators: the built-ins with a plain
// argument list plus BOUND and BNODE; the synonyms URI and ISURI are not listed because they arrive as IRI and
// ISIRI. An evaluator can range over it to check that it implements them all.
func Builtins() []string {
	names := []string{"BOUND", "BNODE"}
	for n := range builtinArity {
		if n != "URI" && n != "ISURI" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

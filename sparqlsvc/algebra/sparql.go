package algebra

import (
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// This file writes a syntax tree back as SPARQL query text: what a query becomes when it is handed on to another
// SPARQL service after ldhub has rewritten it (its dataset, its GRAPH patterns). The text is meant for machines:
// IRIs are always written in full, every literal with its datatype or language, and every expression in
// brackets, so that no precedence rule or prefix of the original can change its meaning. Parsing the text again
// gives the same algebra (the round trip is tested over the W3C suites).

// SPARQL returns the query as SPARQL 1.1 query text. Every IRI of the text is already absolute, but the Base is
// written too: IRI("relative") resolves against it when the query runs. Blank-node labels are renamed
// consistently (labels the parser minted for [] and collections cannot be written as they are); a label stays
// scoped to the same basic graph pattern.
func (q *QuerySyntax) SPARQL() string {
	var w sparqlWriter
	if q.Base != "" {
		w.s("BASE ", iriText(q.Base), "\n")
	}
	w.query(q, true)
	return w.b.String()
}

type sparqlWriter struct{ b strings.Builder }

func (w *sparqlWriter) s(parts ...string) {
	for _, p := range parts {
		w.b.WriteString(p)
	}
}

func (w *sparqlWriter) query(q *QuerySyntax, top bool) {
	switch q.Form {
	case Select:
		w.s("SELECT ")
		sc := q.Select
		if sc.Distinct {
			w.s("DISTINCT ")
		}
		if sc.Reduced {
			w.s("REDUCED ")
		}
		if sc.Star {
			w.s("*")
		}
		for _, it := range sc.Items {
			if it.Expr != nil {
				w.s("(")
				w.expr(it.Expr)
				w.s(" AS ?", string(it.Var), ") ")
			} else {
				w.s("?", string(it.Var), " ")
			}
		}
	case Construct:
		w.s("CONSTRUCT { ")
		for _, t := range q.Template {
			w.node(t.S)
			w.s(" ")
			w.node(t.P)
			w.s(" ")
			w.node(t.O)
			w.s(" . ")
		}
		w.s("}")
	case Ask:
		w.s("ASK")
	case Describe:
		w.s("DESCRIBE ")
		if q.DescribeAll {
			w.s("*")
		}
		for _, n := range q.Describe {
			w.node(n)
			w.s(" ")
		}
	}
	w.s("\n")
	if top && q.Dataset != nil {
		for _, g := range q.Dataset.Default {
			w.s("FROM ", iriText(g), "\n")
		}
		for _, g := range q.Dataset.Named {
			w.s("FROM NAMED ", iriText(g), "\n")
		}
	}
	if q.Where != nil {
		w.s("WHERE ")
		w.group(q.Where)
		w.s("\n")
	}
	if len(q.GroupBy) > 0 {
		w.s("GROUP BY")
		for _, k := range q.GroupBy {
			if isVar(k.Expr, k.Var) {
				w.s(" ?", string(k.Var))
				continue
			}
			w.s(" (")
			w.expr(k.Expr)
			if k.Var != "" {
				w.s(" AS ?", string(k.Var))
			}
			w.s(")")
		}
		w.s("\n")
	}
	if len(q.Having) > 0 {
		w.s("HAVING")
		for _, e := range q.Having {
			w.s(" (")
			w.expr(e)
			w.s(")")
		}
		w.s("\n")
	}
	if len(q.OrderBy) > 0 {
		w.s("ORDER BY")
		for _, c := range q.OrderBy {
			if c.Desc {
				w.s(" DESC(")
			} else {
				w.s(" ASC(")
			}
			w.expr(c.Expr)
			w.s(")")
		}
		w.s("\n")
	}
	if q.Limit >= 0 {
		w.s("LIMIT ", strconv.FormatInt(q.Limit, 10), "\n")
	}
	if q.Offset > 0 {
		w.s("OFFSET ", strconv.FormatInt(q.Offset, 10), "\n")
	}
	if q.Values != nil {
		w.values(q.Values)
	}
}

func isVar(e Expr, v Var) bool {
	x, ok := e.(Var)
	return ok && x == v
}

func (w *sparqlWriter) group(g *GroupPattern) {
	w.s("{ ")
	for _, e := range g.Elements {
		w.element(e)
	}
	w.s("} ")
}

func (w *sparqlWriter) element(e Element) {
	switch x := e.(type) {
	case *TriplesBlock:
		for _, t := range x.Triples {
			w.node(t.S)
			w.s(" ")
			if t.Path != nil {
				w.path(t.Path)
			} else {
				w.node(t.P)
			}
			w.s(" ")
			w.node(t.O)
			w.s(" . ")
		}
	case *FilterElement:
		w.s("FILTER (")
		w.expr(x.Expr)
		w.s(") ")
	case *OptionalElement:
		w.s("OPTIONAL ")
		w.group(x.Group)
	case *UnionElement:
		for i, g := range x.Groups {
			if i > 0 {
				w.s("UNION ")
			}
			w.group(g)
		}
	case *MinusElement:
		w.s("MINUS ")
		w.group(x.Group)
	case *GraphElement:
		w.s("GRAPH ")
		w.node(x.Name)
		w.s(" ")
		w.group(x.Group)
	case *ServiceElement:
		w.s("SERVICE ")
		if x.Silent {
			w.s("SILENT ")
		}
		w.node(x.Name)
		w.s(" ")
		w.group(x.Group)
	case *BindElement:
		w.s("BIND (")
		w.expr(x.Expr)
		w.s(" AS ?", string(x.Var), ") ")
	case *ValuesElement:
		w.values(x.Data)
	case *SubSelect:
		w.s("{ ")
		w.query(x.Query, false)
		w.s("} ")
	case *GroupElement:
		w.group(x.Group)
	}
	w.s("\n")
}

func (w *sparqlWriter) values(t *Table) {
	w.s("VALUES (")
	for _, v := range t.Vars {
		w.s(" ?", string(v))
	}
	w.s(" ) {")
	for _, row := range t.Rows {
		w.s(" (")
		for _, c := range row {
			w.s(" ")
			if c.IsZero() {
				w.s("UNDEF")
			} else {
				w.term(c)
			}
		}
		w.s(" )")
	}
	w.s(" } ")
}

func (w *sparqlWriter) node(n Node) {
	if n.IsVar() {
		w.s("?", string(n.Var))
		return
	}
	w.term(n.Term)
}

// term writes an RDF term. Blank nodes get labels no query could clash with: the query's own labels are prefixed
// with "u", the ones the parser minted (".bN") become "aN".
func (w *sparqlWriter) term(t rdf.Term) {
	switch t.Kind {
	case rdf.KindIRI:
		w.s(iriText(t.Value))
	case rdf.KindBlank:
		if rest, ok := strings.CutPrefix(t.Value, ".b"); ok {
			w.s("_:a", rest)
		} else {
			w.s("_:u", t.Value)
		}
	case rdf.KindLiteral:
		w.s(termText(t))
	}
}

// iriText writes an IRI reference as N-Triples does: characters an IRIREF may not hold become \u escapes, which
// SPARQL undoes before parsing.
func iriText(iri string) string { return termText(rdf.IRI(iri)) }

// literalText writes a string in double quotes with the escapes of N-Triples.
func literalText(v string) string { return termText(rdf.String(v)) }

func termText(t rdf.Term) string {
	var b strings.Builder
	rdf.AppendNTriples(&b, t)
	return b.String()
}

func (w *sparqlWriter) path(p Path) {
	switch x := p.(type) {
	case *PathLink:
		w.s(iriText(x.IRI))
	case *PathInverse:
		w.s("^(")
		w.path(x.Path)
		w.s(")")
	case *PathSequence:
		w.s("(")
		w.path(x.Left)
		w.s(" / ")
		w.path(x.Right)
		w.s(")")
	case *PathAlternative:
		w.s("(")
		w.path(x.Left)
		w.s(" | ")
		w.path(x.Right)
		w.s(")")
	case *PathZeroOrMore:
		w.s("(")
		w.path(x.Path)
		w.s(")*")
	case *PathOneOrMore:
		w.s("(")
		w.path(x.Path)
		w.s(")+")
	case *PathZeroOrOne:
		w.s("(")
		w.path(x.Path)
		w.s(")?")
	case *PathNegated:
		w.s("!(")
		for i, iri := range x.IRIs {
			if i > 0 {
				w.s(" | ")
			}
			w.s(iriText(iri))
		}
		w.s(")")
	}
}

// expr writes an expression in brackets wherever precedence could matter.
func (w *sparqlWriter) expr(e Expr) {
	switch x := e.(type) {
	case Var:
		w.s("?", string(x))
	case Constant:
		w.term(x.Term)
	case *Call:
		w.call(x)
	case *FunctionCall:
		w.s(iriText(x.IRI), "(")
		if x.Distinct {
			w.s("DISTINCT ")
		}
		w.args(x.Args)
		w.s(")")
	case *In:
		w.s("(")
		w.expr(x.Expr)
		if x.Not {
			w.s(" NOT")
		}
		w.s(" IN (")
		w.args(x.List)
		w.s("))")
	case *Exists:
		if x.Not {
			w.s("NOT ")
		}
		w.s("EXISTS ")
		w.group(x.Group)
	case *Aggregate:
		w.s(x.Name, "(")
		if x.Distinct {
			w.s("DISTINCT ")
		}
		if x.Expr == nil {
			w.s("*")
		} else {
			w.expr(x.Expr)
		}
		if x.Name == "GROUP_CONCAT" {
			w.s(" ; SEPARATOR=", literalText(x.Separator))
		}
		w.s(")")
	}
}

func (w *sparqlWriter) args(args []Expr) {
	for i, a := range args {
		if i > 0 {
			w.s(", ")
		}
		w.expr(a)
	}
}

func (w *sparqlWriter) call(c *Call) {
	switch c.Func {
	case "||", "&&", "=", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/":
		if len(c.Args) == 1 { // unary + and -
			w.s("(", c.Func, " ")
			w.expr(c.Args[0])
			w.s(")")
			return
		}
		w.s("(")
		w.expr(c.Args[0])
		w.s(" ", c.Func, " ")
		w.expr(c.Args[1])
		w.s(")")
	case "!":
		w.s("(! ")
		w.expr(c.Args[0])
		w.s(")")
	default:
		if c.Func == "BNODE" && len(c.Args) == 0 {
			w.s("BNODE()")
			return
		}
		w.s(c.Func, "(")
		w.args(c.Args)
		w.s(")")
	}
}

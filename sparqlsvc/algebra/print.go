package algebra

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// Format prints an algebra tree as SSE-like S-expressions, one operator per line, operands indented by two spaces,
// in the style of Jena's qparse --print=op, so tests can state the algebra of a query as text:
//
//	(project (?s)
//	  (filter (> ?o 1)
//	    (bgp (triple ?s <http://example.org/p> ?o))))
//
// Integers, decimals and booleans in their plain forms print as they would be written in a query; other terms
// print in N-Triples form. Invented variables print with their leading '.', e.g. ?.agg1.
func Format(op Op) string {
	var b strings.Builder
	(&printer{b: &b}).formatOp(op, 0)
	return b.String()
}

// Canonical prints op as Format does with every variable renamed by its first use (?v1, ?v2, … in the order the
// text meets them, inside EXISTS patterns too). Two operators with equal canonical forms are the same algebra up to
// a one-to-one renaming of their variables, so they have the same solutions, renamed: the evaluator keeps one
// subquery's solutions for a twin written with other names (h92's two equal GROUP BYs). Constants print as in
// Format, so twins that differ in one are not equal; each position of a variable list (a projection's) prints the
// renaming of its variable, so the two lists correspond position by position.
func Canonical(op Op) string {
	var b strings.Builder
	(&printer{b: &b, names: map[Var]string{}}).formatOp(op, 0)
	return b.String()
}

// printer writes the text of Format or Canonical: names, when not nil, renames each variable by its first use;
// flat writes an operator's operands on its line (an EXISTS's pattern inside an expression).
type printer struct {
	b     *strings.Builder
	names map[Var]string
	flat  bool
}

// name is how v prints after its '?'.
func (p *printer) name(v Var) string {
	if p.names == nil {
		return string(v)
	}
	n, ok := p.names[v]
	if !ok {
		n = "v" + strconv.Itoa(len(p.names)+1)
		p.names[v] = n
	}
	return n
}

// FormatQuery prints the query form, dataset and template around Format(q.Op).
func FormatQuery(q *Query) string {
	var b strings.Builder
	p := &printer{b: &b}
	switch q.Form {
	case Construct:
		b.WriteString("(construct (")
		for i, t := range q.Template {
			if i > 0 {
				b.WriteByte(' ')
			}
			p.formatTriple(t)
		}
		b.WriteString(")\n")
	case Ask:
		b.WriteString("(ask\n")
	case Describe:
		b.WriteString("(describe (")
		if q.DescribeAll {
			b.WriteByte('*')
		}
		for i, n := range q.Describe {
			if i > 0 {
				b.WriteByte(' ')
			}
			p.formatNode(n)
		}
		b.WriteString(")\n")
	default:
		b.WriteString("(select\n")
	}
	if q.Dataset != nil {
		b.WriteString("  (dataset (")
		b.WriteString(iriList(q.Dataset.Default))
		b.WriteString(") (")
		b.WriteString(iriList(q.Dataset.Named))
		b.WriteString("))\n")
	}
	b.WriteString("  ")
	p.formatOp(q.Op, 1)
	b.WriteByte(')')
	return b.String()
}

func iriList(iris []string) string {
	parts := make([]string, len(iris))
	for i, s := range iris {
		parts[i] = rdf.IRI(s).String()
	}
	return strings.Join(parts, " ")
}

// FormatExpr prints one expression.
func FormatExpr(e Expr) string {
	var b strings.Builder
	(&printer{b: &b}).formatExpr(e, 0)
	return b.String()
}

// FormatPath prints one property path.
func FormatPath(p Path) string {
	var b strings.Builder
	formatPath(&b, p)
	return b.String()
}

// indent starts an operand's line at depth, or separates it by one space when p is flat.
func (p *printer) indent(depth int) {
	if p.flat {
		p.b.WriteByte(' ')
		return
	}
	p.b.WriteByte('\n')
	for range depth {
		p.b.WriteString("  ")
	}
}

func (p *printer) formatOp(op Op, depth int) {
	b := p.b
	sub := func(ops ...Op) {
		for _, o := range ops {
			p.indent(depth + 1)
			p.formatOp(o, depth+1)
		}
		b.WriteByte(')')
	}
	switch o := op.(type) {
	case *BGP:
		b.WriteString("(bgp")
		for _, t := range o.Triples {
			b.WriteByte(' ')
			p.formatTriple(t)
		}
		b.WriteByte(')')
	case *PathPattern:
		b.WriteString("(path ")
		p.formatNode(o.S)
		b.WriteByte(' ')
		formatPath(b, o.Path)
		b.WriteByte(' ')
		p.formatNode(o.O)
		b.WriteByte(')')
	case *Join:
		b.WriteString("(join")
		sub(o.Left, o.Right)
	case *LeftJoin:
		b.WriteString("(leftjoin")
		p.indent(depth + 1)
		p.formatOp(o.Left, depth+1)
		p.indent(depth + 1)
		p.formatOp(o.Right, depth+1)
		if o.Expr != nil {
			p.indent(depth + 1)
			p.formatExpr(o.Expr, depth+1)
		}
		b.WriteByte(')')
	case *Filter:
		b.WriteString("(filter ")
		if len(o.Exprs) == 1 {
			p.formatExpr(o.Exprs[0], depth)
		} else {
			b.WriteString("(exprlist")
			for _, e := range o.Exprs {
				b.WriteByte(' ')
				p.formatExpr(e, depth)
			}
			b.WriteByte(')')
		}
		sub(o.Op)
	case *Union:
		b.WriteString("(union")
		sub(o.Left, o.Right)
	case *Minus:
		b.WriteString("(minus")
		sub(o.Left, o.Right)
	case *Graph:
		b.WriteString("(graph ")
		p.formatNode(o.Name)
		sub(o.Op)
	case *Service:
		b.WriteString("(service ")
		if o.Silent {
			b.WriteString("silent ")
		}
		p.formatNode(o.Name)
		sub(o.Op)
	case *Extend:
		b.WriteString("(extend ((?")
		b.WriteString(p.name(o.Var))
		b.WriteByte(' ')
		p.formatExpr(o.Expr, depth)
		b.WriteString("))")
		sub(o.Op)
	case *Table:
		p.formatTable(o)
	case *Group:
		b.WriteString("(group (")
		for i, k := range o.Keys {
			if i > 0 {
				b.WriteByte(' ')
			}
			if k.Var != "" {
				if v, ok := k.Expr.(Var); ok && v == k.Var {
					b.WriteString("?" + p.name(v))
					continue
				}
				b.WriteString("(?" + p.name(k.Var) + " ")
				p.formatExpr(k.Expr, depth)
				b.WriteByte(')')
				continue
			}
			p.formatExpr(k.Expr, depth)
		}
		b.WriteString(") (")
		for i, a := range o.Aggregates {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("(?" + p.name(a.Var) + " ")
			p.formatExpr(a.Aggregate, depth)
			b.WriteByte(')')
		}
		b.WriteByte(')')
		sub(o.Op)
	case *OrderBy:
		b.WriteString("(order (")
		for i, c := range o.Conds {
			if i > 0 {
				b.WriteByte(' ')
			}
			if c.Desc {
				b.WriteString("(desc ")
				p.formatExpr(c.Expr, depth)
				b.WriteByte(')')
			} else {
				p.formatExpr(c.Expr, depth)
			}
		}
		b.WriteByte(')')
		sub(o.Op)
	case *Project:
		b.WriteString("(project (")
		for i, v := range o.Vars {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("?" + p.name(v))
		}
		b.WriteByte(')')
		sub(o.Op)
	case *Distinct:
		b.WriteString("(distinct")
		sub(o.Op)
	case *Reduced:
		b.WriteString("(reduced")
		sub(o.Op)
	case *Slice:
		b.WriteString("(slice ")
		b.WriteString(strconv.FormatInt(o.Offset, 10))
		b.WriteByte(' ')
		if o.Limit < 0 {
			b.WriteByte('_')
		} else {
			b.WriteString(strconv.FormatInt(o.Limit, 10))
		}
		sub(o.Op)
	case nil:
		b.WriteString("(null)")
	default:
		b.WriteString("(unknown)")
	}
}

func (p *printer) formatTable(t *Table) {
	b := p.b
	b.WriteString("(table (vars")
	for _, v := range t.Vars {
		b.WriteString(" ?" + p.name(v))
	}
	b.WriteByte(')')
	for _, row := range t.Rows {
		b.WriteString(" (row")
		for i, term := range row {
			if term.IsZero() {
				continue
			}
			b.WriteString(" [?" + p.name(t.Vars[i]) + " ")
			b.WriteString(formatTerm(term))
			b.WriteByte(']')
		}
		b.WriteByte(')')
	}
	b.WriteByte(')')
}

func (p *printer) formatTriple(t Triple) {
	b := p.b
	b.WriteString("(triple ")
	p.formatNode(t.S)
	b.WriteByte(' ')
	p.formatNode(t.P)
	b.WriteByte(' ')
	p.formatNode(t.O)
	b.WriteByte(')')
}

func (p *printer) formatNode(n Node) {
	b := p.b
	if n.IsVar() {
		b.WriteString("?" + p.name(n.Var))
		return
	}
	b.WriteString(formatTerm(n.Term))
}

var (
	plainInteger = regexp.MustCompile(`^[+-]?[0-9]+$`)
	plainDecimal = regexp.MustCompile(`^[+-]?[0-9]*\.[0-9]+$`)
	plainDouble  = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+$`)
)

func formatTerm(t rdf.Term) string {
	if t.IsLiteral() {
		switch {
		case t.Datatype == rdf.XSDInteger && plainInteger.MatchString(t.Value),
			t.Datatype == rdf.XSDDecimal && plainDecimal.MatchString(t.Value),
			t.Datatype == rdf.XSDDouble && plainDouble.MatchString(t.Value),
			t.Datatype == rdf.XSDBoolean && (t.Value == "true" || t.Value == "false"):
			return t.Value
		}
	}
	return t.String()
}

func (p *printer) formatExpr(e Expr, depth int) {
	b := p.b
	switch x := e.(type) {
	case Var:
		b.WriteString("?" + p.name(x))
	case Constant:
		b.WriteString(formatTerm(x.Term))
	case *Call:
		b.WriteByte('(')
		b.WriteString(strings.ToLower(x.Func))
		for _, a := range x.Args {
			b.WriteByte(' ')
			p.formatExpr(a, depth)
		}
		b.WriteByte(')')
	case *FunctionCall:
		b.WriteString("(" + rdf.IRI(x.IRI).String())
		if x.Distinct {
			b.WriteString(" distinct")
		}
		for _, a := range x.Args {
			b.WriteByte(' ')
			p.formatExpr(a, depth)
		}
		b.WriteByte(')')
	case *In:
		if x.Not {
			b.WriteString("(notin ")
		} else {
			b.WriteString("(in ")
		}
		p.formatExpr(x.Expr, depth)
		for _, a := range x.List {
			b.WriteByte(' ')
			p.formatExpr(a, depth)
		}
		b.WriteByte(')')
	case *Exists:
		if x.Not {
			b.WriteString("(notexists")
		} else {
			b.WriteString("(exists")
		}
		if x.Pattern != nil {
			// Expressions print on one line, so the pattern does too: flat, not by collapsing the white space
			// of its text afterwards, which took a literal's own spaces with it ("a  b" read as "a b", and
			// Canonical gave two subqueries that differ there one form).
			b.WriteByte(' ')
			(&printer{b: b, names: p.names, flat: true}).formatOp(x.Pattern, 0)
		} else {
			b.WriteString(" (untranslated)")
		}
		b.WriteByte(')')
	case *Aggregate:
		b.WriteString("(" + strings.ToLower(x.Name))
		if x.Distinct {
			b.WriteString(" distinct")
		}
		if x.Expr != nil {
			b.WriteByte(' ')
			p.formatExpr(x.Expr, depth)
		}
		if x.Name == "GROUP_CONCAT" && x.Separator != " " {
			b.WriteString(" (separator " + rdf.String(x.Separator).String() + ")")
		}
		b.WriteByte(')')
	case nil:
		b.WriteString("true")
	default:
		b.WriteString("(unknown)")
	}
}

func formatPath(b *strings.Builder, p Path) {
	switch x := p.(type) {
	case *PathLink:
		b.WriteString(rdf.IRI(x.IRI).String())
	case *PathInverse:
		b.WriteString("(reverse ")
		formatPath(b, x.Path)
		b.WriteByte(')')
	case *PathSequence:
		b.WriteString("(seq ")
		formatPath(b, x.Left)
		b.WriteByte(' ')
		formatPath(b, x.Right)
		b.WriteByte(')')
	case *PathAlternative:
		b.WriteString("(alt ")
		formatPath(b, x.Left)
		b.WriteByte(' ')
		formatPath(b, x.Right)
		b.WriteByte(')')
	case *PathZeroOrMore:
		b.WriteString("(path* ")
		formatPath(b, x.Path)
		b.WriteByte(')')
	case *PathOneOrMore:
		b.WriteString("(path+ ")
		formatPath(b, x.Path)
		b.WriteByte(')')
	case *PathZeroOrOne:
		b.WriteString("(path? ")
		formatPath(b, x.Path)
		b.WriteByte(')')
	case *PathNegated:
		b.WriteString("(notoneof")
		for _, s := range x.IRIs {
			b.WriteString(" " + rdf.IRI(s).String())
		}
		b.WriteByte(')')
	default:
		b.WriteString("(unknown)")
	}
}

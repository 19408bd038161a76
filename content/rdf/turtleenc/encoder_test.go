package turtleenc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/turtleenc"
)

const exNS = "http://example.org/"

func ex(local string) rdf.Term { return rdf.IRI(exNS + local) }

var (
	rdfType  = rdf.IRI(rdf.RDFType)
	rdfFirst = rdf.IRI(rdf.RDFFirst)
	rdfRest  = rdf.IRI(rdf.RDFRest)
	rdfNil   = rdf.IRI(rdf.RDFNil)
	bn       = rdf.Blank
)

func typed(lex, dt string) rdf.Term { return rdf.Literal(lex, dt) }

func inGraph(g rdf.Term, qs ...rdf.Quad) []rdf.Quad {
	for i := range qs {
		qs[i].G = g
	}
	return qs
}

// listQuads builds a well-formed RDF list of items on blank nodes named prefix1, prefix2, ….
func listQuads(prefix string, items ...rdf.Term) (rdf.Term, []rdf.Quad) {
	var qs []rdf.Quad
	for i, it := range items {
		node := bn(prefix + string(rune('1'+i)))
		rest := rdfNil
		if i+1 < len(items) {
			rest = bn(prefix + string(rune('2'+i)))
		}
		qs = append(qs, rdf.Triple(node, rdfFirst, it), rdf.Triple(node, rdfRest, rest))
	}
	return bn(prefix + "1"), qs
}

func encode(t *testing.T, trig bool, o rdf.EncodeOptions, qs []rdf.Quad) string {
	t.Helper()
	var b strings.Builder
	var e rdf.Encoder
	if trig {
		e = turtleenc.NewTriGEncoder(&b, o)
	} else {
		e = turtleenc.NewEncoder(&b, o)
	}
	for _, q := range qs {
		if err := e.Encode(q); err != nil {
			t.Fatalf("Encode(%s): %v", q, err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return b.String()
}

var exPrefixes = rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: exNS}}}

func TestEncodeExact(t *testing.T) {
	l1, list1 := listQuads("l", rdf.String("a"), typed("1", rdf.XSDInteger))
	la, listA := listQuads("a", ex("x"))
	lb, listB := listQuads("b", la, ex("y"))
	lc, listC := listQuads("c", ex("head"))
	_, listD := listQuads("d", ex("head"))
	le, listE := listQuads("e", ex("x"), ex("y"))
	lf, listF := listQuads("f", typed("1", rdf.XSDInteger), ex("x"))
	lg, listG := listQuads("g", bn("z"))
	tests := []struct {
		name string
		opts rdf.EncodeOptions
		in   []rdf.Quad
		want string
	}{
		{
			name: "empty graph writes only the header",
			opts: exPrefixes,
			want: "@prefix ex: <http://example.org/> .\n",
		},
		{
			name: "grouping with rdf:type first and first-seen order",
			opts: exPrefixes,
			in: []rdf.Quad{
				rdf.Triple(ex("s"), ex("p"), ex("o1")),
				rdf.Triple(ex("t"), ex("p"), ex("o")),
				rdf.Triple(ex("s"), ex("q"), ex("o")),
				rdf.Triple(ex("s"), ex("p"), ex("o2")),
				rdf.Triple(ex("s"), rdfType, ex("C")),
				rdf.Triple(ex("s"), ex("p"), ex("o1")), // duplicate: a graph is a set
			},
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"ex:s a ex:C ;\n    ex:p ex:o1, ex:o2 ;\n    ex:q ex:o .\n\n" +
				"ex:t ex:p ex:o .\n",
		},
		{
			name: "no prefixes: full IRIs, non-ASCII as is, DEL escaped",
			in: []rdf.Quad{
				rdf.Triple(rdf.IRI("http://example.org/é"), rdf.IRI("http://example.org/\U0001F600"), rdf.IRI("http://example.org/a\x7fb")),
			},
			want: "<http://example.org/é> <http://example.org/😀> <http://example.org/a\\u007Fb> .\n",
		},
		{
			name: "invalid, duplicate and relative prefixes are skipped",
			opts: rdf.EncodeOptions{Prefixes: []rdf.Prefix{
				{Name: "1x", IRI: "http://one.example/"},
				{Name: "a.", IRI: "http://dot.example/"},
				{Name: "_", IRI: "http://underscore.example/"}, // "_:" would read as a blank node
				{Name: "ex", IRI: exNS},
				{Name: "ex", IRI: "http://other.example/"},
				{Name: "ex2", IRI: exNS}, // a second name for a namespace is declared but not used
				{Name: "rel", IRI: "relative/"},
				{Name: "dots", IRI: "http://example.org/a/../"},
				{Name: "", IRI: "http://default.example/"},
				{Name: "é.x", IRI: "http://accent.example/"},
			}},
			in: []rdf.Quad{
				rdf.Triple(rdf.IRI("http://one.example/s"), ex("p"), rdf.IRI("http://default.example/o")),
				rdf.Triple(rdf.IRI("http://underscore.example/s"), ex("p"), rdf.IRI("http://dot.example/o")),
				rdf.Triple(rdf.IRI("http://accent.example/s"), ex("p"), rdf.IRI("http://other.example/o")),
			},
			want: "@prefix ex: <http://example.org/> .\n@prefix ex2: <http://example.org/> .\n@prefix : <http://default.example/> .\n@prefix é.x: <http://accent.example/> .\n\n" +
				"<http://one.example/s> ex:p :o .\n\n" +
				"<http://underscore.example/s> ex:p <http://dot.example/o> .\n\n" +
				"é.x:s ex:p <http://other.example/o> .\n",
		},
		{
			name: "local names: escapes where allowed, full IRI where not",
			opts: exPrefixes,
			in: []rdf.Quad{
				rdf.Triple(ex("s"), ex("p"), ex("-x")),
				rdf.Triple(ex("s"), ex("p"), ex("a.")),
				rdf.Triple(ex("s"), ex("p"), ex("a.b-c")),
				rdf.Triple(ex("s"), ex("p"), ex(".a")),
				rdf.Triple(ex("s"), ex("p"), ex("a/b?c=d#e")),
				rdf.Triple(ex("s"), ex("p"), ex("%20x%4")),
				rdf.Triple(ex("s"), ex("p"), ex("")),
				rdf.Triple(ex("s"), ex("p"), ex("1:a")),
				rdf.Triple(ex("s"), ex("p"), ex("\u00b7x")),
				rdf.Triple(ex("s"), ex("p"), ex("x\u00b7")),
				rdf.Triple(ex("s"), ex("p"), ex("~'!$&()*+,;=@")),
			},
			want: "@prefix ex: <http://example.org/> .\n\n" +
				`ex:s ex:p ex:\-x, ex:a\., ex:a.b-c, ex:\.a, ex:a\/b\?c\=d\#e, ex:%20x\%4, ex:, ex:1:a,` + "\n        " + `<http://example.org/·x>, ex:x·, ex:\~\'\!\$\&\(\)\*\+\,\;\=\@ .` + "\n",
		},
		{
			name: "longest namespace wins",
			opts: rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: exNS}, {Name: "v", IRI: exNS + "vocab#"}}},
			in:   []rdf.Quad{rdf.Triple(ex("s"), ex("vocab#p"), ex("vocab"))},
			want: "@prefix ex: <http://example.org/> .\n@prefix v: <http://example.org/vocab#> .\n\nex:s v:p ex:vocab .\n",
		},
		{
			name: "base: relative references only where they resolve back",
			opts: rdf.EncodeOptions{Base: "http://example.org/dir/doc", Prefixes: []rdf.Prefix{{Name: "ex", IRI: exNS}}},
			in: []rdf.Quad{
				rdf.Triple(rdf.IRI("http://example.org/dir/doc"), rdf.IRI("http://example.org/dir/doc#p"), rdf.IRI("http://example.org/dir/other")),
				rdf.Triple(rdf.IRI("http://example.org/dir/doc"), ex("q"), rdf.IRI("http://example.org/dir/sub/x")),
				rdf.Triple(rdf.IRI("http://example.org/dir/doc"), ex("q"), rdf.IRI("http://elsewhere.example/x")),
			},
			want: "@base <http://example.org/dir/doc> .\n@prefix ex: <http://example.org/> .\n\n" +
				"<> <#p> <other> ;\n    ex:q ex:dir\\/sub\\/x, <http://elsewhere.example/x> .\n",
		},
		{
			name: "literals: bare only when the lexical form is the grammar's",
			opts: rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: exNS}, {Name: "xsd", IRI: rdf.XSDNS}}},
			in: []rdf.Quad{
				rdf.Triple(ex("s"), ex("int"), typed("-01", rdf.XSDInteger)),
				rdf.Triple(ex("s"), ex("int"), typed("1.0", rdf.XSDInteger)),
				rdf.Triple(ex("s"), ex("int"), typed("", rdf.XSDInteger)),
				rdf.Triple(ex("s"), ex("dec"), typed("+.5", rdf.XSDDecimal)),
				rdf.Triple(ex("s"), ex("dec"), typed("1.", rdf.XSDDecimal)),
				rdf.Triple(ex("s"), ex("dec"), typed("1", rdf.XSDDecimal)),
				rdf.Triple(ex("s"), ex("dbl"), typed("1.e-3", rdf.XSDDouble)),
				rdf.Triple(ex("s"), ex("dbl"), typed(".5E10", rdf.XSDDouble)),
				rdf.Triple(ex("s"), ex("dbl"), typed("INF", rdf.XSDDouble)),
				rdf.Triple(ex("s"), ex("dbl"), typed("1.5", rdf.XSDDouble)),
				rdf.Triple(ex("s"), ex("dbl"), typed("1e", rdf.XSDDouble)),
				rdf.Triple(ex("s"), ex("bool"), typed("true", rdf.XSDBoolean)),
				rdf.Triple(ex("s"), ex("bool"), typed("1", rdf.XSDBoolean)),
				rdf.Triple(ex("s"), ex("str"), rdf.String("plain")),
				rdf.Triple(ex("s"), ex("str"), typed("typed", rdf.XSDString)),
				rdf.Triple(ex("s"), ex("lang"), rdf.LangString("chat", "fr-BE")),
				rdf.Triple(ex("s"), ex("dt"), typed("x", exNS+"dt")),
				rdf.Triple(ex("s"), ex("dt"), typed("y", "http://other.example/dt")),
			},
			want: "@prefix ex: <http://example.org/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n\n" +
				"ex:s ex:int -01, \"1.0\"^^xsd:integer, \"\"^^xsd:integer ;\n" +
				"    ex:dec +.5, \"1.\"^^xsd:decimal, \"1\"^^xsd:decimal ;\n" +
				"    ex:dbl 1.e-3, .5E10, \"INF\"^^xsd:double, \"1.5\"^^xsd:double, \"1e\"^^xsd:double ;\n" +
				"    ex:bool true, \"1\"^^xsd:boolean ;\n" +
				"    ex:str \"plain\", \"typed\" ;\n" +
				"    ex:lang \"chat\"@fr-BE ;\n" +
				"    ex:dt \"x\"^^ex:dt, \"y\"^^<http://other.example/dt> .\n",
		},
		{
			name: "literals sharing a lexical form stay distinct, exact duplicates go",
			opts: exPrefixes,
			in: []rdf.Quad{
				rdf.Triple(ex("s"), ex("p"), typed("1", rdf.XSDInteger)),
				rdf.Triple(ex("s"), ex("p"), typed("1", rdf.XSDDecimal)),
				rdf.Triple(ex("s"), ex("p"), rdf.String("1")),
				rdf.Triple(ex("s"), ex("p"), rdf.LangString("1", "en")),
				rdf.Triple(ex("s"), ex("p"), rdf.LangString("1", "de")),
				rdf.Triple(ex("s"), ex("p"), typed("1", rdf.XSDDecimal)),
				rdf.Triple(ex("s"), ex("p"), rdf.LangString("1", "en")),
				rdf.Triple(ex("s"), ex("p"), ex("1")),
			},
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"ex:s ex:p 1, \"1\"^^<http://www.w3.org/2001/XMLSchema#decimal>, \"1\", \"1\"@en, \"1\"@de, ex:1 .\n",
		},
		{
			name: "strings: escapes, long form for line breaks, trailing and leading quotes",
			opts: exPrefixes,
			in: []rdf.Quad{
				rdf.Triple(ex("s"), ex("p"), rdf.String("tab\there \"q\" back\\slash\r\x00\x1f\x7f")),
				rdf.Triple(ex("s"), ex("p"), rdf.String("line 1\nline \"2\"")),
				rdf.Triple(ex("s"), ex("p"), rdf.String("\"\"\"x\n\"\"y\\\r\b\f\x01")),
			},
			want: "@prefix ex: <http://example.org/> .\n\n" +
				`ex:s ex:p "tab\there \"q\" back\\slash\r\u0000\u001F\u007F", """line 1` + "\n" + `line "2\"""", """\"\""x` + "\n" + `\""y\\\r\b\f\u0001""" .` + "\n",
		},
		{
			name: "blank node referenced once is nested, twice is labelled",
			opts: exPrefixes,
			in: []rdf.Quad{
				rdf.Triple(ex("s"), ex("p"), bn("once")),
				rdf.Triple(bn("once"), ex("q"), rdf.String("v")),
				rdf.Triple(bn("once"), ex("r"), bn("leaf")),
				rdf.Triple(ex("s"), ex("p"), bn("one")),
				rdf.Triple(bn("one"), rdfType, ex("C")),
				rdf.Triple(ex("s"), ex("p"), bn("twice")),
				rdf.Triple(ex("t"), ex("p"), bn("twice")),
				rdf.Triple(bn("twice"), ex("q"), rdf.String("w")),
			},
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"ex:s ex:p [\n        ex:q \"v\" ;\n        ex:r []\n    ], [ a ex:C ], _:twice .\n\n" +
				"ex:t ex:p _:twice .\n\n" +
				"_:twice ex:q \"w\" .\n",
		},
		{
			name: "unreferenced blank subject and nested property lists",
			opts: exPrefixes,
			in: []rdf.Quad{
				rdf.Triple(bn("a"), ex("p"), ex("o")),
				rdf.Triple(bn("b"), ex("p"), ex("o")),
				rdf.Triple(bn("b"), ex("q"), bn("c")),
				rdf.Triple(bn("c"), ex("r"), bn("d")),
				rdf.Triple(bn("d"), ex("r"), ex("o")),
				rdf.Triple(bn("d"), ex("r"), ex("o2")),
			},
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"[ ex:p ex:o ] .\n\n" +
				"[\n    ex:p ex:o ;\n    ex:q [\n        ex:r [\n            ex:r ex:o, ex:o2\n        ]\n    ]\n] .\n",
		},
		{
			name: "cycles keep one label, self loops too",
			opts: exPrefixes,
			in: []rdf.Quad{
				rdf.Triple(bn("x"), ex("p"), bn("y")),
				rdf.Triple(bn("y"), ex("p"), bn("z")),
				rdf.Triple(bn("z"), ex("p"), bn("x")),
				rdf.Triple(bn("self"), ex("p"), bn("self")),
			},
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"_:x ex:p [\n        ex:p [ ex:p _:x ]\n    ] .\n\n" +
				"_:self ex:p _:self .\n",
		},
		{
			name: "lists as objects, as subjects, nested, empty",
			opts: exPrefixes,
			in: concat(
				[]rdf.Quad{rdf.Triple(ex("s"), ex("list"), l1)}, list1,
				[]rdf.Quad{rdf.Triple(ex("s"), ex("nested"), lb)}, listB, listA,
				[]rdf.Quad{rdf.Triple(ex("s"), ex("empty"), rdfNil)},
				listC, []rdf.Quad{rdf.Triple(lc, ex("p"), ex("o"))},
				listD,
				[]rdf.Quad{rdf.Triple(ex("s"), ex("two"), le), rdf.Triple(ex("t"), ex("two"), le)}, listE,
			),
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"ex:s ex:list ( \"a\" 1 ) ;\n    ex:nested ( ( ex:x ) ex:y ) ;\n    ex:empty () ;\n    ex:two _:e1 .\n\n" +
				"( ex:head ) ex:p ex:o .\n\n" +
				"[\n    <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> ex:head ;\n    <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> ()\n] .\n\n" +
				"ex:t ex:two _:e1 .\n\n" +
				"_:e1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> ex:x ;\n    <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> ( ex:y ) .\n",
		},
		{
			name: "a property list holding one plain collection stays on one line",
			opts: exPrefixes,
			in: concat(
				[]rdf.Quad{rdf.Triple(ex("s"), ex("p"), bn("x")), rdf.Triple(bn("x"), ex("q"), lf)}, listF,
				[]rdf.Quad{rdf.Triple(ex("s"), ex("p"), bn("y")), rdf.Triple(bn("y"), ex("q"), lg)}, listG,
				[]rdf.Quad{rdf.Triple(bn("z"), ex("r"), ex("o"))},
			),
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"ex:s ex:p [ ex:q ( 1 ex:x ) ], [\n        ex:q ( [ ex:r ex:o ] )\n    ] .\n",
		},
		{
			name: "almost-lists: extra triple, two firsts, literal rest",
			opts: rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: exNS}, {Name: "rdf", IRI: rdf.RDFNS}}},
			in: []rdf.Quad{
				rdf.Triple(ex("s"), ex("p"), bn("x1")),
				rdf.Triple(bn("x1"), rdfFirst, ex("a")),
				rdf.Triple(bn("x1"), rdfRest, rdfNil),
				rdf.Triple(bn("x1"), ex("extra"), ex("b")),
				rdf.Triple(ex("s"), ex("p"), bn("y1")),
				rdf.Triple(bn("y1"), rdfFirst, ex("a")),
				rdf.Triple(bn("y1"), rdfFirst, ex("b")),
				rdf.Triple(bn("y1"), rdfRest, rdfNil),
				rdf.Triple(ex("s"), ex("p"), bn("z1")),
				rdf.Triple(bn("z1"), rdfFirst, ex("a")),
				rdf.Triple(bn("z1"), rdfRest, rdf.String("nil")),
			},
			want: "@prefix ex: <http://example.org/> .\n@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n\n" +
				"ex:s ex:p [\n        rdf:first ex:a ;\n        rdf:rest () ;\n        ex:extra ex:b\n    ], [\n        rdf:first ex:a, ex:b ;\n        rdf:rest ()\n    ], [\n        rdf:first ex:a ;\n        rdf:rest \"nil\"\n    ] .\n",
		},
		{
			name: "blank labels Turtle cannot carry are replaced by fresh ones",
			opts: exPrefixes,
			in: []rdf.Quad{
				rdf.Triple(bn("a.b."), ex("p"), bn("-x")),
				rdf.Triple(ex("s"), ex("p"), bn("-x")),
				rdf.Triple(ex("s"), ex("p"), bn("a.b.")),
				rdf.Triple(ex("s"), ex("p"), bn("b1")),
				rdf.Triple(ex("t"), ex("p"), bn("b1")),
				rdf.Triple(ex("t"), ex("p"), bn("a.b.")),
				rdf.Triple(ex("t"), ex("p"), bn("ok.1")),
				rdf.Triple(ex("u"), ex("p"), bn("ok.1")),
			},
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"_:b2 ex:p _:b3 .\n\n" +
				"ex:s ex:p _:b3, _:b2, _:b1 .\n\n" +
				"ex:t ex:p _:b1, _:b2, _:ok.1 .\n\n" +
				"ex:u ex:p _:ok.1 .\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := encode(t, false, tt.opts, tt.in)
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func concat(parts ...[]rdf.Quad) []rdf.Quad {
	var out []rdf.Quad
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestEncodeTriGExact(t *testing.T) {
	tests := []struct {
		name string
		opts rdf.EncodeOptions
		in   []rdf.Quad
		want string
	}{
		{
			name: "default graph first, then named graphs in first-seen order",
			opts: exPrefixes,
			in: concat(
				inGraph(ex("g2"), rdf.Triple(ex("s"), ex("p"), ex("o")), rdf.Triple(ex("s"), ex("p"), ex("o2"))),
				[]rdf.Quad{rdf.Triple(ex("d"), ex("p"), ex("o"))},
				inGraph(bn("g"), rdf.Triple(ex("s"), ex("p"), bn("x")), rdf.Triple(ex("t"), ex("p"), ex("o"))),
			),
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"ex:d ex:p ex:o .\n\n" +
				"ex:g2 {\n    ex:s ex:p ex:o, ex:o2 .\n}\n\n" +
				"_:g {\n    ex:s ex:p [] .\n\n    ex:t ex:p ex:o .\n}\n",
		},
		{
			name: "blank nodes shared across graphs or naming a graph keep labels",
			in: concat(
				inGraph(ex("g1"), rdf.Triple(ex("s"), ex("p"), bn("shared")), rdf.Triple(bn("shared"), ex("q"), ex("o"))),
				inGraph(ex("g2"), rdf.Triple(bn("shared"), ex("r"), ex("o")), rdf.Triple(bn("gname"), ex("p"), bn("local"))),
				inGraph(bn("gname"), rdf.Triple(bn("local"), ex("p"), ex("o"))),
			),
			want: "<http://example.org/g1> {\n    <http://example.org/s> <http://example.org/p> _:shared .\n\n" +
				"    _:shared <http://example.org/q> <http://example.org/o> .\n}\n\n" +
				"<http://example.org/g2> {\n    _:shared <http://example.org/r> <http://example.org/o> .\n\n" +
				"    _:gname <http://example.org/p> _:local .\n}\n\n" +
				"_:gname {\n    _:local <http://example.org/p> <http://example.org/o> .\n}\n",
		},
		{
			name: "nesting inside a graph block is indented from the block",
			opts: exPrefixes,
			in: inGraph(ex("g"),
				rdf.Triple(ex("s"), ex("p"), bn("x")),
				rdf.Triple(bn("x"), ex("q"), ex("o")),
				rdf.Triple(bn("x"), ex("r"), ex("o")),
				rdf.Triple(bn("y"), ex("q"), ex("o")),
				rdf.Triple(bn("y"), ex("r"), ex("o")),
			),
			want: "@prefix ex: <http://example.org/> .\n\n" +
				"ex:g {\n    ex:s ex:p [\n            ex:q ex:o ;\n            ex:r ex:o\n        ] .\n\n" +
				"    [\n        ex:q ex:o ;\n        ex:r ex:o\n    ] .\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := encode(t, true, tt.opts, tt.in)
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestEncodeRejects(t *testing.T) {
	tests := []struct {
		name string
		trig bool
		q    rdf.Quad
	}{
		{"named graph in Turtle", false, rdf.Quad{S: ex("s"), P: ex("p"), O: ex("o"), G: ex("g")}},
		{"literal subject", false, rdf.Triple(rdf.String("s"), ex("p"), ex("o"))},
		{"missing subject", false, rdf.Triple(rdf.Term{}, ex("p"), ex("o"))},
		{"blank predicate", false, rdf.Triple(ex("s"), bn("p"), ex("o"))},
		{"missing object", false, rdf.Triple(ex("s"), ex("p"), rdf.Term{})},
		{"literal graph name", true, rdf.Quad{S: ex("s"), P: ex("p"), O: ex("o"), G: rdf.String("g")}},
		{"bad language tag", false, rdf.Triple(ex("s"), ex("p"), rdf.LangString("x", "en_US"))},
		{"language tag with a digit first", false, rdf.Triple(ex("s"), ex("p"), rdf.LangString("x", "1en"))},
		{"langString without tag", false, rdf.Triple(ex("s"), ex("p"), typed("x", rdf.RDFLangString))},
		{"language tag on a typed literal", false, rdf.Triple(ex("s"), ex("p"), rdf.Term{Kind: rdf.KindLiteral, Value: "x", Datatype: rdf.XSDString, Lang: "en"})},
		{"literal not UTF-8", false, rdf.Triple(ex("s"), ex("p"), rdf.String("\xff"))},
		{"IRI not UTF-8", false, rdf.Triple(ex("s\xc3"), ex("p"), ex("o"))},
		{"IRI with a space", false, rdf.Triple(ex("a b"), ex("p"), ex("o"))},
		{"IRI with a quote", false, rdf.Triple(ex("s"), ex("\"p\""), ex("o"))},
		{"IRI with angle brackets", false, rdf.Triple(ex("s"), ex("p"), ex("<o>"))},
		{"IRI with a backslash", false, rdf.Triple(ex("s"), ex("p"), ex("a\\b"))},
		{"IRI with a control character", false, rdf.Triple(ex("s"), ex("p"), ex("a\nb"))},
		{"IRI with braces, pipe, caret, backtick", false, rdf.Triple(ex("s"), ex("p"), ex("{|^`}"))},
		{"datatype IRI with a space", false, rdf.Triple(ex("s"), ex("p"), typed("x", exNS+"d t"))},
		{"graph name with a space", true, rdf.Quad{S: ex("s"), P: ex("p"), O: ex("o"), G: ex("g h")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			var e rdf.Encoder = turtleenc.NewEncoder(&b, rdf.EncodeOptions{})
			if tt.trig {
				e = turtleenc.NewTriGEncoder(&b, rdf.EncodeOptions{})
			}
			if err := e.Encode(tt.q); err == nil {
				t.Fatalf("Encode(%s) succeeded", tt.q)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if b.Len() != 0 {
				t.Errorf("rejected quad was written: %q", b.String())
			}
		})
	}
}

func TestEncodeAfterClose(t *testing.T) {
	e := turtleenc.NewEncoder(&strings.Builder{}, rdf.EncodeOptions{})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Encode(rdf.Triple(ex("s"), ex("p"), ex("o"))); !errors.Is(err, turtleenc.ErrClosed) {
		t.Errorf("Encode after Close: got %v, want ErrClosed", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestCloseReportsWriteError(t *testing.T) {
	e := turtleenc.NewEncoder(failWriter{}, rdf.EncodeOptions{})
	if err := e.Encode(rdf.Triple(ex("s"), ex("p"), ex("o"))); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Close: got %v, want the write error", err)
	}
}

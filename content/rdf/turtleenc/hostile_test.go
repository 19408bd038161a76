package turtleenc_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// chain returns s p _:c1 . _:c1 p _:c2 . … n levels deep: each node referenced once, so all of it is nestable.
func chain(n int) []rdf.Quad {
	qs := []rdf.Quad{rdf.Triple(ex("s"), ex("p"), bn("c1"))}
	for i := 1; i < n; i++ {
		qs = append(qs, rdf.Triple(bn("c"+strconv.Itoa(i)), ex("p"), bn("c"+strconv.Itoa(i+1))))
	}
	return append(qs, rdf.Triple(bn("c"+strconv.Itoa(n)), ex("p"), rdf.String("bottom")))
}

// nestedLists returns ( ( ( … "x" … ) ) ) n levels deep as the object of one triple.
func nestedLists(n int) []rdf.Quad {
	var qs []rdf.Quad
	inner := rdf.String("x")
	for i := n; i >= 1; i-- {
		node := bn("n" + strconv.Itoa(i))
		qs = append(qs, rdf.Triple(node, rdfFirst, inner), rdf.Triple(node, rdfRest, rdfNil))
		inner = node
	}
	return append(qs, rdf.Triple(ex("s"), ex("p"), inner))
}

func longList(n int) []rdf.Quad {
	items := make([]rdf.Term, n)
	for i := range items {
		items[i] = typed(strconv.Itoa(i), rdf.XSDInteger)
	}
	var qs []rdf.Quad
	for i, it := range items {
		node := bn("L" + strconv.Itoa(i))
		rest := rdfNil
		if i+1 < n {
			rest = bn("L" + strconv.Itoa(i+1))
		}
		qs = append(qs, rdf.Triple(node, rdfFirst, it), rdf.Triple(node, rdfRest, rest))
	}
	return append(qs, rdf.Triple(ex("s"), ex("p"), bn("L0")))
}

func allControls() string {
	var b strings.Builder
	for c := 0; c < 0x20; c++ {
		b.WriteByte(byte(c))
	}
	b.WriteString("\x7f\u0085\u2028\ufeff\U0001F600")
	return b.String()
}

func TestRoundTripHostile(t *testing.T) {
	big := strings.Repeat("a \"quoted\" line\\ with a\ttab\n", 40000) // ~1 MB, long form
	prefixes := rdf.EncodeOptions{Prefixes: []rdf.Prefix{
		{Name: "ex", IRI: exNS}, {Name: "", IRI: exNS + "ns#"}, {Name: "rdf", IRI: rdf.RDFNS},
	}}
	withBase := prefixes
	withBase.Base = exNS + "dir/doc"
	tests := []struct {
		name  string
		trig  bool
		opts  rdf.EncodeOptions
		in    []rdf.Quad
		check func(t *testing.T, out string)
	}{
		{name: "IRIs with non-ASCII, DEL and every escapable local-name character", opts: prefixes, in: []rdf.Quad{
			rdf.Triple(ex("é/ü?q=1#frag"), ex("\U0001F600"), rdf.IRI("urn:x-\x7f")),
			rdf.Triple(ex("-_~.!$&'()*+,;=/?#@%"), ex("ns#."), ex("ns#%41%")),
		}},
		{name: "every control character, short and long strings", opts: prefixes, in: []rdf.Quad{
			rdf.Triple(ex("s"), ex("p"), rdf.String(allControls())),
			rdf.Triple(ex("s"), ex("p"), rdf.String(strings.ReplaceAll(allControls(), "\n", ""))),
			rdf.Triple(ex("s"), ex("p"), rdf.LangString(allControls(), "en")),
			rdf.Triple(ex("s"), ex("p"), typed(allControls(), exNS+"dt")),
		}},
		{name: "quote runs and trailing quotes and backslashes in long strings", opts: prefixes, in: []rdf.Quad{
			rdf.Triple(ex("s"), ex("p"), rdf.String("\n\"")),
			rdf.Triple(ex("s"), ex("p"), rdf.String("\"\n")),
			rdf.Triple(ex("s"), ex("p"), rdf.String("\n\"\"")),
			rdf.Triple(ex("s"), ex("p"), rdf.String("\n\"\"\"\"\"\"\"")),
			rdf.Triple(ex("s"), ex("p"), rdf.String("a\n\\")),
			rdf.Triple(ex("s"), ex("p"), rdf.String("a\n\\\"")),
			rdf.Triple(ex("s"), ex("p"), rdf.String("'''\n'''")),
		}},
		{name: "language tags", opts: prefixes, in: []rdf.Quad{
			rdf.Triple(ex("s"), ex("p"), rdf.LangString("x", "en")),
			rdf.Triple(ex("s"), ex("p"), rdf.LangString("x", "en-US")),
			rdf.Triple(ex("s"), ex("p"), rdf.LangString("x", "x-private-1a2b")),
			rdf.Triple(ex("s"), ex("p"), rdf.LangString("x\ny", "zh-Hant-TW")),
		}},
		{name: "very long literal", opts: prefixes, in: []rdf.Quad{
			rdf.Triple(ex("s"), ex("p"), rdf.String(big)),
			rdf.Triple(ex("s"), ex("p"), rdf.String(strings.ReplaceAll(big, "\n", " "))),
		}},
		{name: "deep blank-node nesting falls back to labels", opts: prefixes, in: chain(2000),
			check: func(t *testing.T, out string) {
				if n := maxBracketDepth(out); n > 33 {
					t.Errorf("brackets nest %d deep", n)
				}
			}},
		{name: "lists of lists, deeper than the nesting bound", opts: prefixes, in: nestedLists(100),
			check: func(t *testing.T, out string) {
				if n := maxBracketDepth(out); n > 33 {
					t.Errorf("brackets nest %d deep", n)
				}
				if !strings.Contains(out, "( ( ( (") {
					t.Errorf("nested lists not written as collections:\n%s", out)
				}
			}},
		{name: "long list stays one collection", opts: prefixes, in: longList(10000),
			check: func(t *testing.T, out string) {
				if strings.Contains(out, "rdf:first") {
					t.Error("long list was not written as ( … )")
				}
			}},
		{name: "blank node object of two triples is not nested", opts: prefixes, in: []rdf.Quad{
			rdf.Triple(ex("s"), ex("p"), bn("shared")),
			rdf.Triple(ex("t"), ex("p"), bn("shared")),
			rdf.Triple(bn("shared"), ex("q"), rdf.String("v")),
		}, check: func(t *testing.T, out string) {
			if strings.Contains(out, "[") || strings.Count(out, "_:shared") != 3 {
				t.Errorf("shared blank node nested or mislabelled:\n%s", out)
			}
		}},
		{name: "lists sharing a tail are not collections", opts: prefixes, in: []rdf.Quad{
			rdf.Triple(ex("s"), ex("p"), bn("h1")),
			rdf.Triple(ex("s"), ex("p"), bn("h2")),
			rdf.Triple(bn("h1"), rdfFirst, rdf.String("1")), rdf.Triple(bn("h1"), rdfRest, bn("tail")),
			rdf.Triple(bn("h2"), rdfFirst, rdf.String("2")), rdf.Triple(bn("h2"), rdfRest, bn("tail")),
			rdf.Triple(bn("tail"), rdfFirst, rdf.String("t")), rdf.Triple(bn("tail"), rdfRest, rdfNil),
		}, check: func(t *testing.T, out string) {
			if !strings.Contains(out, "rdf:rest _:tail") {
				t.Errorf("shared tail not labelled:\n%s", out)
			}
		}},
		{name: "relative IRIs against a base", opts: withBase, in: []rdf.Quad{
			rdf.Triple(ex("dir/doc"), ex("dir/doc#p"), ex("dir/x.y")),
			rdf.Triple(ex("dir/doc?q"), ex("dir/.."), ex("dir/a:b")),
			rdf.Triple(ex("dir/"), ex("dir/#"), ex("dir/doc#")),
		}},
		{name: "blank labels that are not Turtle", opts: prefixes, in: []rdf.Quad{
			rdf.Triple(bn("-x"), ex("p"), bn("a b")),
			rdf.Triple(bn("a b"), ex("p"), bn("-x")),
			rdf.Triple(bn("é"), ex("p"), bn("1.")),
			rdf.Triple(ex("s"), ex("p"), bn("1.")),
			rdf.Triple(ex("s"), ex("p"), bn("")),
			rdf.Triple(ex("t"), ex("p"), bn("")),
			rdf.Triple(bn("b1"), ex("p"), bn("b1")),
		}},
		{name: "TriG: graphs sharing blank nodes, blank graph names used as nodes", trig: true, opts: prefixes, in: concat(
			inGraph(bn("g"), rdf.Triple(bn("x"), ex("p"), bn("y")), rdf.Triple(bn("y"), ex("p"), bn("g"))),
			inGraph(ex("g2"), rdf.Triple(ex("s"), ex("p"), bn("y")), rdf.Triple(bn("z"), ex("p"), ex("o"))),
			[]rdf.Quad{rdf.Triple(bn("z"), ex("q"), bn("g")), rdf.Triple(bn("w"), ex("q"), ex("o"))},
			inGraph(bn("w"), chain(50)...),
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, why := roundTrip(tt.in, tt.trig, tt.opts)
			if why != "" {
				t.Fatal(why)
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
}

// TestDotSegments pins down IRIs with dot segments: exact as prefixed names, and written as they are otherwise,
// where a resolving reader normalises them (documented on appendIRI; there is no other spelling).
func TestDotSegments(t *testing.T) {
	in := []rdf.Quad{rdf.Triple(ex("a/../b"), ex("p"), rdf.IRI("http://other.example/./c"))}
	out := encode(t, false, exPrefixes, in)
	want := "@prefix ex: <http://example.org/> .\n\nex:a\\/..\\/b ex:p <http://other.example/./c> .\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	exact := []rdf.Quad{rdf.Triple(ex("a/../b"), ex("./p"), ex("."))}
	if _, why := roundTrip(exact, false, exPrefixes); why != "" {
		t.Error(why)
	}
}

// maxBracketDepth is the deepest nesting of [ ] and ( ) outside strings and IRIs in out.
func maxBracketDepth(out string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '"':
			// Skip the string; the tests that use this have no quotes inside literals.
			j := strings.IndexByte(out[i+1:], '"')
			if j < 0 {
				return deepest
			}
			i += j + 1
		case '<':
			i += strings.IndexByte(out[i:], '>')
		case '[', '(':
			depth++
			deepest = max(deepest, depth)
		case ']', ')':
			depth--
		}
	}
	return deepest
}

// TestRoundTripRandom writes random datasets built from the hardest pieces (blank nodes referenced 0–3 times,
// cycles, well-formed and broken lists, names that need escapes or cannot be prefixed, literals of every kind) and
// requires each to read back as itself. The seed is fixed so a failure reproduces.
func TestRoundTripRandom(t *testing.T) {
	for _, trig := range []bool{false, true} {
		r := rand.New(rand.NewPCG(1, 2))
		for i := range 400 {
			g := randomGraph(r, trig)
			if _, why := roundTrip(g.quads, trig, g.opts); why != "" {
				t.Fatalf("trig=%v graph %d (base %q):\n%s", trig, i, g.opts.Base, why)
			}
		}
	}
}

type randGraph struct {
	quads []rdf.Quad
	opts  rdf.EncodeOptions
}

var (
	localPieces = []string{"a", "B", "z9", "_", "0", "-", ".", ":", "%41", "%", "%g1", "/", "#", "?", "~", "é", "\u00b7",
		"\u0301", "\x7f", "\U0001F600", "a.b", "x-y", "'", "(", ")", "=", "@", "!", "$", "&", "*", "+", ",", ";"}
	namespaces = []string{"http://ex.org/", "http://ex.org/ns#", "http://ex.org/dir/", "http://ex.org/dir/sub/",
		"http://other.example/", "urn:x:"}
	literalPieces = []string{"a", " ", "\n", "\r", "\t", "\"", "\"\"", "\"\"\"", "'", "\\", "\x00", "\x1b", "\x7f", "é",
		"\U0001F600", "1", "."}
	numbers    = []string{"1", "-0", "+12", "1.5", ".5", "1.", "1e3", "1.0E-2", ".5e1", "INF", "NaN", "", "01", "1 ", "true"}
	blankNames = []string{"a", "b", "c", "d", "e", "f", "g1", "h.i", "-x", "y.", "1", "é", "a b", "b1", "b2"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func randomLocal(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(pick(r, localPieces))
	}
	return b.String()
}

// randomIRI returns an IRI that reads back as itself when written as <…>: dot segments are normalised away by
// readers that resolve absolute IRIs (see TestDotSegments).
func randomIRI(r *rand.Rand) rdf.Term {
	for {
		s := pick(r, namespaces) + randomLocal(r)
		if res, err := iri.Resolve(s, s); err == nil && res == s {
			return rdf.IRI(s)
		}
	}
}

func randomLiteral(r *rand.Rand) rdf.Term {
	switch r.IntN(5) {
	case 0:
		dt := pick(r, []string{rdf.XSDInteger, rdf.XSDDecimal, rdf.XSDDouble, rdf.XSDBoolean})
		return typed(pick(r, numbers), dt)
	case 1:
		return rdf.LangString(randomText(r), pick(r, []string{"en", "en-GB", "x-a1"}))
	case 2:
		return typed(randomText(r), randomIRI(r).Value)
	default:
		return rdf.String(randomText(r))
	}
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pick(r, literalPieces))
	}
	return b.String()
}

func randomGraph(r *rand.Rand, trig bool) randGraph {
	var g randGraph
	if r.IntN(2) == 0 {
		g.opts.Prefixes = []rdf.Prefix{{Name: "ex", IRI: "http://ex.org/"}, {Name: "", IRI: "http://ex.org/ns#"},
			{Name: "d", IRI: "http://ex.org/dir/"}, {Name: "rdf", IRI: rdf.RDFNS}, {Name: "u", IRI: "urn:x:"}}
	}
	if r.IntN(2) == 0 {
		g.opts.Base = "http://ex.org/dir/doc"
	}
	blank := func() rdf.Term { return bn(pick(r, blankNames)) }
	graphName := func() rdf.Term {
		if !trig || r.IntN(2) == 0 {
			return rdf.Term{}
		}
		if r.IntN(3) == 0 {
			return blank()
		}
		return randomIRI(r)
	}
	node := func() rdf.Term {
		if r.IntN(2) == 0 {
			return blank()
		}
		return randomIRI(r)
	}
	for range 1 + r.IntN(25) {
		gn := graphName()
		switch r.IntN(6) {
		case 0: // a list, sometimes broken
			n := r.IntN(4)
			head := blank()
			cur := head
			for k := 0; k < n; k++ {
				next := rdfNil
				if k+1 < n {
					next = bn(fmt.Sprintf("l%d_%d", r.IntN(1000), k))
				}
				var item rdf.Term
				if r.IntN(3) == 0 {
					item = blank()
				} else {
					item = randomLiteral(r)
				}
				g.quads = append(g.quads, rdf.Quad{S: cur, P: rdfFirst, O: item, G: gn}, rdf.Quad{S: cur, P: rdfRest, O: next, G: gn})
				if r.IntN(10) == 0 {
					g.quads = append(g.quads, rdf.Quad{S: cur, P: ex("extra"), O: randomLiteral(r), G: gn})
				}
				cur = next
			}
			g.quads = append(g.quads, rdf.Quad{S: node(), P: randomIRI(r), O: head, G: gn})
		case 1:
			g.quads = append(g.quads, rdf.Quad{S: node(), P: randomIRI(r), O: randomLiteral(r), G: gn})
		case 2:
			g.quads = append(g.quads, rdf.Quad{S: node(), P: rdfType, O: node(), G: gn})
		default:
			g.quads = append(g.quads, rdf.Quad{S: node(), P: randomIRI(r), O: node(), G: gn})
		}
	}
	return g
}

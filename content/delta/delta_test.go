package delta_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/delta"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/canon"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

func iri(s string) rdf.Term { return rdf.IRI("http://example.com/" + s) }

func lines(qs []rdf.Quad) string {
	var b strings.Builder
	for _, q := range qs {
		b.WriteString(canon.Line(q))
	}
	return b.String()
}

func canonical(qs ...rdf.Quad) string {
	res, err := canon.Canonicalize(context.Background(), qs, canon.Options{})
	if err != nil {
		panic(err)
	}
	return string(res.NQuads())
}

var (
	t1  = rdf.Triple(iri("s"), iri("p"), iri("o"))
	t2  = rdf.Triple(iri("s"), iri("p"), rdf.String("x"))
	t3  = rdf.Triple(iri("s"), iri("q"), rdf.LangString("x", "en"))
	q4  = rdf.Quad{S: iri("s"), P: iri("p"), O: iri("o"), G: iri("g")}
	bl1 = []rdf.Quad{
		rdf.Triple(iri("s"), iri("addr"), rdf.Blank("a")),
		rdf.Triple(rdf.Blank("a"), iri("street"), rdf.String("Main St")),
		rdf.Triple(rdf.Blank("a"), iri("next"), rdf.Blank("b")),
		rdf.Triple(rdf.Blank("b"), iri("next"), rdf.Blank("a")),
	}
	// bl1 re-serialised: other labels, other order.
	bl1r = []rdf.Quad{
		rdf.Triple(rdf.Blank("y"), iri("next"), rdf.Blank("x")),
		rdf.Triple(rdf.Blank("x"), iri("next"), rdf.Blank("y")),
		rdf.Triple(rdf.Blank("x"), iri("street"), rdf.String("Main St")),
		rdf.Triple(iri("s"), iri("addr"), rdf.Blank("x")),
	}
)

func TestCompute(t *testing.T) {
	tests := []struct {
		name             string
		a, b             []rdf.Quad
		added, removed   []rdf.Quad
		addedS, removedS string // expected canonical lines, for cases with blank nodes
	}{
		{name: "both empty"},
		{name: "identical", a: []rdf.Quad{t1, t2}, b: []rdf.Quad{t1, t2}},
		{name: "reordered with duplicates", a: []rdf.Quad{t1, t2, t1}, b: []rdf.Quad{t2, t2, t1}},
		{name: "added", a: []rdf.Quad{t1}, b: []rdf.Quad{t3, t1, t2}, added: []rdf.Quad{t2, t3}},
		{name: "removed", a: []rdf.Quad{t1, t2, t3}, b: []rdf.Quad{t2}, removed: []rdf.Quad{t1, t3}},
		{name: "graph name matters", a: []rdf.Quad{t1}, b: []rdf.Quad{q4}, added: []rdf.Quad{q4}, removed: []rdf.Quad{t1}},
		{name: "empty datatype is xsd:string", a: []rdf.Quad{t2},
			b: []rdf.Quad{rdf.Triple(iri("s"), iri("p"), rdf.Term{Kind: rdf.KindLiteral, Value: "x"})}},
		{name: "language tag matters", a: []rdf.Quad{t3}, b: []rdf.Quad{rdf.Triple(iri("s"), iri("q"), rdf.LangString("x", "de"))},
			added: []rdf.Quad{rdf.Triple(iri("s"), iri("q"), rdf.LangString("x", "de"))}, removed: []rdf.Quad{t3}},
		{name: "datatype matters", a: []rdf.Quad{t2}, b: []rdf.Quad{rdf.Triple(iri("s"), iri("p"), rdf.Literal("x", rdf.XSDInteger))},
			added: []rdf.Quad{rdf.Triple(iri("s"), iri("p"), rdf.Literal("x", rdf.XSDInteger))}, removed: []rdf.Quad{t2}},
		{name: "blank nodes relabelled and reordered", a: append([]rdf.Quad{t1}, bl1...), b: append(bl1r, t1)},
		{name: "blank nodes plus a ground change", a: append([]rdf.Quad{t1}, bl1...), b: append(bl1r, t2),
			addedS: lines([]rdf.Quad{t2}), removedS: lines([]rdf.Quad{t1})},
		{name: "blank node content changed", a: bl1, b: []rdf.Quad{
			rdf.Triple(iri("s"), iri("addr"), rdf.Blank("n")), rdf.Triple(rdf.Blank("n"), iri("street"), rdf.String("High St")),
		},
			// Each side in its own canonical labels: exactly the canonical form of each version.
			addedS: canonical(
				rdf.Triple(iri("s"), iri("addr"), rdf.Blank("n")), rdf.Triple(rdf.Blank("n"), iri("street"), rdf.String("High St"))),
			removedS: canonical(bl1...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			added, removed, err := delta.Compute(context.Background(), tc.a, tc.b, delta.Options{})
			if err != nil {
				t.Fatal(err)
			}
			wantA, wantR := tc.addedS, tc.removedS
			if wantA == "" && wantR == "" {
				wantA, wantR = lines(tc.added), lines(tc.removed)
			}
			if got := lines(added); got != wantA {
				t.Errorf("added:\n%s\nwant\n%s", got, wantA)
			}
			if got := lines(removed); got != wantR {
				t.Errorf("removed:\n%s\nwant\n%s", got, wantR)
			}
		})
	}
}

// randomGround returns n distinct ground triples drawn from a small vocabulary.
func randomGround(r *rand.Rand, n int) []rdf.Quad {
	seen := map[string]bool{}
	var out []rdf.Quad
	for len(out) < n {
		var o rdf.Term
		switch r.IntN(3) {
		case 0:
			o = iri(fmt.Sprint("o", r.IntN(50)))
		case 1:
			o = rdf.String(fmt.Sprint("v", r.IntN(50)))
		default:
			o = rdf.LangString(fmt.Sprint("v", r.IntN(50)), []string{"en", "de"}[r.IntN(2)])
		}
		q := rdf.Triple(iri(fmt.Sprint("s", r.IntN(30+n/4))), iri(fmt.Sprint("p", r.IntN(5))), o)
		if l := canon.Line(q); !seen[l] {
			seen[l] = true
			out = append(out, q)
		}
	}
	return out
}

// naiveDelta is the reference: set difference of canonical lines (valid for ground data and for data whose blank
// nodes need no canonicalization because both sides label them the same).
func naiveDelta(a, b []rdf.Quad) (added, removed string) {
	in := func(qs []rdf.Quad) map[string]bool {
		m := map[string]bool{}
		for _, q := range qs {
			m[canon.Line(q)] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var ad, rm []string
	for l := range mb {
		if !ma[l] {
			ad = append(ad, l)
		}
	}
	for l := range ma {
		if !mb[l] {
			rm = append(rm, l)
		}
	}
	slices.Sort(ad)
	slices.Sort(rm)
	return strings.Join(ad, ""), strings.Join(rm, "")
}

// sliceDecoder serves quads as an rdf.Decoder.
type sliceDecoder struct{ qs []rdf.Quad }

func (d *sliceDecoder) Next() (rdf.Quad, error) {
	if len(d.qs) == 0 {
		return rdf.Quad{}, io.EOF
	}
	q := d.qs[0]
	d.qs = d.qs[1:]
	return q, nil
}

// Random versions of many sizes, with duplicates, with and without blank nodes
// (which must not disturb the ground diff), through Compute and ComputeDecoders, against the naive reference.
func TestComputeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round, n := range []int{0, 1, 40, 200, 8191, 8192, 8193, 20000} {
		pool := randomGround(r, n)
		var a, b []rdf.Quad
		for _, q := range pool {
			switch r.IntN(4) {
			case 0:
				a = append(a, q)
			case 1:
				b = append(b, q)
			default:
				a, b = append(a, q), append(b, q)
			}
		}
		if len(b) > 0 {
			b = append(b, b[r.IntN(len(b))]) // a duplicate
		}
		r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		wantA, wantR := naiveDelta(a, b)
		if n >= 200 && (wantA == "" || wantR == "") {
			t.Fatalf("round %d: generated versions do not differ both ways; the test proves nothing", round)
		}
		// One blank node with the same single triple in both versions gets c14n0 on both sides.
		blank := rdf.Triple(rdf.Blank("same"), iri("p"), rdf.String("here"))
		changed := rdf.Triple(rdf.Blank("x"), iri("q"), rdf.String("new"))
		cases := []struct {
			name string
			a, b []rdf.Quad
		}{
			{"ground", a, b},
			{"with a shared blank node", append(slices.Clone(a), blank), append(slices.Clone(b), blank)},
			{"with a changed blank node", append(slices.Clone(a), blank), append(slices.Clone(b), changed)},
		}
		for _, tc := range cases {
			wa, wr := naiveDelta(relabelC14n(tc.a), relabelC14n(tc.b))
			add, rem, err := delta.Compute(context.Background(), tc.a, tc.b, delta.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if lines(add) != wa || lines(rem) != wr {
				t.Fatalf("round %d %s: Compute added/removed\n%s/\n%s\nwant\n%s/\n%s", round, tc.name, lines(add), lines(rem), wa, wr)
			}
			add, rem, err = delta.ComputeDecoders(context.Background(), &sliceDecoder{tc.a}, &sliceDecoder{tc.b}, delta.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if lines(add) != wa || lines(rem) != wr {
				t.Fatalf("round %d %s: ComputeDecoders differs from the reference", round, tc.name)
			}
		}
	}
}

// relabelC14n gives the single blank node of qs the label c14n0, what canonicalization of one node issues.
func relabelC14n(qs []rdf.Quad) []rdf.Quad {
	out := slices.Clone(qs)
	for i := range out {
		if out[i].S.IsBlank() {
			out[i].S = rdf.Blank("c14n0")
		}
	}
	return out
}

func TestComputeErrors(t *testing.T) {
	// A 10-node clique of blank nodes is the RDFC-1.0 poison graph.
	var clique []rdf.Quad
	for i := range 10 {
		for j := range 10 {
			clique = append(clique, rdf.Triple(rdf.Blank(fmt.Sprint("k", i)), iri("p"), rdf.Blank(fmt.Sprint("k", j))))
		}
	}
	if _, _, err := delta.Compute(context.Background(), clique, nil, delta.Options{}); !errors.Is(err, canon.ErrWorkLimit) {
		t.Errorf("poison graph: want canon.ErrWorkLimit, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := delta.Compute(ctx, []rdf.Quad{t1}, []rdf.Quad{t2}, delta.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: want context.Canceled, got %v", err)
	}
}

type recordingEncoder struct {
	quads  []rdf.Quad
	closed bool
}

func (e *recordingEncoder) Encode(q rdf.Quad) error { e.quads = append(e.quads, q); return nil }
func (e *recordingEncoder) Close() error            { e.closed = true; return nil }

func TestDeltaDataset(t *testing.T) {
	added := []rdf.Quad{rdf.Triple(rdf.Blank("c14n0"), iri("p"), rdf.String("new"))}
	removed := []rdf.Quad{t1, rdf.Triple(rdf.Blank("c14n0"), iri("p"), rdf.String("old"))}
	want := "<http://example.com/s> <http://example.com/p> <http://example.com/o> <urn:ldhub:delta:removed> .\n" +
		"_:old_c14n0 <http://example.com/p> \"old\" <urn:ldhub:delta:removed> .\n" +
		"_:new_c14n0 <http://example.com/p> \"new\" <urn:ldhub:delta:added> .\n"
	var b strings.Builder
	if err := delta.WriteNQuads(&b, added, removed); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("WriteNQuads:\n%s\nwant\n%s", b.String(), want)
	}
	var enc recordingEncoder
	if err := delta.Encode(&enc, added, removed); err != nil {
		t.Fatal(err)
	}
	if lines(enc.quads) != want || !enc.closed {
		t.Errorf("Encode gave\n%s(closed %v)\nwant\n%s", lines(enc.quads), enc.closed, want)
	}
	// TriG: decoding the output gives the same dataset (blank nodes up to renaming).
	var trig bytes.Buffer
	if err := delta.WriteTriG(&trig, added, removed, rdf.EncodeOptions{Prefixes: []rdf.Prefix{{Name: "ex", IRI: "http://example.com/"}}}); err != nil {
		t.Fatal(err)
	}
	var back []rdf.Quad
	dec := turtle.NewTriGDecoder(&trig, rdf.DecodeOptions{})
	for {
		q, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("decoding the TriG output: %v\n%s", err, trig.String())
		}
		back = append(back, q)
	}
	ds, err := delta.Dataset(added, removed)
	if err != nil {
		t.Fatal(err)
	}
	if !iso.Isomorphic(back, ds) {
		t.Errorf("TriG output is not the delta dataset:\n%s", iso.Diff(back, ds))
	}
	if err := delta.WriteNQuads(&b, []rdf.Quad{q4}, nil); !errors.Is(err, delta.ErrNamedGraph) {
		t.Errorf("named graph: want ErrNamedGraph, got %v", err)
	}
}

// randomBlank returns a random graph of n blank nodes with values and links, some nodes indistinguishable at
// first degree (same value, same shape).
func randomBlank(r *rand.Rand, n int) []rdf.Quad {
	var qs []rdf.Quad
	for i := range n {
		node := rdf.Blank(fmt.Sprint("n", i))
		qs = append(qs, rdf.Triple(iri("root"), iri("has"), node), rdf.Triple(node, iri("v"), rdf.String(fmt.Sprint(r.IntN(n)))))
		if r.IntN(3) == 0 {
			qs = append(qs, rdf.Triple(node, iri("link"), rdf.Blank(fmt.Sprint("n", r.IntN(n)))))
		}
	}
	return qs
}

func renameBlanks(r *rand.Rand, qs []rdf.Quad) []rdf.Quad {
	names := map[string]string{}
	rename := func(t rdf.Term) rdf.Term {
		if !t.IsBlank() {
			return t
		}
		if _, ok := names[t.Value]; !ok {
			names[t.Value] = fmt.Sprintf("x%d_%d", r.IntN(1000), len(names))
		}
		return rdf.Blank(names[t.Value])
	}
	out := make([]rdf.Quad, len(qs))
	for i, q := range qs {
		out[i] = rdf.Quad{S: rename(q.S), P: q.P, O: rename(q.O), G: rename(q.G)}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func TestReserialisationGivesEmptyDelta(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, hashLabels := range []bool{false, true} {
		for round := range 20 {
			a := randomBlank(r, 5+round*3)
			added, removed, err := delta.Compute(context.Background(), a, renameBlanks(r, a), delta.Options{HashLabels: hashLabels})
			if err != nil {
				t.Fatal(err)
			}
			if len(added)+len(removed) > 0 {
				t.Fatalf("HashLabels=%v round %d: re-serialisation gave a delta:\n+%s-%s", hashLabels, round, lines(added), lines(removed))
			}
		}
	}
}

// With HashLabels, editing one blank node leaves the labels of the others alone, so the delta is just the edit.
func TestHashLabelsKeepUnrelatedNodes(t *testing.T) {
	var a, b []rdf.Quad
	for i := range 50 {
		node := rdf.Blank(fmt.Sprint("n", i))
		a = append(a, rdf.Triple(iri("root"), iri("has"), node), rdf.Triple(node, iri("v"), rdf.String(fmt.Sprint(i))))
		v := fmt.Sprint(i)
		if i == 7 {
			v = "seven"
		}
		b = append(b, rdf.Triple(iri("root"), iri("has"), node), rdf.Triple(node, iri("v"), rdf.String(v)))
	}
	added, removed, err := delta.Compute(context.Background(), a, renameBlanks(rand.New(rand.NewPCG(5, 6)), b), delta.Options{HashLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	// The edited node's own quads change (its hash, hence its label, changed): its value and its incoming link.
	if len(added) != 2 || len(removed) != 2 {
		t.Fatalf("want 2 added and 2 removed, got\n+%s-%s", lines(added), lines(removed))
	}
	if !strings.Contains(lines(added), `"seven"`) || !strings.Contains(lines(removed), `"7"`) {
		t.Fatalf("the edit is not in the delta:\n+%s-%s", lines(added), lines(removed))
	}
	for _, q := range append(added, removed...) {
		for _, x := range []rdf.Term{q.S, q.O} {
			if x.IsBlank() && (len(x.Value) != 33 || x.Value[0] != 'h') {
				t.Errorf("label %q is not a first-degree hash label", x.Value)
			}
		}
	}
	// Nodes that share a first-degree hash get the hash plus their rank in the group; an edit elsewhere leaves
	// them out of the delta too.
	twins := func(qs []rdf.Quad) []rdf.Quad {
		for i := range 3 {
			node := rdf.Blank(fmt.Sprint("twin", i))
			qs = append(qs, rdf.Triple(iri("root"), iri("has"), node), rdf.Triple(node, iri("v"), rdf.String("same")))
		}
		return qs
	}
	added3, removed3, err := delta.Compute(context.Background(), twins(slices.Clone(a)), twins(slices.Clone(b)), delta.Options{HashLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	if lines(added3) != lines(added) || lines(removed3) != lines(removed) {
		t.Fatalf("with three indistinguishable nodes added to both versions the delta changed:\n+%s-%s", lines(added3), lines(removed3))
	}
	only, _, err := delta.Compute(context.Background(), nil, twins(nil), delta.Options{HashLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	ranks := map[string]bool{}
	for _, q := range only {
		if q.O.IsBlank() {
			ranks[q.O.Value[33:]] = len(q.O.Value) == 35 && q.O.Value[0] == 'h'
		}
	}
	if len(ranks) != 3 || !ranks["_0"] || !ranks["_1"] || !ranks["_2"] {
		t.Fatalf("indistinguishable nodes should be labelled h<hash>_0, _1, _2:\n%s", lines(only))
	}

	// Canonical labels: the same edit renumbers nodes, so the delta is at least as large.
	added2, removed2, err := delta.Compute(context.Background(), a, b, delta.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(added2) < 2 || len(removed2) < 2 {
		t.Fatalf("canonical labels: want at least the edit, got\n+%s-%s", lines(added2), lines(removed2))
	}
	t.Logf("one edited blank node of 50: %d+%d quads with hash labels, %d+%d with canonical labels",
		len(added), len(removed), len(added2), len(removed2))
}

// errDecoder yields some quads, then an error.
type errDecoder struct {
	n   int
	err error
}

func (d *errDecoder) Next() (rdf.Quad, error) {
	if d.n == 0 {
		return rdf.Quad{}, d.err
	}
	d.n--
	return rdf.Triple(iri("s"), iri("p"), rdf.String(fmt.Sprint(d.n))), nil
}

func TestComputeDecodersErrors(t *testing.T) {
	bad := &rdf.SyntaxError{Syntax: "n-triples", Line: 3, Column: 7, Msg: "bad"}
	tests := []struct {
		name string
		a, b rdf.Decoder
		want string
	}{
		{"old version fails", &errDecoder{n: 5, err: bad}, &errDecoder{n: 100000, err: io.EOF}, "reading the old version"},
		{"new version fails", &errDecoder{n: 100000, err: io.EOF}, &errDecoder{n: 5, err: bad}, "reading the new version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := delta.ComputeDecoders(context.Background(), tc.a, tc.b, delta.Options{})
			var se *rdf.SyntaxError
			if !errors.As(err, &se) || se.Line != 3 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want the syntax error with %q, got %v", tc.want, err)
			}
		})
	}
}

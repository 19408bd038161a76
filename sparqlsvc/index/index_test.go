package index

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

func sampleTerms() []rdf.Term {
	return []rdf.Term{
		rdf.IRI("http://ex.org/a"), rdf.IRI("http://ex.org/b"), rdf.IRI("http://ex.org/p"),
		rdf.IRI(rdf.XSDInteger), rdf.Blank("x1"), rdf.String("plain"), rdf.String(""),
		rdf.LangString("chat", "fr"), rdf.LangString("chat", "en-GB"), rdf.Literal("42", rdf.XSDInteger),
		rdf.Literal("42", rdf.XSDDecimal), rdf.String("with \x00 nul and ünïcode"), rdf.Blank("http://ex.org/a"),
		// numbers and dates held in their ids and their neighbours that are not (other forms of equal values)
		rdf.Literal("042", rdf.XSDInteger), rdf.Literal("-0", rdf.XSDInteger), rdf.Literal("0", rdf.XSDInteger),
		rdf.Literal("4.20", rdf.XSDDecimal), rdf.Literal("4.2", rdf.XSDDecimal), rdf.Literal("4.2000", rdf.XSDDecimal),
		rdf.Literal("-0.5", rdf.XSDDecimal), rdf.Literal("2008-06-20", XSDDate), rdf.Literal("2008-06-20Z", XSDDate),
		rdf.Literal("99999999999999999999", rdf.XSDInteger), rdf.Literal("4.2", rdf.XSDDouble),
	}
}

func TestDictRoundTrip(t *testing.T) {
	b := NewBuilder()
	terms := sampleTerms()
	for _, tm := range terms {
		if err := b.Add(rdf.Triple(rdf.IRI("http://ex.org/s"), rdf.IRI("http://ex.org/p"), tm)); err != nil {
			t.Fatal(err)
		}
	}
	d := b.Build()
	seen := map[ID]bool{}
	for _, tm := range terms {
		id := d.Dict.Lookup(tm)
		if id == 0 {
			t.Fatalf("Lookup(%v) = 0", tm)
		}
		if seen[id] {
			t.Errorf("%v shares id %d with another term", tm, id)
		}
		seen[id] = true
		if got := d.Dict.Term(id); !got.Equal(tm) {
			t.Errorf("Term(Lookup(%v)) = %v", tm, got)
		}
		// Lexical: the literal's form without its datatype resolved; nothing for an IRI or a blank node.
		want := tm.Value
		if tm.Kind != rdf.KindLiteral || IsInline(id) {
			want = ""
		}
		if got := d.Dict.Lexical(id); got != want {
			t.Errorf("Lexical(Lookup(%v)) = %q, want %q", tm, got, want)
		}
		// StringLength: STRLEN's count of characters, of xsd:string and rdf:langString literals only.
		wantLen, wantOK := utf8.RuneCountInString(tm.Value), tm.Kind == rdf.KindLiteral &&
			(tm.Datatype == rdf.XSDString || tm.Datatype == rdf.RDFLangString)
		if n, ok := d.Dict.StringLength(id); ok != wantOK || ok && n != wantLen {
			t.Errorf("StringLength(Lookup(%v)) = %d, %v, want %d, %v", tm, n, ok, wantLen, wantOK)
		}
	}
	if _, ok := (*Dict)(nil).StringLength(1); ok {
		t.Error("StringLength of a nil dictionary: ok")
	}
	// Language tags are case-insensitive in RDF 1.1.
	if d.Dict.Lookup(rdf.LangString("chat", "EN-gb")) != d.Dict.Lookup(rdf.LangString("chat", "en-GB")) {
		t.Error("language tag case must not matter")
	}
	for _, absent := range []rdf.Term{rdf.IRI("http://ex.org/zzz"), rdf.Literal("42", "http://ex.org/unknownType"),
		rdf.LangString("chat", "de"), rdf.Blank("x2"), {}} {
		if id := d.Dict.Lookup(absent); id != 0 {
			t.Errorf("Lookup(%v) = %d, want 0", absent, id)
		}
	}
}

// randomDataset returns random quads over a small vocabulary (so patterns have many matches and duplicates occur).
func randomDataset(r *rand.Rand, n int) []rdf.Quad {
	term := func(k int) rdf.Term {
		switch k % 3 {
		case 0:
			return rdf.IRI("http://ex.org/t" + strconv.Itoa(k))
		case 1:
			if k%2 == 0 { // a leading zero keeps it in the dictionary, beside the inline ids of the others
				return rdf.Literal("0"+strconv.Itoa(k), rdf.XSDInteger)
			}
			return rdf.Literal(strconv.Itoa(k), rdf.XSDInteger)
		}
		return rdf.Blank("b" + strconv.Itoa(k))
	}
	qs := make([]rdf.Quad, n)
	for i := range qs {
		q := rdf.Triple(term(r.IntN(40)*3), rdf.IRI("http://ex.org/p"+strconv.Itoa(r.IntN(5))), term(r.IntN(60)))
		if r.IntN(4) == 0 {
			q.G = rdf.IRI("http://ex.org/g" + strconv.Itoa(r.IntN(3)))
		}
		qs[i] = q
	}
	return qs
}

// buildRandom indexes n random quads (randomDataset) and returns them, the dataset and its graphs, the default first.
func buildRandom(t *testing.T, r *rand.Rand, n int) ([]rdf.Quad, *Dataset, []*Graph) {
	t.Helper()
	quads := randomDataset(r, n)
	b := NewBuilder()
	for _, q := range quads {
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	d := b.Build()
	graphs := []*Graph{d.Default}
	for _, id := range d.GraphNames() {
		graphs = append(graphs, d.Graph(id))
	}
	return quads, d, graphs
}

func TestMatchAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	quads := randomDataset(r, 5000)
	b := NewBuilder()
	for _, q := range quads {
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	built := b.Build()
	opened := saveAndOpen(t, built)
	for name, d := range map[string]*Dataset{"built": built, "opened": opened} {
		t.Run(name, func(t *testing.T) {
			want := map[string]map[[3]string]bool{} // graph -> set of triples
			for _, q := range quads {
				g := q.G.String()
				if want[g] == nil {
					want[g] = map[[3]string]bool{}
				}
				want[g][[3]string{q.S.String(), q.P.String(), q.O.String()}] = true
			}
			graphs := map[string]*Graph{"": d.Default}
			for _, id := range d.GraphNames() {
				graphs[d.Dict.Term(id).String()] = d.Graph(id)
			}
			if len(graphs) != len(want) {
				t.Fatalf("%d graphs, want %d", len(graphs), len(want))
			}
			for gname, g := range graphs {
				set := want[gname]
				if g.Len() != len(set) {
					t.Fatalf("graph %q: %d triples, want %d (duplicates must go)", gname, g.Len(), len(set))
				}
				// Every pattern shape, with constants taken from random triples and from absent terms. MatchFrom
				// through one cursor (a hint from the previous, unrelated pattern) must give the same answer.
				var cur Cursor
				for i := 0; i < 300; i++ {
					q := quads[r.IntN(len(quads))]
					ids := [3]ID{d.Dict.Lookup(q.S), d.Dict.Lookup(q.P), d.Dict.Lookup(q.O)}
					mask := i % 8
					var pat [3]ID
					for k := 0; k < 3; k++ {
						if mask&(1<<k) != 0 {
							pat[k] = ids[k]
						}
					}
					m := g.Match(pat[0], pat[1], pat[2])
					if mf := g.MatchFrom(&cur, pat[0], pat[1], pat[2]); !sameTriples(mf, m) {
						t.Fatalf("graph %q pattern %v: MatchFrom gives %d rows, Match %d", gname, pat, mf.Len(), m.Len())
					}
					var got [][3]string
					for j := 0; j < m.Len(); j++ {
						s, p, o := m.At(j)
						got = append(got, [3]string{d.Dict.Term(s).String(), d.Dict.Term(p).String(), d.Dict.Term(o).String()})
					}
					var exp [][3]string
					for tr := range set {
						ok := true
						for k := 0; k < 3; k++ {
							if pat[k] != 0 && tr[k] != d.Dict.Term(pat[k]).String() {
								ok = false
							}
						}
						if ok {
							exp = append(exp, tr)
						}
					}
					less := func(a, b [3]string) int { return slices.Compare(a[:], b[:]) }
					slices.SortFunc(got, less)
					slices.SortFunc(exp, less)
					if !slices.Equal(got, exp) {
						t.Fatalf("graph %q pattern %v: %d matches, want %d", gname, pat, len(got), len(exp))
					}
				}
			}
		})
	}
}

func TestOpenRejectsDamage(t *testing.T) {
	b := NewBuilder()
	for _, q := range randomDataset(rand.New(rand.NewPCG(3, 4)), 200) {
		_ = b.Add(q)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.idx")
	if err := b.Build().Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	cases := map[string][]byte{
		"truncated": data[:len(data)/2],
		"bad magic": append([]byte("NOTANIDX"), data[8:]...),
		"empty":     {},
		"format 01": append([]byte("LDHIDX01"), data[8:]...),
		"format 02": append([]byte("LDHIDX02"), data[8:]...),
	}
	for name, bad := range cases {
		p := filepath.Join(dir, name)
		_ = os.WriteFile(p, bad, 0o644)
		d, err := Open(p)
		if err == nil {
			d.Close()
			t.Errorf("%s: Open succeeded", name)
		}
		if old := errors.Is(err, ErrOldFormat); old != strings.HasPrefix(name, "format") {
			t.Errorf("%s: %v, ErrOldFormat: %v", name, err, old)
		}
	}
}

func TestRadixSortMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	// 300 and 5000 repeat a few rows (duplicates, digits constant in every row); the others are random, some with
	// full 32-bit ids.
	for _, n := range []int{0, 1, 63, 64, 300, 1000, 5000, 70000} {
		rows := make([]Row, n)
		for i := range rows {
			switch n {
			case 300:
				rows[i] = Row{7, 9, 11}
			case 5000:
				rows[i] = Row{ID(i % 3), 1 << 20, ID(i % 7)}
			default:
				rows[i] = Row{r.Uint32() % 100, r.Uint32(), r.Uint32() % 70000}
			}
		}
		var rb rowBlocks
		var maxCol [3]ID
		for _, r := range rows {
			rb.add(r)
			for c := range maxCol {
				maxCol[c] = max(maxCol[c], r[c])
			}
		}
		g := buildGraph(&rb, maxCol)
		for p, cols := range permCols {
			want := make([]Row, 0, n)
			for _, r := range rows {
				want = append(want, Row{r[cols[0]], r[cols[1]], r[cols[2]]})
			}
			slices.SortFunc(want, cmpRow)
			want = slices.Compact(want)
			if !slices.Equal(g.perms[p], want) {
				t.Fatalf("n=%d, permutation %d: radix sort disagrees with sort", n, p)
			}
		}
	}
}

func TestBuildFromStopsOnError(t *testing.T) {
	quads := randomDataset(rand.New(rand.NewPCG(7, 8)), 10000)
	dec := &failingDecoder{quads: quads, failAt: 9000}
	if _, err := BuildFrom(t.Context(), dec); err == nil || err.Error() != "boom" {
		t.Fatalf("want the decoder's error, got %v", err)
	}
	d, err := BuildFrom(t.Context(), &failingDecoder{quads: quads, failAt: -1})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder()
	for _, q := range quads {
		_ = b.Add(q)
	}
	if want := b.Build(); d.Default.Len() != want.Default.Len() || len(d.GraphNames()) != len(want.GraphNames()) {
		t.Errorf("streamed build differs: %d/%d triples", d.Default.Len(), want.Default.Len())
	}
}

type failingDecoder struct {
	quads  []rdf.Quad
	i      int
	failAt int
}

func (f *failingDecoder) Next() (rdf.Quad, error) {
	if f.i == f.failAt {
		return rdf.Quad{}, errors.New("boom")
	}
	if f.i == len(f.quads) {
		return rdf.Quad{}, io.EOF
	}
	f.i++
	return f.quads[f.i-1], nil
}

// TestPrefixRangeEdges checks prefixRange's galloping (the end of a range, and the start from a Cursor's hint, from
// before, at and after the range) against a linear scan, for ranges of every length from 0 to 70 at the start, in
// the middle and at the end of the rows.
func TestPrefixRangeEdges(t *testing.T) {
	for n := 0; n <= 70; n++ {
		for _, where := range []string{"start", "middle", "end"} {
			var rows []Row
			add := func(a ID, count int) {
				for i := 0; i < count; i++ {
					rows = append(rows, Row{a, ID(i + 1), 1})
				}
			}
			switch where {
			case "start":
				add(5, n)
				add(6, 3)
			case "middle":
				add(4, 3)
				add(5, n)
				add(6, 3)
			case "end":
				add(4, 3)
				add(5, n)
			}
			var want []Row
			for _, r := range rows {
				if r[0] == 5 {
					want = append(want, r)
				}
			}
			for from := 0; from <= len(rows); from++ {
				lo, hi := prefixRange(rows, Row{5, 0, 0}, from)
				if got := rows[lo:hi]; !slices.Equal(got, want) {
					t.Fatalf("%d rows of key 5 at the %s, hint %d: got %d", n, where, from, len(got))
				}
			}
		}
	}
}

// TestBySubject: a predicate's triples sorted by subject answer every pattern with that predicate bound exactly
// as the whole graph does, probed directly, through its table of subjects and through one cursor with subjects in
// random order (present and absent), in every graph of a dataset; a probe far from the previous one is counted.
func TestBySubject(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	quads, d, graphs := buildRandom(t, r, 5000)
	for _, g := range graphs {
		for pi := range 5 {
			p := d.Dict.Lookup(rdf.IRI("http://ex.org/p" + strconv.Itoa(pi)))
			sub := g.BySubject(p)
			if sub.Len() != g.Match(0, p, 0).Len() {
				t.Fatalf("p%d: %d triples, want %d", pi, sub.Len(), g.Match(0, p, 0).Len())
			}
			var cur Cursor
			for range 500 {
				q := quads[r.IntN(len(quads))]
				s, o := d.Dict.Lookup(q.S), d.Dict.Lookup(q.O)
				if r.IntN(10) == 0 {
					s = ID(d.Dict.Len()) // in no triple as a subject
				}
				for _, k := range [][3]ID{{s, p, 0}, {s, p, o}, {0, p, 0}, {0, p, o}} {
					want := g.Match(k[0], k[1], k[2])
					var got []Row
					for _, m := range []Matches{sub.Match(k[0], k[1], k[2]), sub.MatchFrom(&cur, k[0], k[1], k[2]),
						sub.MatchSubject(k[0], k[1], k[2])} {
						got = got[:0]
						for j := 0; j < m.Len(); j++ {
							s, p, o := m.At(j)
							got = append(got, Row{s, p, o})
						}
						var w []Row
						for j := 0; j < want.Len(); j++ {
							s, p, o := want.At(j)
							w = append(w, Row{s, p, o})
						}
						slices.SortFunc(got, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
						slices.SortFunc(w, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
						if !slices.Equal(got, w) {
							t.Fatalf("pattern %v: %v, want %v", k, got, w)
						}
					}
				}
			}
			if cur.Far() == 0 {
				t.Fatal("random probes never counted as far")
			}
		}
	}
}

// sameTriples reports whether two matches hold the same triples in the same order (a fully bound pattern may be
// answered from SPO or POS, so the permutations may differ).
func sameTriples(a, b Matches) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		as, ap, ao := a.At(i)
		bs, bp, bo := b.At(i)
		if as != bs || ap != bp || ao != bo {
			return false
		}
	}
	return true
}

// TestMatchFromMembershipInPOSOrder: fully bound probes "s p o" whose subjects ascend within one (p, o), as a join
// checking the members of one class against another does, answer as Match does, present and absent, and settle in
// POS, where they gallop: only a few of them search a whole permutation. Probes in random order still answer
// right.
func TestMatchFromMembershipInPOSOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	b := NewBuilder()
	typ := rdf.IRI("http://ex.org/type")
	class := func(k int) rdf.Term { return rdf.IRI("http://ex.org/C" + strconv.Itoa(k)) }
	for i := range 30000 {
		s := rdf.IRI("http://ex.org/s" + strconv.Itoa(i))
		// Each subject has many other triples, so consecutive members lie far apart in SPO.
		for k := range 8 {
			if err := b.Add(rdf.Triple(s, rdf.IRI("http://ex.org/p"+strconv.Itoa(k)), rdf.Literal(strconv.Itoa(r.IntN(1000)), rdf.XSDInteger))); err != nil {
				t.Fatal(err)
			}
		}
		if r.IntN(3) > 0 {
			_ = b.Add(rdf.Triple(s, typ, class(0)))
		}
		if r.IntN(400) == 0 { // few members: about 14 000 SPO rows apart
			_ = b.Add(rdf.Triple(s, typ, class(1+r.IntN(4))))
		}
	}
	d := b.Build()
	g := d.Default
	p, c0 := d.Dict.Lookup(typ), d.Dict.Lookup(class(0))
	var cur Cursor
	probes := 0
	for k := 1; k <= 4; k++ { // the members of each subclass, in their POS order, checked against C0
		members := g.Match(0, p, d.Dict.Lookup(class(k)))
		for i := 0; i < members.Len(); i++ {
			s, _, _ := members.At(i)
			want := g.Match(s, p, c0)
			if got := g.MatchFrom(&cur, s, p, c0); !sameTriples(got, want) {
				t.Fatalf("(%d p C0): %d rows, want %d", s, got.Len(), want.Len())
			}
			probes++
		}
	}
	if probes < 40 || cur.Far() > probes/4 {
		t.Errorf("%d of %d probes searched a whole permutation; in POS they gallop", cur.Far(), probes)
	}
	var rnd Cursor
	for range 3000 {
		s, o := ID(1+r.IntN(d.Dict.Len())), ID(1+r.IntN(d.Dict.Len()))
		if r.IntN(2) == 0 {
			o = c0
		}
		want := g.Match(s, p, o)
		if got := g.MatchFrom(&rnd, s, p, o); !sameTriples(got, want) {
			t.Fatalf("(%d p %d): %d rows, want %d", s, o, got.Len(), want.Len())
		}
	}
}

// BenchmarkMatchFromStar: a star join's probes, "s p ?o" for three predicates, one cursor each, over subjects in
// ascending order (q09's offers with their vendor, price and days), so each probe gallops a few rows.
func BenchmarkMatchFromStar(b *testing.B) {
	bl := NewBuilder()
	for i := range 50000 {
		s := rdf.IRI("http://ex.org/s" + strconv.Itoa(i))
		for k := range 10 {
			_ = bl.Add(rdf.Triple(s, rdf.IRI("http://ex.org/p"+strconv.Itoa(k)), rdf.Literal(strconv.Itoa(i%977+k), rdf.XSDInteger)))
		}
	}
	d := bl.Build()
	g := d.Default
	var ps [3]ID
	for k := range ps {
		ps[k] = d.Dict.Lookup(rdf.IRI("http://ex.org/p" + strconv.Itoa(2+3*k)))
	}
	subjects := g.Match(0, ps[0], 0)
	var ss []ID
	for i := 0; i < subjects.Len(); i++ {
		s, _, _ := subjects.At(i)
		ss = append(ss, s)
	}
	slices.Sort(ss)
	b.ResetTimer()
	for range b.N {
		var curs [3]Cursor
		n := 0
		for _, s := range ss {
			for k, p := range ps {
				n += g.MatchFrom(&curs[k], s, p, 0).Len()
			}
		}
		if n != 3*len(ss) {
			b.Fatal(n)
		}
	}
}

// TestMatchSubjectEverySubject: BySubject's table of subjects finds every subject's rows, and none for the ids that
// are not its subjects, with subjects at random ids (consecutive ids never share a slot under Fibonacci hashing)
// so that slots collide and chains run long.
func TestMatchSubjectEverySubject(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 7, 3000} {
		var rows []Row
		for range n {
			s := 1 + r.Uint32N(1<<16)
			for j := range 1 + r.IntN(3) {
				rows = append(rows, Row{s, 5, ID(1 + j*r.IntN(4))})
			}
		}
		slices.SortFunc(rows, cmpRow)
		rows = dedup(rows)
		g := &Graph{perms: [3][]Row{SPO: rows}}
		g.hashSubjects()
		for s := ID(0); s <= 1<<16+1; s++ {
			for _, o := range []ID{0, 1, 3} {
				lo, hi := prefixRange(rows, Row{s, 5, o}, 0)
				if s == 0 {
					lo, hi = 0, 0
				}
				if got := g.MatchSubject(s, 5, o); s != 0 && !slices.Equal(got.Rows, rows[lo:hi]) {
					t.Fatalf("n=%d: subject %d, object %d: %v, want %v", n, s, o, got.Rows, rows[lo:hi])
				}
			}
			if got := g.MatchSubject(s, 6, 0); s != 0 && got.Len() != 0 {
				t.Fatalf("n=%d: subject %d with another predicate: %v", n, s, got.Rows)
			}
		}
	}
}

// TestSubjectRows: a predicate's rows for a subject scan are its triples in SPO form and (s, o) order, in every graph
// of a dataset: those of the whole graph's SPO permutation with that predicate.
func TestSubjectRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	_, d, graphs := buildRandom(t, r, 5000)
	for _, g := range graphs {
		for pi := range 5 {
			p := d.Dict.Lookup(rdf.IRI("http://ex.org/p" + strconv.Itoa(pi)))
			var want []Row
			for _, row := range g.perms[SPO] {
				if row[1] == p {
					want = append(want, row)
				}
			}
			if got := g.SubjectRows(p); !slices.Equal(got, want) {
				t.Fatalf("p%d: %d rows differ from SPO's %d", pi, len(got), len(want))
			}
		}
	}
}

// TestSortBySubjectMatchesSort: the radix sort of a predicate's rows by subject, whole or in parts, gives the order
// of a comparison sort by subject then object, for sizes on both sides of radixMin and subjects that differ in the low 16 bits
// only, the high 16 bits only, both, or neither.
func TestSortBySubjectMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 100, radixMin - 1, radixMin, 20000} {
		for _, subj := range []func() ID{
			func() ID { return ID(r.IntN(1 << 30)) },
			func() ID { return ID(0x1230000 + r.IntN(1<<16)) },
			func() ID { return ID(r.IntN(1<<15)<<16 | 7) },
			func() ID { return 99 },
			func() ID { return ID(r.IntN(n/4+1)) + 1 }, // many subjects with several objects
		} {
			pos := make([]Row, n)
			for i := range pos {
				pos[i] = Row{5, ID(r.IntN(n/3 + 1)), subj()}
			}
			slices.SortFunc(pos, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
			want := make([]Row, n)
			for i, x := range pos {
				want[i] = Row{x[2], x[0], x[1]}
			}
			slices.SortFunc(want, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
			if got := sortBySubject(pos); !slices.Equal(got, want) {
				t.Fatalf("n=%d: sortBySubject differs from a sort by (s, p, o)", n)
			}
			// The same rows cut in three parts (the ranges a filter keeps are read as such) sort alike.
			if got := sortBySubject(pos[:n/3], pos[n/3:n/2], pos[n/2:]); !slices.Equal(got, want) {
				t.Fatalf("n=%d: sortBySubject of three parts differs from a sort by (s, p, o)", n)
			}
		}
	}
}

// BenchmarkSortBySubject sorts 580 000 rows of one predicate (the offers' prices at 10 M triples) by subject.
func BenchmarkSortBySubject(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pos := make([]Row, 580000)
	for i := range pos {
		pos[i] = Row{5, ID(r.IntN(1 << 20)), ID(r.IntN(6 << 20))}
	}
	slices.SortFunc(pos, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
	for b.Loop() {
		sortBySubject(pos)
	}
}

// TestFencedSearchMatchesPlain: a search with and without fence rows finds the range a plain binary search does
// (wide ranges start over from the whole permutation), for keys of one to three positions present and absent, with hints before, at and after the range and either gallop limit;
// and a graph's far probes build the fences once they number 1/(16·fenceStride) of its rows, after which Match and
// MatchFrom answer as before.
func TestFencedSearchMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([]Row, 3*fenceMin)
	for i := range rows {
		rows[i] = Row{ID(r.IntN(40) + 1), ID(r.IntN(3000) + 1), ID(r.IntN(50) + 1)}
	}
	slices.SortFunc(rows, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
	rows = slices.Compact(rows)
	var fence []Row
	for i := 0; i < len(rows); i += fenceStride {
		fence = append(fence, rows[i])
	}
	for range 20000 {
		k := rows[r.IntN(len(rows))]
		if r.IntN(4) == 0 {
			k = Row{ID(r.IntN(42)), ID(r.IntN(3002)), ID(r.IntN(52))}
		}
		switch r.IntN(3) {
		case 0:
			k[1], k[2] = 0, 0
		case 1:
			k[2] = 0
		}
		if k[0] == 0 {
			k[0] = 1
		}
		from := 0
		if r.IntN(2) == 0 {
			from = r.IntN(len(rows) + 1)
		}
		limit := []int{gallopLimit, shortGallop}[r.IntN(2)]
		n := 3
		for k[n-1] == 0 {
			n--
		}
		cmpKey := func(r Row) int { return slices.Compare(r[:n], k[:n]) }
		wlo := sort.Search(len(rows), func(i int) bool { return cmpKey(rows[i]) >= 0 })
		whi := sort.Search(len(rows), func(i int) bool { return cmpKey(rows[i]) > 0 })
		for _, f := range [][]Row{fence, nil} {
			if lo, hi := prefixRangeFenced(rows, k, from, limit, f); lo != wlo || hi != whi {
				t.Fatalf("key %v from %d limit %d fences %d: [%d, %d), want [%d, %d)", k, from, limit, len(f), lo, hi, wlo, whi)
			}
		}
	}
	// narrow on its own, with search bounds that need not hold the key (a search over [base, top) answers the
	// first row there not less than the key, or top).
	search := func(k Row, base, top int) int {
		for base < top {
			mid := (base + top) / 2
			if slices.Compare(rows[mid][:], k[:]) < 0 {
				base = mid + 1
			} else {
				top = mid
			}
		}
		return base
	}
	for range 5000 {
		k := rows[r.IntN(len(rows))]
		base := r.IntN(len(rows))
		top := base + r.IntN(len(rows)-base+1)
		nb, nt := narrow(fence, func(x Row) bool { return slices.Compare(x[:], k[:]) < 0 }, base, top, len(rows))
		if got, want := search(k, nb, nt), search(k, base, top); got != want {
			t.Fatalf("key %v in [%d, %d): narrowed to [%d, %d) gives %d, want %d", k, base, top, nb, nt, got, want)
		}
	}
	g := &Graph{perms: [3][]Row{SPO: rows}}
	var c Cursor
	probe := func() {
		for range 500 {
			k := rows[r.IntN(len(rows))]
			lo, hi := prefixRange(rows, Row{k[0], k[1], 0}, 0)
			want := rows[lo:hi]
			if got := g.MatchFrom(&c, k[0], k[1], 0).Rows; !slices.Equal(got, want) {
				t.Fatalf("MatchFrom %v: %d rows, want %d", k, len(got), len(want))
			}
			if got := g.Match(k[0], k[1], 0).Rows; !slices.Equal(got, want) {
				t.Fatalf("Match %v: %d rows, want %d", k, len(got), len(want))
			}
		}
	}
	probe()
	for g.fence(SPO) == nil && g.farCount[SPO].Load() < int64(len(rows)) {
		probe()
	}
	if f := g.fence(SPO); len(f) != (len(rows)+fenceStride-1)/fenceStride {
		t.Fatalf("after %d far probes: %d fence rows, want %d", g.farCount[SPO].Load(), len(f), len(rows)/fenceStride+1)
	}
	probe()
}

// saveAndOpen saves d to a file of the test's and opens it; it is closed when the test ends.
func saveAndOpen(t *testing.T, d *Dataset) *Dataset {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.idx")
	if err := d.Save(path); err != nil {
		t.Fatal(err)
	}
	return openFile(t, path)
}

// TestObjectTableMatchesMatch: a predicate's table of objects gives every object's rows exactly as Match does, in
// every graph, and none for objects without them (absent ids, and objects of other predicates only).
func TestObjectTableMatchesMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	quads, d, graphs := buildRandom(t, r, 5000)
	checked := 0
	for _, g := range graphs {
		var objects []ID // every dictionary id, two past it, and the inline ids of the data's numbers
		for o := ID(1); o <= ID(d.Dict.Len())+2; o++ {
			objects = append(objects, o)
		}
		for _, q := range quads {
			if o := d.Dict.Lookup(q.O); IsInline(o) {
				objects = append(objects, o)
			}
		}
		for pi := range 5 {
			p := d.Dict.Lookup(rdf.IRI("http://ex.org/p" + strconv.Itoa(pi)))
			tab := g.ObjectTable(p)
			for _, o := range objects {
				got, want := tab.Match(o), g.Match(0, p, o)
				if !slices.Equal(got.Rows, want.Rows) || got.Perm != want.Perm {
					t.Fatalf("p%d o%d: %d rows, want %d", pi, o, got.Len(), want.Len())
				}
				checked += want.Len()
			}
		}
	}
	if checked == 0 {
		t.Fatal("no object had rows")
	}
}

// TestSubjectStartsMatchSearch compares probes answered from the subjects' starts (Graph.starts) with a binary
// search of the same rows: subjects with gaps between them, subjects above the dictionary's range (which have no
// start), absent subjects past the last one, keys of one, two and three positions, with and without a cursor
// carried from probe to probe. Graphs whose subjects are sparse get no starts.
func TestSubjectStartsMatchSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var rows []Row
	for range 20000 {
		s := ID(1 + 3*r.IntN(1000)) // every third id: gaps
		if r.IntN(50) == 0 {
			s = MaxDictID + 1 + ID(r.IntN(5))
		}
		rows = append(rows, Row{s, ID(1 + r.IntN(8)), ID(1 + r.IntN(40))})
	}
	slices.SortFunc(rows, func(a, b Row) int { return slices.Compare(a[:], b[:]) })
	rows = slices.Compact(rows)
	g, plain := withStarts(t, rows)
	var c1, c2 Cursor
	for range 50000 {
		k := rows[r.IntN(len(rows))]
		if r.IntN(4) == 0 {
			k = Row{ID(1 + r.IntN(3010)), ID(r.IntN(10)), ID(r.IntN(42))}
		}
		switch r.IntN(3) {
		case 0:
			k[1], k[2] = 0, 0
		case 1:
			k[2] = 0
		}
		if k[1] == 0 {
			k[2] = 0 // a pattern routed to SPO: (s), (s, p) or (s, p, o)
		}
		want := plain.Match(k[0], k[1], k[2])
		if got := g.Match(k[0], k[1], k[2]); !slices.Equal(got.Rows, want.Rows) {
			t.Fatalf("Match %v: %d rows, want %d", k, got.Len(), want.Len())
		}
		// Either permutation may answer a fully bound pattern (MatchFrom): compare the triples.
		got, wantFrom := g.MatchFrom(&c1, k[0], k[1], k[2]), plain.MatchFrom(&c2, k[0], k[1], k[2])
		if !sameTriples(got, want) || !sameTriples(wantFrom, want) {
			t.Fatalf("MatchFrom %v: %v, want %v (%v)", k, got.Rows, want.Rows, wantFrom.Rows)
		}
	}
	// The starts spare a far probe its search, not its cache misses: Far, by which the evaluator decides to copy a
	// predicate's triples by subject (subjectIndex), counts the same probes with and without them.
	var f1, f2 Cursor
	for range 5000 {
		k := rows[r.IntN(len(rows))]
		if r.IntN(2) == 0 {
			k[1] = 0
		}
		g.MatchFrom(&f1, k[0], k[1], 0)
		plain.MatchFrom(&f2, k[0], k[1], 0)
	}
	if f1.Far() != f2.Far() || f2.Far() < 1000 {
		t.Errorf("far probes counted with the starts: %d, by search: %d", f1.Far(), f2.Far())
	}
	sparse := []Row{{1, 1, 1}, {5000, 1, 1}}
	if subjectStarts(sparse) != nil {
		t.Error("starts for sparse subjects")
	}
}

// TestMembershipProbesSwitchWithStarts: fully bound probes ("?s p o" with ?s from a join) that ascend in POS but
// jump about SPO — each 4 800 rows after the previous one — move to POS after two far probes whether SPO's starts
// answer them or a search does, so Far (and with it the evaluator's copy by subject) counts the same few probes.
// Before the starts path kept this rule, every such probe stayed in SPO and counted as far.
func TestMembershipProbesSwitchWithStarts(t *testing.T) {
	const subjects, perSubject, every = 1000, 60, 80
	var rows []Row
	for s := ID(1); s <= subjects; s++ {
		rows = append(rows, Row{s, 1, 1000 + s%every})
		for o := ID(1); o < perSubject; o++ {
			rows = append(rows, Row{s, 2, o})
		}
	}
	g, plain := withStarts(t, rows)
	var c1, c2 Cursor
	probes := 0
	for o := ID(1000); o < 1000+every; o++ {
		for _, m := range g.Match(0, 1, o).Rows { // POS: (1, o, s), subjects ascending
			s := m[2]
			want := Row{s, 1, o}
			for i, c := range []*Cursor{&c1, &c2} {
				got := []*Graph{g, plain}[i].MatchFrom(c, s, 1, o)
				if got.Len() != 1 {
					t.Fatalf("probe %v: %d rows", want, got.Len())
				}
				if gs, gp, gob := got.At(0); (Row{gs, gp, gob}) != want {
					t.Fatalf("probe %v: got %v", want, Row{gs, gp, gob})
				}
			}
			probes++
		}
	}
	if probes != subjects {
		t.Fatalf("%d probes, want %d", probes, subjects)
	}
	if c1.Far() != c2.Far() || c2.Far() > 4 {
		t.Errorf("far probes with the starts: %d, by search: %d (of %d)", c1.Far(), c2.Far(), probes)
	}
}

// withStarts returns a graph of rows, which are sorted SPO rows with dense subjects, with its subjects' starts, and
// the same graph without them.
func withStarts(t *testing.T, rows []Row) (g, plain *Graph) {
	t.Helper()
	perms := [3][]Row{SPO: rows}
	for _, r := range rows {
		perms[POS] = append(perms[POS], Row{r[1], r[2], r[0]})
		perms[OSP] = append(perms[OSP], Row{r[2], r[0], r[1]})
	}
	for _, p := range []Perm{POS, OSP} {
		slices.SortFunc(perms[p], func(a, b Row) int { return slices.Compare(a[:], b[:]) })
	}
	g = &Graph{perms: perms}
	st := subjectStarts(rows)
	if st == nil {
		t.Fatal("no starts for dense subjects")
	}
	g.starts.Store(&st)
	return g, &Graph{perms: perms}
}

// TestObjectFanout: a predicate's triples per distinct object, for two predicates of one graph, the same on the
// call that counts and on the later ones that the graph answers from what it kept; a predicate without triples
// has none.
func TestObjectFanout(t *testing.T) {
	b := NewBuilder()
	add := func(s, p, o rdf.Term) {
		if err := b.Add(rdf.Triple(s, p, o)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 600 {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/offer%d", i))
		add(s, rdf.IRI("http://ex.org/vendor"), rdf.IRI(fmt.Sprintf("http://ex.org/v%d", i%40))) // 15 per vendor
		add(s, rdf.IRI("http://ex.org/days"), rdf.Literal(fmt.Sprint(i%4), rdf.XSDInteger))      // 150 per value
	}
	add(rdf.IRI("http://ex.org/x"), rdf.IRI("http://ex.org/other"), rdf.IRI("http://ex.org/y"))
	d := b.Build()
	g := d.Default
	id := func(iri string) ID { return d.Dict.Lookup(rdf.IRI(iri)) }
	for range 2 {
		if f := g.ObjectFanout(id("http://ex.org/vendor")); f != 15 {
			t.Errorf("vendor: fan-out %v, want 15", f)
		}
		if f := g.ObjectFanout(id("http://ex.org/days")); f != 150 {
			t.Errorf("days: fan-out %v, want 150", f)
		}
		if f := g.ObjectFanout(id("http://ex.org/offer1")); f != 0 {
			t.Errorf("a term that is no predicate: fan-out %v, want 0", f)
		}
	}
}

// Package delta computes what changed between two versions of a dataset (issue 8): the quads added and the quads
// removed. Blank nodes have no identity across documents, so when either version has them both versions are
// canonicalized with RDFC-1.0 first and compared by canonical labels; re-serialising a dataset (other syntax,
// labels or order) then gives an empty delta. Ground datasets take a fast path that never builds strings.
package delta

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/canon"
)

// Options configure Compute.
type Options struct {
	// Canon configures the RDFC-1.0 canonicalization used when a version has blank nodes (hash, work limit).
	Canon canon.Options
}

// Compute returns added = B∖A and removed = A∖B, each sorted by canonical N-Quads line and free of duplicates.
// Blank nodes in added carry B's canonical labels (c14nN) and those in removed A's; the two label spaces are
// unrelated. The inputs are not modified.
func Compute(ctx context.Context, a, b []rdf.Quad, opts Options) (added, removed []rdf.Quad, err error) {
	return compute(ctx, flat(a), flat(b), opts)
}

// lined is a quad with its canonical N-Quads line, the sort key of every output.
type lined struct {
	line string
	q    rdf.Quad
}

func compute(ctx context.Context, a, b quadList, opts Options) (added, removed []rdf.Quad, err error) {
	if a.n > 1<<31-1 || b.n > 1<<31-1 {
		return nil, nil, errors.New("delta: more than 2^31 quads")
	}
	// Only quads that mention blank nodes take part in canonicalization (ground quads never enter an RDFC-1.0
	// hash), so the two kinds are diffed separately: ground quads by hash, the rest by canonical line.
	seed := maphash.MakeSeed()
	ka, ba := split(seed, a)
	kb, bb := split(seed, b)
	ga, gr, err := diffGround(ctx, a, b, ka, kb)
	if err != nil {
		return nil, nil, err
	}
	if len(ba) == 0 && len(bb) == 0 {
		return unline(ga), unline(gr), nil
	}
	ba2, br, err := diffBlank(ctx, ba, bb, opts.Canon)
	if err != nil {
		return nil, nil, err
	}
	return unline(mergeLined(ga, ba2)), unline(mergeLined(gr, br)), nil
}

// split hashes the ground quads of qs and copies out those with blank nodes.
func split(seed maphash.Seed, qs quadList) (ground []keyed, blank []rdf.Quad) {
	ground = make([]keyed, 0, qs.n)
	var h maphash.Hash
	h.SetSeed(seed)
	for i := range int32(qs.n) {
		q := qs.at(i)
		if q.S.IsBlank() || q.P.IsBlank() || q.O.IsBlank() || q.G.IsBlank() {
			blank = append(blank, *q)
			continue
		}
		h.Reset()
		hashTerm(&h, &q.S)
		hashTerm(&h, &q.P)
		hashTerm(&h, &q.O)
		hashTerm(&h, &q.G)
		ground = append(ground, keyed{h.Sum64(), i})
	}
	return ground, blank
}

func diffBlank(ctx context.Context, a, b []rdf.Quad, o canon.Options) (added, removed []lined, err error) {
	ca, err := canon.Canonicalize(ctx, a, o)
	if err != nil {
		return nil, nil, fmt.Errorf("delta: canonicalizing the old version: %w", err)
	}
	cb, err := canon.Canonicalize(ctx, b, o)
	if err != nil {
		return nil, nil, fmt.Errorf("delta: canonicalizing the new version: %w", err)
	}
	// Both line lists are sorted and unique, so one merge pass splits them.
	la, lb := ca.Lines(), cb.Lines()
	i, j := 0, 0
	for i < len(la) || j < len(lb) {
		switch {
		case j == len(lb) || (i < len(la) && la[i] < lb[j]):
			removed = append(removed, lined{la[i], ca.Quads[i]})
			i++
		case i == len(la) || lb[j] < la[i]:
			added = append(added, lined{lb[j], cb.Quads[j]})
			j++
		default:
			i++
			j++
		}
	}
	return added, removed, nil
}

// keyed is a quad's index with the hash of its canonical form.
type keyed struct {
	h uint64
	i int32
}

// diffGround diffs the ground quads ka and kb of a and b: sort by hash, merge. Ties on the hash are broken by
// comparing the quads, so collisions cost time, never correctness.
func diffGround(ctx context.Context, a, b quadList, ka, kb []keyed) (added, removed []lined, err error) {
	byKey := func(qs quadList) func(x, y keyed) int {
		return func(x, y keyed) int {
			if c := cmp.Compare(x.h, y.h); c != 0 {
				return c
			}
			return compareQuad(qs.at(x.i), qs.at(y.i))
		}
	}
	slices.SortFunc(ka, byKey(a))
	slices.SortFunc(kb, byKey(b))
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("delta: %w", err)
	}
	i, j := 0, 0
	for i < len(ka) || j < len(kb) {
		var c int
		switch {
		case j == len(kb):
			c = -1
		case i == len(ka):
			c = 1
		default:
			if c = cmp.Compare(ka[i].h, kb[j].h); c == 0 {
				qa, qb := a.at(ka[i].i), b.at(kb[j].i)
				if !equalQuad(qa, qb) {
					c = compareQuad(qa, qb)
				}
			}
		}
		switch {
		case c < 0:
			removed = append(removed, lined{q: *a.at(ka[i].i)})
			i = skipDup(a, ka, i)
		case c > 0:
			added = append(added, lined{q: *b.at(kb[j].i)})
			j = skipDup(b, kb, j)
		default:
			i = skipDup(a, ka, i)
			j = skipDup(b, kb, j)
		}
	}
	return sortByLine(added), sortByLine(removed), nil
}

// skipDup returns the index after k[i] and its duplicates (equal quads sit next to each other once sorted).
func skipDup(qs quadList, k []keyed, i int) int {
	j := i + 1
	for j < len(k) && k[j].h == k[i].h && equalQuad(qs.at(k[i].i), qs.at(k[j].i)) {
		j++
	}
	return j
}

// Terms are hashed and compared as their canonical N-Triples form identifies them: a literal by its lexical form
// and either its language tag or its datatype, with xsd:string and an empty datatype the same.
func hashTerm(h *maphash.Hash, t *rdf.Term) {
	h.WriteByte(byte(t.Kind))
	h.WriteString(t.Value)
	h.WriteByte(0)
	if t.Kind == rdf.KindLiteral {
		lang, dt := literalKey(t)
		h.WriteString(lang)
		h.WriteByte(0)
		h.WriteString(dt)
	}
}

func literalKey(t *rdf.Term) (lang, dt string) {
	if t.Lang != "" {
		return t.Lang, ""
	}
	if t.Datatype == rdf.XSDString {
		return "", ""
	}
	return "", t.Datatype
}

func compareTerm(x, y *rdf.Term) int {
	if c := cmp.Compare(x.Kind, y.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(x.Value, y.Value); c != 0 {
		return c
	}
	if x.Kind != rdf.KindLiteral {
		return 0
	}
	xl, xd := literalKey(x)
	yl, yd := literalKey(y)
	if c := strings.Compare(xl, yl); c != 0 {
		return c
	}
	return strings.Compare(xd, yd)
}

func equalTerm(x, y *rdf.Term) bool {
	if x.Kind != y.Kind || x.Value != y.Value {
		return false
	}
	if x.Kind != rdf.KindLiteral {
		return true
	}
	xl, xd := literalKey(x)
	yl, yd := literalKey(y)
	return xl == yl && xd == yd
}

func equalQuad(x, y *rdf.Quad) bool {
	return equalTerm(&x.S, &y.S) && equalTerm(&x.P, &y.P) && equalTerm(&x.O, &y.O) && equalTerm(&x.G, &y.G)
}

func compareQuad(x, y *rdf.Quad) int {
	if c := compareTerm(&x.S, &y.S); c != 0 {
		return c
	}
	if c := compareTerm(&x.P, &y.P); c != 0 {
		return c
	}
	if c := compareTerm(&x.O, &y.O); c != 0 {
		return c
	}
	return compareTerm(&x.G, &y.G)
}

// sortByLine orders quads by their canonical N-Quads line, the order canonicalization produces, so ground and
// blank-node changes interleave as one sorted list.
func sortByLine(ls []lined) []lined {
	for i := range ls {
		ls[i].line = canon.Line(ls[i].q)
	}
	slices.SortFunc(ls, func(x, y lined) int { return strings.Compare(x.line, y.line) })
	return ls
}

func mergeLined(x, y []lined) []lined {
	out := make([]lined, 0, len(x)+len(y))
	for len(x) > 0 && len(y) > 0 {
		if x[0].line <= y[0].line {
			out, x = append(out, x[0]), x[1:]
		} else {
			out, y = append(out, y[0]), y[1:]
		}
	}
	return append(append(out, x...), y...)
}

func unline(ls []lined) []rdf.Quad {
	if len(ls) == 0 {
		return nil
	}
	out := make([]rdf.Quad, len(ls))
	for i := range ls {
		out[i] = ls[i].q
	}
	return out
}

// The graphs of the delta dataset.
const (
	AddedGraph   = "urn:ldhub:delta:added"
	RemovedGraph = "urn:ldhub:delta:removed"
)

// ErrNamedGraph is returned by Dataset when a changed quad is in a named graph: the delta dataset uses the graph
// position to say added/removed, so it can only carry triples.
var ErrNamedGraph = errors.New("delta: a changed quad is in a named graph; the delta dataset holds only default-graph triples")

// Dataset returns the delta as one dataset: removed triples in graph <urn:ldhub:delta:removed>, then added triples
// in <urn:ldhub:delta:added>. Blank nodes are prefixed old_ (removed) and new_ (added), because the labels of the
// two versions are unrelated and one document would otherwise merge nodes that merely share a label.
func Dataset(added, removed []rdf.Quad) ([]rdf.Quad, error) {
	out := make([]rdf.Quad, 0, len(added)+len(removed))
	for _, side := range []struct {
		qs     []rdf.Quad
		graph  string
		prefix string
	}{{removed, RemovedGraph, "old_"}, {added, AddedGraph, "new_"}} {
		for _, q := range side.qs {
			if !q.G.IsZero() {
				return nil, fmt.Errorf("%w: %s", ErrNamedGraph, q)
			}
			rename := func(t rdf.Term) rdf.Term {
				if t.IsBlank() {
					return rdf.Blank(side.prefix + t.Value)
				}
				return t
			}
			out = append(out, rdf.Quad{S: rename(q.S), P: q.P, O: rename(q.O), G: rdf.IRI(side.graph)})
		}
	}
	return out, nil
}

// Encode writes the delta dataset (see Dataset) to enc, any dataset encoder (N-Quads, TriG), and closes it.
func Encode(enc rdf.Encoder, added, removed []rdf.Quad) error {
	ds, err := Dataset(added, removed)
	if err != nil {
		return err
	}
	for _, q := range ds {
		if err := enc.Encode(q); err != nil {
			return fmt.Errorf("delta: encoding %s: %w", q, err)
		}
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("delta: closing encoder: %w", err)
	}
	return nil
}

// WriteNQuads writes the delta dataset (see Dataset) as N-Quads in canonical line form.
func WriteNQuads(w io.Writer, added, removed []rdf.Quad) error {
	ds, err := Dataset(added, removed)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, q := range ds {
		b.WriteString(canon.Line(q))
		if b.Len() > 64<<10 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return fmt.Errorf("delta: writing N-Quads: %w", err)
			}
			b.Reset()
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("delta: writing N-Quads: %w", err)
	}
	return nil
}

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
// When either version has blank nodes, the blank nodes of added carry B's canonical labels (c14nN) and those of
// removed A's; the two label spaces are unrelated. The inputs are not modified.
func Compute(ctx context.Context, a, b []rdf.Quad, opts Options) (added, removed []rdf.Quad, err error) {
	if hasBlank(a) || hasBlank(b) {
		return computeCanonical(ctx, a, b, opts.Canon)
	}
	return computeGround(ctx, a, b)
}

func hasBlank(qs []rdf.Quad) bool {
	for _, q := range qs {
		if q.S.IsBlank() || q.O.IsBlank() || q.G.IsBlank() || q.P.IsBlank() {
			return true
		}
	}
	return false
}

func computeCanonical(ctx context.Context, a, b []rdf.Quad, o canon.Options) (added, removed []rdf.Quad, err error) {
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
			removed = append(removed, ca.Quads[i])
			i++
		case i == len(la) || lb[j] < la[i]:
			added = append(added, cb.Quads[j])
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

// computeGround diffs datasets without blank nodes: hash every quad (no serialisation), sort by hash, merge. Ties
// on the hash are broken by comparing the quads, so collisions cost time, never correctness.
func computeGround(ctx context.Context, a, b []rdf.Quad) (added, removed []rdf.Quad, err error) {
	if len(a) > 1<<31-1 || len(b) > 1<<31-1 {
		return nil, nil, errors.New("delta: more than 2^31 quads")
	}
	seed := maphash.MakeSeed()
	ka, kb := hashAll(seed, a), hashAll(seed, b)
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("delta: %w", err)
	}
	byKey := func(qs []rdf.Quad) func(x, y keyed) int {
		return func(x, y keyed) int {
			if c := cmp.Compare(x.h, y.h); c != 0 {
				return c
			}
			return compareQuad(&qs[x.i], &qs[y.i])
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
				c = compareQuad(&a[ka[i].i], &b[kb[j].i])
			}
		}
		switch {
		case c < 0:
			removed = append(removed, a[ka[i].i])
			i = skipDup(a, ka, i)
		case c > 0:
			added = append(added, b[kb[j].i])
			j = skipDup(b, kb, j)
		default:
			i = skipDup(a, ka, i)
			j = skipDup(b, kb, j)
		}
	}
	return sortByLine(added), sortByLine(removed), nil
}

// skipDup returns the index after k[i] and its duplicates (equal quads sit next to each other once sorted).
func skipDup(qs []rdf.Quad, k []keyed, i int) int {
	j := i + 1
	for j < len(k) && k[j].h == k[i].h && compareQuad(&qs[k[i].i], &qs[k[j].i]) == 0 {
		j++
	}
	return j
}

func hashAll(seed maphash.Seed, qs []rdf.Quad) []keyed {
	out := make([]keyed, len(qs))
	var h maphash.Hash
	h.SetSeed(seed)
	for i := range qs {
		h.Reset()
		q := &qs[i]
		hashTerm(&h, &q.S)
		hashTerm(&h, &q.P)
		hashTerm(&h, &q.O)
		hashTerm(&h, &q.G)
		out[i] = keyed{h.Sum64(), int32(i)}
	}
	return out
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

// sortByLine orders quads by their canonical N-Quads line, the order the canonical path produces, so both paths
// give the same output for the same input.
func sortByLine(qs []rdf.Quad) []rdf.Quad {
	type lq struct {
		line string
		q    rdf.Quad
	}
	ls := make([]lq, len(qs))
	for i, q := range qs {
		ls[i] = lq{canon.Line(q), q}
	}
	slices.SortFunc(ls, func(x, y lq) int { return strings.Compare(x.line, y.line) })
	for i := range ls {
		qs[i] = ls[i].q
	}
	return qs
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

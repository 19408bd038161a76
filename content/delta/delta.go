// Package delta computes what changed between two versions of a dataset (issue 8): the quads added and the quads
// removed. Blank nodes have no identity across documents, so when either version has them both versions are
// canonicalized with RDFC-1.0 first and compared by canonical labels; re-serialising a dataset (other syntax,
// labels or order) then gives an empty delta, except for the rare datasets with blank graph names on which
// RDFC-1.0 itself depends on input order (see canon.TestBlankGraphNameAmbiguity). Ground quads take a fast path:
// hashed, sorted and merged, never canonicalized.
package delta

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/canon"
	"github.com/ldhub/ldhub/content/rdf/turtleenc"
)

// Options configure Compute.
type Options struct {
	// Canon configures the RDFC-1.0 canonicalization used when a version has blank nodes (hash, work limit).
	Canon canon.Options
	// HashLabels labels a blank node by its first-degree hash ("h" + 32 hex digits), followed by "_" and its rank
	// in canonical order among the nodes of its version that share that hash, if any. Canonical labels number the
	// nodes of the whole dataset, so one edited blank node can renumber all the others and put their quads in the
	// delta; first-degree hashes depend only on a node's own quads, so with HashLabels the delta lists the changed
	// quads plus the quads that link to an edited blank node (its label changed with its hash). Either way a
	// re-serialised dataset gives an empty delta: both labellings are invariant under renaming blank nodes.
	HashLabels bool
}

// Compute returns added = B∖A and removed = A∖B, each sorted by canonical N-Quads line and free of duplicates.
// Blank nodes in added carry B's canonical labels (c14nN) and those in removed A's, so equal labels on the two
// sides do not mean the same node (with HashLabels, equal "h" labels mean nodes with the same own quads). The
// inputs are not modified.
func Compute(ctx context.Context, a, b []rdf.Quad, opts Options) (added, removed []rdf.Quad, err error) {
	seed := maphash.MakeSeed()
	prepare := func(qs []rdf.Quad) *side {
		s := newSide(seed, len(qs))
		for i := range qs {
			s.add(&qs[i])
		}
		s.finish()
		return s
	}
	// The versions are prepared in parallel, as ComputeDecoders does.
	done := make(chan *side, 1)
	go func() { done <- prepare(b) }()
	sa := prepare(a)
	return compute(ctx, sa, <-done, opts)
}

// lined is a quad with its canonical N-Quads line, the sort key of every output.
type lined struct {
	line string
	q    rdf.Quad
}

// compute diffs two prepared versions. Only quads that mention blank nodes take part in canonicalization (ground
// quads never enter an RDFC-1.0 hash), so the two kinds are diffed separately and the results merged.
func compute(ctx context.Context, a, b *side, opts Options) (added, removed []rdf.Quad, err error) {
	for _, s := range []*side{a, b} {
		if s.err != nil {
			return nil, nil, s.err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("delta: %w", err)
	}
	ga, gr := diffGround(a, b)
	if len(a.blank) == 0 && len(b.blank) == 0 {
		return unline(ga), unline(gr), nil
	}
	ba, br, err := diffBlank(ctx, a.blank, b.blank, opts)
	if err != nil {
		return nil, nil, err
	}
	return unline(mergeLined(ga, ba)), unline(mergeLined(gr, br)), nil
}

func diffBlank(ctx context.Context, a, b []rdf.Quad, o Options) (added, removed []lined, err error) {
	la, err := labelBlank(ctx, a, o)
	if err != nil {
		return nil, nil, fmt.Errorf("delta: canonicalizing the old version: %w", err)
	}
	lb, err := labelBlank(ctx, b, o)
	if err != nil {
		return nil, nil, fmt.Errorf("delta: canonicalizing the new version: %w", err)
	}
	// Both lists are sorted and unique, so one merge pass splits them.
	i, j := 0, 0
	for i < len(la) || j < len(lb) {
		switch {
		case j == len(lb) || (i < len(la) && la[i].line < lb[j].line):
			removed = append(removed, la[i])
			i++
		case i == len(la) || lb[j].line < la[i].line:
			added = append(added, lb[j])
			j++
		default:
			i++
			j++
		}
	}
	return added, removed, nil
}

// labelBlank canonicalizes qs and returns its quads relabelled as o asks, sorted by line and unique.
func labelBlank(ctx context.Context, qs []rdf.Quad, o Options) ([]lined, error) {
	res, err := canon.Canonicalize(ctx, qs, o.Canon)
	if err != nil {
		return nil, err
	}
	out := make([]lined, len(res.Quads))
	if !o.HashLabels {
		for i, q := range res.Quads {
			out[i] = lined{res.Lines()[i], q}
		}
		return out, nil
	}
	// Nodes sharing a first-degree hash are told apart by their rank in canonical order within that group, which
	// moves only when the group itself changes, unlike the dataset-wide canonical number.
	groups := map[string][]string{} // first-degree hash → canonical labels of its nodes
	for in, c := range res.IssuedIdentifiers {
		h := res.FirstDegreeHashes[in]
		groups[h] = append(groups[h], c)
	}
	label := make(map[string]string, len(res.IssuedIdentifiers)) // canonical label → output label
	for h, cs := range groups {
		if len(cs) == 1 {
			label[cs[0]] = "h" + h[:32]
			continue
		}
		slices.SortFunc(cs, func(x, y string) int { return cmp.Compare(c14nNumber(x), c14nNumber(y)) })
		for rank, c := range cs {
			label[c] = "h" + h[:32] + "_" + strconv.Itoa(rank)
		}
	}
	relabel := func(t rdf.Term) rdf.Term {
		if t.IsBlank() {
			return rdf.Blank(label[t.Value])
		}
		return t
	}
	for i, q := range res.Quads {
		q = rdf.Quad{S: relabel(q.S), P: relabel(q.P), O: relabel(q.O), G: relabel(q.G)}
		out[i] = lined{canon.Line(q), q}
	}
	slices.SortFunc(out, func(x, y lined) int { return strings.Compare(x.line, y.line) })
	return out, nil
}

// c14nNumber returns N of a canonical label c14nN.
func c14nNumber(label string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(label, "c14n"))
	return n
}

// diffGround merges the sorted ground keys of both versions. Equal hashes are confirmed by comparing encodings,
// so a hash collision costs time, never correctness; only the changed quads are decoded.
func diffGround(a, b *side) (added, removed []lined) {
	i, j := 0, 0
	for i < len(a.keys) || j < len(b.keys) {
		var c int
		switch {
		case j == len(b.keys):
			c = -1
		case i == len(a.keys):
			c = 1
		default:
			if c = cmp.Compare(a.keys[i].h, b.keys[j].h); c == 0 {
				if ea, eb := a.enc(a.keys[i]), b.enc(b.keys[j]); !bytes.Equal(ea, eb) {
					c = bytes.Compare(ea, eb)
				}
			}
		}
		switch {
		case c < 0:
			removed = append(removed, lined{q: a.quad(a.keys[i])})
			i = a.skipDup(i)
		case c > 0:
			added = append(added, lined{q: b.quad(b.keys[j])})
			j = b.skipDup(j)
		default:
			i = a.skipDup(i)
			j = b.skipDup(j)
		}
	}
	return sortByLine(added), sortByLine(removed)
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

// WriteTriG writes the delta dataset (see Dataset) as TriG, one block per graph, abbreviated with o's prefixes.
func WriteTriG(w io.Writer, added, removed []rdf.Quad, o rdf.EncodeOptions) error {
	return Encode(turtleenc.NewTriGEncoder(w, o), added, removed)
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

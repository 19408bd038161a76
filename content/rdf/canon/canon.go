// Package canon implements RDF Dataset Canonicalization (RDFC-1.0, W3C Recommendation 21 May 2024): it gives every
// blank node of a dataset a label that depends only on the dataset's structure, so that two serialisations of the
// same dataset produce byte-identical canonical N-Quads. Hubs use it to compare, hash and sign graphs. As specified,
// the algorithm can depend on input order for some datasets whose blank nodes are also graph names
// (TestBlankGraphNameAmbiguity); this implementation then gives what the reference implementation gives.
package canon

import (
	"context"
	"crypto"
	_ "crypto/sha256" // registers crypto.SHA256 for Options.Hash
	_ "crypto/sha512" // registers crypto.SHA384
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// The default work limit is DefaultMaxWork or DefaultWorkPerNode per blank node, whichever is larger. Work is
// Hash N-Degree Quads calls plus permutations tried. The W3C suite's legitimate graphs need at most 3,348 units
// (test044: 12 blank nodes); its poison graph, a 10-node clique, needs billions. Large real datasets with many
// similar blank nodes need a few units per node, hence the per-node allowance. What the default refuses besides
// poison graphs: long runs of blank nodes indistinguishable at first degree, such as an RDF list of n identical
// values, which needs about 3n² units (n = 145 fits, n = 150 needs 65,712); trusted data can raise MaxWork.
const (
	DefaultMaxWork     = 1 << 16
	DefaultWorkPerNode = 64
)

// ErrWorkLimit is matched (errors.Is) by the error returned when a dataset needs more Hash N-Degree Quads work than
// Options.MaxWork allows, which is what poison graphs (large sets of indistinguishable blank nodes) do.
var ErrWorkLimit = errors.New("rdfc-1.0: work limit exceeded")

// WorkLimitError reports which limit a dataset exceeded.
type WorkLimitError struct {
	Limit int
}

func (e *WorkLimitError) Error() string {
	return fmt.Sprintf("%v: more than %d Hash N-Degree Quads calls and permutations (too many indistinguishable blank nodes)", ErrWorkLimit, e.Limit)
}

func (e *WorkLimitError) Is(target error) bool { return target == ErrWorkLimit }

// Options configure Canonicalize.
type Options struct {
	// Hash is the hash algorithm; zero means SHA-256, the RDFC-1.0 default. SHA-384 is the other one the
	// recommendation names; any available crypto.Hash is accepted.
	Hash crypto.Hash
	// MaxWork caps Hash N-Degree Quads calls plus permutations examined; zero means the default (see
	// DefaultMaxWork) and a negative value means no limit (only for trusted input).
	MaxWork int
}

// Result is a canonicalized dataset.
type Result struct {
	// Quads is the deduplicated dataset with every blank node relabelled canonically, in canonical N-Quads order.
	Quads []rdf.Quad
	// IssuedIdentifiers maps each input blank-node label to its canonical label (c14n0, c14n1, …).
	IssuedIdentifiers map[string]string
	// FirstDegreeHashes maps each input blank-node label to its Hash First Degree Quads result (hex). It depends
	// only on the quads that mention the node, not on the rest of the dataset, which makes it useful for matching
	// nodes across versions of a dataset.
	FirstDegreeHashes map[string]string
	// Work is the Hash N-Degree Quads work spent (calls plus permutations), to compare against Options.MaxWork.
	Work int
	// lines holds the canonical N-Quads line of each quad in Quads, newline included.
	lines []string
}

// NQuads returns the canonical N-Quads document: one line per quad, sorted in code point order, each ending in a
// newline.
func (r *Result) NQuads() []byte {
	n := 0
	for _, l := range r.lines {
		n += len(l)
	}
	b := make([]byte, 0, n)
	for _, l := range r.lines {
		b = append(b, l...)
	}
	return b
}

// Lines returns the canonical N-Quads lines (each ending in a newline) in canonical order, parallel to Quads.
func (r *Result) Lines() []string { return r.lines }

// bquad is a quad that mentions at least one blank node, prepared for hashing: term holds the canonical N-Quads
// form of each position (empty for an absent graph name) and blank the node index of blank positions (-1 otherwise).
type bquad struct {
	term  [4]string
	blank [4]int32
}

// state is the canonicalization state of one Canonicalize call (RDFC-1.0 §4.2).
type state struct {
	ctx     context.Context
	maxWork int
	work    int

	labels []string  // node index → input label
	quads  []bquad   // quads with blank nodes
	byNode [][]int32 // node index → indexes into quads (the blank node to quads map)
	canon  *issuer
	first  []string // node index → memoised Hash First Degree Quads result

	h   hash.Hash
	buf []byte
}

// Canonicalize runs RDFC-1.0 over quads. Duplicate quads are removed first, since a dataset is a set. Input quads
// are not modified.
func Canonicalize(ctx context.Context, quads []rdf.Quad, opts Options) (*Result, error) {
	hf := opts.Hash
	if hf == 0 {
		hf = crypto.SHA256
	}
	if !hf.Available() {
		return nil, fmt.Errorf("rdfc-1.0: hash algorithm %v is not available", hf)
	}
	if len(quads) > math.MaxInt32 {
		return nil, fmt.Errorf("rdfc-1.0: %d quads is more than this implementation indexes (2^31-1)", len(quads))
	}
	st := &state{ctx: ctx, maxWork: opts.MaxWork, h: hf.New()}
	entries, bqs := st.load(quads)
	if st.maxWork == 0 {
		st.maxWork = max(DefaultMaxWork, DefaultWorkPerNode*len(st.labels))
	}
	if err := st.issueAll(); err != nil {
		return nil, err
	}
	return st.result(quads, entries, bqs)
}

// entry is one output quad: its canonical line and where the quad is (quads for ground ones, bqs for the others).
type entry struct {
	line  string
	idx   int32
	blank bool
}

// load builds the blank node to quads map (§4.4.3 step 2). Ground quads are serialised once and kept as they are,
// their duplicates dropped after sorting; quads with blank nodes are deduplicated now, because a duplicate would
// change the first-degree hashes. It returns the ground entries and the input quads with blank nodes, parallel to
// st.quads.
func (st *state) load(quads []rdf.Quad) (ground []entry, bqs []rdf.Quad) {
	ground = make([]entry, 0, len(quads))
	seen := map[string]struct{}{}
	index := map[string]int32{} // input label → node index
	for qi, q := range quads {
		// A blank predicate (generalized RDF) is relabelled too, so that no input label leaks into the output.
		if !q.S.IsBlank() && !q.P.IsBlank() && !q.O.IsBlank() && !q.G.IsBlank() {
			ground = append(ground, entry{line: Line(q), idx: int32(qi)})
			continue
		}
		var bq bquad
		for i, t := range [4]rdf.Term{q.S, q.P, q.O, q.G} {
			bq.blank[i] = -1
			switch {
			case t.IsBlank():
				id, ok := index[t.Value]
				if !ok {
					id = int32(len(st.labels))
					index[t.Value] = id
					st.labels = append(st.labels, t.Value)
					st.byNode = append(st.byNode, nil)
				}
				bq.blank[i] = id
				bq.term[i] = "_:" + t.Value // non-empty marks the position as present
			case !t.IsZero():
				bq.term[i] = t.String()
			}
		}
		key := string(appendLine(nil, &bq, func(i int32) string { return st.labels[i] }))
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		qi := int32(len(st.quads))
		st.quads = append(st.quads, bq)
		bqs = append(bqs, q)
		for i, n := range bq.blank {
			// A node in two positions of one quad lists the quad once (the spec's map holds a set of quads).
			if n >= 0 && !slices.Contains(bq.blank[:i], n) {
				st.byNode[n] = append(st.byNode[n], qi)
			}
		}
	}
	return ground, bqs
}

// result relabels the quads with blank nodes canonically and sorts everything into canonical N-Quads order.
func (st *state) result(quads []rdf.Quad, entries []entry, bqs []rdf.Quad) (*Result, error) {
	res := &Result{
		IssuedIdentifiers: make(map[string]string, len(st.labels)),
		FirstDegreeHashes: make(map[string]string, len(st.labels)),
		Work:              st.work,
	}
	for id, l := range st.labels {
		res.IssuedIdentifiers[l] = st.canon.issued[int32(id)]
		res.FirstDegreeHashes[l] = st.first[id]
	}
	canonLabel := func(i int32) string { return st.canon.issued[i] }
	for i := range bqs {
		bq := &st.quads[i]
		q := &bqs[i]
		terms := [4]*rdf.Term{&q.S, &q.P, &q.O, &q.G}
		for p, n := range bq.blank {
			if n >= 0 {
				*terms[p] = rdf.Blank(st.canon.issued[n])
			}
		}
		entries = append(entries, entry{line: string(appendLine(nil, bq, canonLabel)), idx: int32(i), blank: true})
	}
	if err := st.ctx.Err(); err != nil {
		return nil, fmt.Errorf("rdfc-1.0: %w", err)
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.line, b.line) })
	entries = slices.CompactFunc(entries, func(a, b entry) bool { return a.line == b.line })
	res.Quads = make([]rdf.Quad, len(entries))
	res.lines = make([]string, len(entries))
	for i, e := range entries {
		if e.blank {
			res.Quads[i] = bqs[e.idx]
		} else {
			res.Quads[i] = quads[e.idx]
		}
		res.lines[i] = e.line
	}
	return res, nil
}

// Line returns q as one canonical N-Quads line, newline included, with its blank-node labels as they are.
func Line(q rdf.Quad) string {
	return string(append(rdf.AppendQuad(make([]byte, 0, 128), q), '\n'))
}

// appendLine serialises bq with each blank node written as "_:" + label(node).
func appendLine(dst []byte, bq *bquad, label func(int32) string) []byte {
	for i := range 4 {
		if bq.term[i] == "" {
			continue
		}
		if i > 0 {
			dst = append(dst, ' ')
		}
		if n := bq.blank[i]; n >= 0 {
			dst = append(dst, "_:"...)
			dst = append(dst, label(n)...)
		} else {
			dst = append(dst, bq.term[i]...)
		}
	}
	return append(dst, " .\n"...)
}

// issueAll is steps 3–6 of the Canonicalization Algorithm: first-degree hashes, unique hashes first, then the
// remaining nodes by their N-degree hashes.
func (st *state) issueAll() error {
	st.canon = newIssuer("c14n")
	st.first = make([]string, len(st.labels))
	byHash := map[string][]int32{}
	for id := range st.labels {
		if id&0xfff == 0xfff {
			if err := st.ctx.Err(); err != nil {
				return fmt.Errorf("rdfc-1.0: %w", err)
			}
		}
		h := st.hashFirstDegree(int32(id))
		byHash[h] = append(byHash[h], int32(id))
	}
	hashes := make([]string, 0, len(byHash))
	for h := range byHash {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)

	var shared []string
	for _, h := range hashes {
		if ids := byHash[h]; len(ids) == 1 {
			st.canon.issue(ids[0])
		} else {
			shared = append(shared, h)
		}
	}

	type pathResult struct {
		hash string
		iss  *tmpIssuer
	}
	for _, h := range shared {
		var results []pathResult
		for _, id := range byHash[h] {
			if _, done := st.canon.issued[id]; done {
				continue
			}
			tmp := &tmpIssuer{}
			tmp.issue(id)
			hash, iss, err := st.hashNDegree(id, tmp)
			if err != nil {
				return err
			}
			results = append(results, pathResult{hash, iss})
		}
		slices.SortStableFunc(results, func(a, b pathResult) int { return strings.Compare(a.hash, b.hash) })
		for _, r := range results {
			for _, id := range r.iss.order {
				st.canon.issue(id)
			}
		}
	}
	return nil
}

// hashFirstDegree is the Hash First Degree Quads algorithm (§4.6): the hash of the sorted quads that mention the
// node, with the node itself written _:a and every other blank node _:z.
func (st *state) hashFirstDegree(id int32) string {
	if h := st.first[id]; h != "" {
		return h
	}
	qs := st.byNode[id]
	lines := make([]string, len(qs))
	label := func(n int32) string {
		if n == id {
			return "a"
		}
		return "z"
	}
	for i, qi := range qs {
		st.buf = appendLine(st.buf[:0], &st.quads[qi], label)
		lines[i] = string(st.buf)
	}
	slices.Sort(lines)
	st.h.Reset()
	for _, l := range lines {
		st.h.Write([]byte(l))
	}
	h := hex.EncodeToString(st.h.Sum(nil))
	st.first[id] = h
	return h
}

// hashRelated is the Hash Related Blank Node algorithm (§4.7).
func (st *state) hashRelated(related int32, bq *bquad, iss *tmpIssuer, position byte) string {
	var ident string
	if l, ok := st.canon.issued[related]; ok {
		ident = "_:" + l
	} else if i, ok := iss.lookup(related); ok {
		ident = "_:b" + strconv.Itoa(int(i))
	} else {
		ident = st.hashFirstDegree(related) // before st.buf is reused below
	}
	b := append(st.buf[:0], position)
	if position != 'g' {
		b = append(b, bq.term[1]...) // the predicate, already written as <iri>
	}
	b = append(b, ident...)
	st.buf = b
	st.h.Reset()
	st.h.Write(b)
	return hex.EncodeToString(st.h.Sum(nil))
}

// spend charges one unit of work and checks the limit and the context.
func (st *state) spend() error {
	st.work++
	if st.maxWork > 0 && st.work > st.maxWork {
		return &WorkLimitError{Limit: st.maxWork}
	}
	if st.work&0xfff == 0 {
		if err := st.ctx.Err(); err != nil {
			return fmt.Errorf("rdfc-1.0: %w", err)
		}
	}
	return nil
}

// hashNDegree is the Hash N-Degree Quads algorithm (§4.8). It returns the hash and the issuer that the chosen
// (lexicographically least) path produced.
func (st *state) hashNDegree(id int32, iss *tmpIssuer) (string, *tmpIssuer, error) {
	if err := st.spend(); err != nil {
		return "", nil, err
	}
	related := map[string][]int32{}
	positions := [4]byte{'s', 'p', 'o', 'g'}
	for _, qi := range st.byNode[id] {
		bq := &st.quads[qi]
		for p, n := range bq.blank {
			if n < 0 || n == id || p == 1 {
				continue
			}
			h := st.hashRelated(n, bq, iss, positions[p])
			related[h] = append(related[h], n)
		}
	}
	hashes := make([]string, 0, len(related))
	for h := range related {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)

	var data strings.Builder
	for _, rh := range hashes {
		data.WriteString(rh)
		var chosenPath string
		var chosenIssuer *tmpIssuer
		perm := related[rh]
		slices.Sort(perm)
		for {
			if err := st.spend(); err != nil {
				return "", nil, err
			}
			path, copyIss, ok, err := st.tryPermutation(perm, iss, chosenPath)
			if err != nil {
				return "", nil, err
			}
			if ok && (chosenPath == "" || path < chosenPath) {
				chosenPath, chosenIssuer = path, copyIss
			}
			if !nextPermutation(perm) {
				break
			}
		}
		data.WriteString(chosenPath)
		iss = chosenIssuer
	}
	st.h.Reset()
	st.h.Write([]byte(data.String()))
	return hex.EncodeToString(st.h.Sum(nil)), iss, nil
}

// tryPermutation is step 5.4.4 of Hash N-Degree Quads for one permutation. ok is false when the path was abandoned
// because it can no longer beat chosen.
func (st *state) tryPermutation(perm []int32, iss *tmpIssuer, chosen string) (path string, out *tmpIssuer, ok bool, err error) {
	cp := iss.clone()
	var p []byte
	var recurse []int32
	worse := func() bool {
		return chosen != "" && len(p) >= len(chosen) && string(p) > chosen
	}
	for _, n := range perm {
		if l, done := st.canon.issued[n]; done {
			p = append(p, "_:"...)
			p = append(p, l...)
		} else {
			if _, has := cp.lookup(n); !has {
				recurse = append(recurse, n)
			}
			p = append(p, "_:b"...)
			p = strconv.AppendInt(p, int64(cp.issue(n)), 10)
		}
		if worse() {
			return "", nil, false, nil
		}
	}
	for _, n := range recurse {
		h, res, err := st.hashNDegree(n, cp)
		if err != nil {
			return "", nil, false, err
		}
		p = append(p, "_:b"...)
		p = strconv.AppendInt(p, int64(cp.issue(n)), 10)
		p = append(p, '<')
		p = append(p, h...)
		p = append(p, '>')
		cp = res
		if worse() {
			return "", nil, false, nil
		}
	}
	return string(p), cp, true, nil
}

// nextPermutation rearranges s into the next permutation in lexicographic order and reports false (leaving s
// sorted again) after the last one. Every permutation is visited once when s starts sorted.
func nextPermutation(s []int32) bool {
	i := len(s) - 2
	for i >= 0 && s[i] >= s[i+1] {
		i--
	}
	if i < 0 {
		slices.Reverse(s)
		return false
	}
	j := len(s) - 1
	for s[j] <= s[i] {
		j--
	}
	s[i], s[j] = s[j], s[i]
	slices.Reverse(s[i+1:])
	return true
}

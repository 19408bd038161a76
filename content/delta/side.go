package delta

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"slices"

	"github.com/ldhub/ldhub/content/rdf"
)

// side holds one version, prepared for diffing. Ground quads are stored encoded in one pointer-free arena rather
// than as rdf.Quad values: a million quads as values are about 220 MB the garbage collector must scan and that
// slice growth copies with write barriers, which cost more than the diff itself. Quads with blank nodes are kept
// as they are for canonicalization; they are few in practice.
type side struct {
	arena  []byte
	starts []int // starts[i] is where ground quad i begins in arena; one extra entry closes the last
	keys   []keyed
	blank  []rdf.Quad
	h      maphash.Hash
	err    error
}

// keyed is a ground quad's index with the seeded hash of its encoding.
type keyed struct {
	h uint64
	i int32
}

var errTooMany = errors.New("delta: more than 2^31-1 ground quads in one version")

func newSide(seed maphash.Seed, sizeHint int) *side {
	s := &side{starts: make([]int, 0, sizeHint+1), keys: make([]keyed, 0, sizeHint)}
	s.h.SetSeed(seed)
	return s
}

func (s *side) add(q *rdf.Quad) {
	if q.S.IsBlank() || q.P.IsBlank() || q.O.IsBlank() || q.G.IsBlank() {
		s.blank = append(s.blank, *q)
		return
	}
	if len(s.keys) == 1<<31-1 {
		s.err = errTooMany
		return
	}
	start := len(s.arena)
	s.arena = appendTerm(s.arena, &q.S)
	s.arena = appendTerm(s.arena, &q.P)
	s.arena = appendTerm(s.arena, &q.O)
	s.arena = appendTerm(s.arena, &q.G)
	s.h.Reset()
	s.h.Write(s.arena[start:])
	s.keys = append(s.keys, keyed{s.h.Sum64(), int32(len(s.starts))})
	s.starts = append(s.starts, start)
}

// finish closes the arena and sorts the keys by hash, then by encoding, so equal quads are adjacent.
func (s *side) finish() {
	s.starts = append(s.starts, len(s.arena))
	slices.SortFunc(s.keys, func(x, y keyed) int {
		if c := cmp.Compare(x.h, y.h); c != 0 {
			return c
		}
		return bytes.Compare(s.enc(x.i), s.enc(y.i))
	})
}

func (s *side) enc(i int32) []byte { return s.arena[s.starts[i]:s.starts[i+1]] }

// skipDup returns the index after keys[k] and its duplicates.
func (s *side) skipDup(k int) int {
	j := k + 1
	for j < len(s.keys) && s.keys[j].h == s.keys[k].h && bytes.Equal(s.enc(s.keys[k].i), s.enc(s.keys[j].i)) {
		j++
	}
	return j
}

// The encoding of a term is injective on what canonical N-Quads distinguishes: kind, value, and for a literal its
// language tag or else its datatype, xsd:string and an empty datatype being the same. Lengths are prefixed, so any
// byte may occur in a value.
const (
	litString byte = iota
	litLang
	litTyped
)

func appendTerm(b []byte, t *rdf.Term) []byte {
	b = append(b, byte(t.Kind))
	if t.Kind == rdf.KindNone {
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(t.Value)))
	b = append(b, t.Value...)
	if t.Kind != rdf.KindLiteral {
		return b
	}
	switch {
	case t.Lang != "":
		b = append(b, litLang)
		b = binary.AppendUvarint(b, uint64(len(t.Lang)))
		return append(b, t.Lang...)
	case t.Datatype == "" || t.Datatype == rdf.XSDString:
		return append(b, litString)
	default:
		b = append(b, litTyped)
		b = binary.AppendUvarint(b, uint64(len(t.Datatype)))
		return append(b, t.Datatype...)
	}
}

// quad decodes ground quad i.
func (s *side) quad(i int32) rdf.Quad {
	b := s.enc(i)
	var q rdf.Quad
	for _, t := range []*rdf.Term{&q.S, &q.P, &q.O, &q.G} {
		*t, b = decodeTerm(b)
	}
	return q
}

func decodeTerm(b []byte) (rdf.Term, []byte) {
	kind := rdf.Kind(b[0])
	b = b[1:]
	if kind == rdf.KindNone {
		return rdf.Term{}, b
	}
	str := func() string {
		n, w := binary.Uvarint(b)
		s := string(b[w : w+int(n)])
		b = b[w+int(n):]
		return s
	}
	v := str()
	if kind != rdf.KindLiteral {
		return rdf.Term{Kind: kind, Value: v}, b
	}
	flag := b[0]
	b = b[1:]
	switch flag {
	case litLang:
		return rdf.LangString(v, str()), b
	case litTyped:
		return rdf.Literal(v, str()), b
	}
	return rdf.String(v), b
}

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

// side holds one version, prepared for diffing. Ground quads are stored encoded in pointer-free blocks rather than
// as rdf.Quad values: a million quads as values are about 220 MB that the garbage collector must scan and that slice
// growth copies with write barriers, which cost more than the diff itself. Fixed-size blocks are never copied once
// written. Quads with blank nodes are kept as they are for canonicalization; they are few in practice.
type side struct {
	blocks [][]byte
	keys   []keyed
	blank  []rdf.Quad
	h      maphash.Hash
	buf    []byte
	err    error
}

// keyed locates one ground quad's encoding (block index, offset, length) with the seeded hash of that encoding.
type keyed struct {
	h     uint64
	block uint32
	off   uint32
	n     uint32
}

const blockSize = 4 << 20

var errTooLarge = errors.New("delta: a version is too large to diff (more than 2^32 blocks)")

func newSide(seed maphash.Seed, sizeHint int) *side {
	s := &side{keys: make([]keyed, 0, sizeHint)}
	s.h.SetSeed(seed)
	return s
}

func (s *side) add(q *rdf.Quad) {
	if q.S.IsBlank() || q.P.IsBlank() || q.O.IsBlank() || q.G.IsBlank() {
		s.blank = append(s.blank, *q)
		return
	}
	b := appendTerm(s.buf[:0], &q.S)
	b = appendTerm(b, &q.P)
	b = appendTerm(b, &q.O)
	b = appendTerm(b, &q.G)
	s.buf = b
	last := len(s.blocks) - 1
	if last < 0 || len(s.blocks[last])+len(b) > cap(s.blocks[last]) {
		if len(s.blocks) == 1<<32-1 {
			s.err = errTooLarge
			return
		}
		// A quad larger than a block (a huge literal) gets a block of its own.
		s.blocks = append(s.blocks, make([]byte, 0, max(blockSize, len(b))))
		last++
	}
	off := len(s.blocks[last])
	s.blocks[last] = append(s.blocks[last], b...)
	s.h.Reset()
	s.h.Write(b)
	s.keys = append(s.keys, keyed{h: s.h.Sum64(), block: uint32(last), off: uint32(off), n: uint32(len(b))})
}

// finish sorts the keys by hash, then by encoding, so equal quads are adjacent.
func (s *side) finish() {
	slices.SortFunc(s.keys, func(x, y keyed) int {
		if c := cmp.Compare(x.h, y.h); c != 0 || x == y {
			return c // pdqsort compares the pivot with itself: skip reading the bytes
		}
		return bytes.Compare(s.enc(x), s.enc(y))
	})
}

func (s *side) enc(k keyed) []byte { return s.blocks[k.block][k.off : k.off+k.n] }

// skipDup returns the index after keys[k] and its duplicates.
func (s *side) skipDup(k int) int {
	j := k + 1
	for j < len(s.keys) && s.keys[j].h == s.keys[k].h && bytes.Equal(s.enc(s.keys[k]), s.enc(s.keys[j])) {
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

// quad decodes the ground quad k locates.
func (s *side) quad(k keyed) rdf.Quad {
	b := s.enc(k)
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

package stream

import (
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// RawQuads reads an N-Triples or N-Quads decoder's statements through its RawReader and makes their strings in
// large shared blocks: the decoder's Next allocates a string per line (1 M small objects for a 1 M-triple upload,
// about half of the fan-out's CPU with the collector's work on them), while the statements of a batch here share
// a few blocks. It accepts, rejects and labels exactly what Next does: Next is built on the same RawReader.
type RawQuads struct {
	raw   *ntriples.RawReader
	rq    ntriples.RawQuad
	block []byte // the free end of the current block; its start is referenced by strings handed out
	names map[string]string
	last  rdf.Term // the previous subject, which the next statement usually repeats
}

// textBlock is the size of the blocks term strings are copied into. A block stays alive as long as one of its
// strings does; the encoders keep only a few (a run's terms, rdf:type objects as element names), so a small block
// bounds what a held string pins.
const textBlock = 64 << 10

// maxNames bounds the table of shared predicates, datatypes and language tags (a hostile document can have a new
// predicate on every line); names past it are copied like other terms.
const maxNames = 4096

func NewRawQuads(d *ntriples.Decoder) *RawQuads {
	return &RawQuads{raw: d.Raw(), names: make(map[string]string, 64)}
}

// read overwrites *q with the next statement.
func (r *RawQuads) Read(q *rdf.Quad) error {
	if err := r.raw.Next(&r.rq); err != nil {
		return err
	}
	rq := &r.rq
	if r.last.Kind == rq.S.Kind && r.last.Value == string(rq.S.Value) {
		q.S = r.last
	} else {
		q.S = r.term(&rq.S)
		r.last = q.S
	}
	q.P = rdf.Term{Kind: rdf.KindIRI, Value: r.name(rq.P.Value)}
	q.O = r.term(&rq.O)
	if rq.O.Kind == rdf.KindLiteral {
		q.O.Datatype = r.name(rq.O.Datatype)
		q.O.Lang = r.name(rq.O.Lang)
	}
	q.G = rdf.Term{}
	if rq.G.Kind != rdf.KindNone {
		q.G = r.term(&rq.G)
	}
	return nil
}

// term makes a term of a raw one's kind and value; the datatype and language of a literal are the caller's.
func (r *RawQuads) term(t *ntriples.RawTerm) rdf.Term {
	if t.Kind == rdf.KindBlank {
		// The raw value of a blank node is the label the decoder's allocator made, a string already (as Next
		// uses it); it stays out of the blocks, so a table of labels kept by an encoder pins no block.
		return rdf.Term{Kind: rdf.KindBlank, Value: unsafe.String(unsafe.SliceData(t.Value), len(t.Value))}
	}
	return rdf.Term{Kind: t.Kind, Value: r.str(t.Value)}
}

// str copies b into the current block and returns it as a string. Blocks are never written again where they
// were handed out, so the string stays immutable.
func (r *RawQuads) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(r.block)-len(r.block) {
		r.block = make([]byte, 0, max(textBlock, len(b)))
	}
	start := len(r.block)
	r.block = append(r.block, b...)
	return unsafe.String(&r.block[start], len(b))
}

// name returns a predicate, datatype or language tag as a string shared by every statement that has it.
func (r *RawQuads) name(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := r.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.names) < maxNames {
		r.names[s] = s
	}
	return s
}

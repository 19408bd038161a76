package stream

import (
	"bufio"
	"fmt"
	"io"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
)

// NTriples writes N-Triples or N-Quads as ntriples.Encoder does, byte for byte, for statements read from an
// N-Triples or N-Quads upload: the decoder accepted them, so they need none of the encoder's checks, and the
// subject and predicate, repeated on nearly every line, are escaped once and then copied from a cache.
type NTriples struct {
	w     *bufio.Writer
	terms termCache // subjects and predicates
	err   error
}

func NewNTriples(w io.Writer) *NTriples {
	return &NTriples{w: bufio.NewWriterSize(w, 1<<16)}
}

func (e *NTriples) Encode(q rdf.Quad) error {
	if e.err != nil {
		return e.err
	}
	b := e.terms.append(e.w.AvailableBuffer(), q.S)
	b = append(b, ' ')
	b = e.terms.append(b, q.P)
	b = append(b, ' ')
	b = rdf.AppendTerm(b, q.O)
	if !q.G.IsZero() {
		b = append(b, ' ')
		b = rdf.AppendTerm(b, q.G)
	}
	b = append(b, " .\n"...)
	if _, err := e.w.Write(b); err != nil {
		e.err = fmt.Errorf("n-triples: write: %w", err)
	}
	return e.err
}

func (e *NTriples) Close() error {
	if e.err != nil {
		return e.err
	}
	if err := e.w.Flush(); err != nil {
		e.err = fmt.Errorf("n-triples: write: %w", err)
	}
	return e.err
}

// termCache holds the N-Triples form of recently written terms in slots chosen by the address of the term's
// string: decoders share the strings of a repeated subject or predicate between statements, so a hit costs a
// pointer comparison and a copy instead of a scan for characters to escape.
type termCache struct {
	slots [64]cachedTerm
}

type cachedTerm struct {
	t   rdf.Term
	enc []byte // nil while the slot is empty
}

// append appends t in N-Triples form to b.
func (c *termCache) append(b []byte, t rdf.Term) []byte {
	if t.Value == "" {
		return rdf.AppendTerm(b, t)
	}
	slot := &c.slots[uintptr(unsafe.Pointer(unsafe.StringData(t.Value)))>>4%uintptr(len(c.slots))]
	if slot.enc != nil && slot.t == t {
		return append(b, slot.enc...)
	}
	start := len(b)
	b = rdf.AppendTerm(b, t)
	slot.t, slot.enc = t, append(slot.enc[:0], b[start:]...)
	return b
}

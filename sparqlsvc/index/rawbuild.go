package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// rawSource is a decoder that can hand out term bytes without making strings (the N-Triples and N-Quads
// decoders). BuildFrom takes this path whenever it can.
type rawSource interface {
	Raw() *ntriples.RawReader
}

// rawBatch carries a run of statements from the reading goroutine to the builder: every term's dictionary key,
// already laid out, in one reused byte buffer, so a statement costs no allocation on either side.
type rawBatch struct {
	data  []byte
	terms []rawRef // four per statement: s, p, o, graph
}

// rawRef locates one term's key in rawBatch.data.
type rawRef struct {
	h      uint64 // hash of the key; for literals computed by the builder once the datatype id is in the key
	off, n uint32 // n == 0: no term (the default graph), or for a subject the previous statement's subject
	dtOff  uint32 // literals: datatype key ('I' + IRI) at data[dtOff:dtOff+dtN]
	dtN    uint32
}

const rawBatchStatements = 4096

// buildRaw is BuildFrom for a raw source. Reading and key layout (the parse, plus hashing IRI and blank-node keys)
// run on one goroutine and interning on another, so both cores work; batches are recycled through a free list.
func buildRaw(ctx context.Context, rr *ntriples.RawReader) (*Dataset, error) {
	batches := make(chan *rawBatch, 3)
	free := make(chan *rawBatch, 5)
	for range 5 {
		free <- &rawBatch{data: make([]byte, 0, 1<<20), terms: make([]rawRef, 0, 4*rawBatchStatements)}
	}
	errc := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(batches)
		var q ntriples.RawQuad
		var prevS []byte
		var prevSKind rdf.Kind
		for {
			var batch *rawBatch
			select {
			case batch = <-free:
			case <-done:
				return
			}
			batch.data, batch.terms = batch.data[:0], batch.terms[:0]
			for len(batch.terms) < 4*rawBatchStatements && len(batch.data) < 1<<20 {
				if err := rr.Next(&q); err != nil {
					if !errors.Is(err, io.EOF) {
						errc <- err
					}
					if len(batch.terms) > 0 {
						select {
						case batches <- batch:
						case <-done:
						}
					}
					return
				}
				if q.S.Kind == prevSKind && bytes.Equal(q.S.Value, prevS) {
					batch.terms = append(batch.terms, rawRef{})
				} else {
					prevS, prevSKind = append(prevS[:0], q.S.Value...), q.S.Kind
					if err := batch.add(&q.S); err != nil {
						errc <- err
						return
					}
				}
				for _, t := range [...]*ntriples.RawTerm{&q.P, &q.O, &q.G} {
					if err := batch.add(t); err != nil {
						errc <- err
						return
					}
				}
			}
			select {
			case batches <- batch:
			case <-done:
				return
			}
		}
	}()
	b := NewBuilder()
	var s ID
	for batch := range batches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := 0; i < len(batch.terms); i += 4 {
			refs := batch.terms[i : i+4 : i+4]
			var err error
			if refs[0].n != 0 {
				if s, err = b.internRef(batch.data, &refs[0]); err != nil {
					return nil, err
				}
			}
			p, err := b.internRef(batch.data, &refs[1])
			if err != nil {
				return nil, err
			}
			o, err := b.internRef(batch.data, &refs[2])
			if err != nil {
				return nil, err
			}
			var g ID
			if refs[3].n != 0 {
				if g, err = b.internRef(batch.data, &refs[3]); err != nil {
					return nil, err
				}
			}
			b.addRow(g, Row{s, p, o})
		}
		free <- batch
	}
	select {
	case err := <-errc:
		return nil, err
	default:
	}
	return b.Build(), nil
}

// add lays out t's key; a term of kind none (the default graph) is recorded as absent.
func (rb *rawBatch) add(t *ntriples.RawTerm) error {
	off := len(rb.data)
	var ref rawRef
	switch t.Kind {
	case rdf.KindNone:
		rb.terms = append(rb.terms, rawRef{})
		return nil
	case rdf.KindIRI:
		rb.data = append(append(rb.data, keyIRI), t.Value...)
		ref.h = hashKey(rb.data[off:])
	case rdf.KindBlank:
		rb.data = append(append(rb.data, keyBlank), t.Value...)
		ref.h = hashKey(rb.data[off:])
	case rdf.KindLiteral:
		var err error
		if rb.data, err = appendRawLiteralKey(rb.data, t.Lang, t.Value); err != nil {
			return err
		}
		if len(t.Datatype) > 0 {
			ref.dtOff = uint32(len(rb.data))
			rb.data = append(append(rb.data, keyIRI), t.Datatype...)
			ref.dtN = uint32(len(rb.data)) - ref.dtOff
		}
	default:
		return fmt.Errorf("index: term of unknown kind %d", t.Kind)
	}
	ref.off = uint32(off)
	if ref.dtN > 0 {
		ref.n = ref.dtOff - ref.off
	} else {
		ref.n = uint32(len(rb.data) - off)
	}
	rb.terms = append(rb.terms, ref)
	return nil
}

// internRef interns the key ref points at in data, first writing a literal's datatype id into its key.
func (b *Builder) internRef(data []byte, ref *rawRef) (ID, error) {
	k := data[ref.off : ref.off+ref.n]
	h := ref.h
	date := 0
	if k[0] == keyLiteral {
		if ref.dtN > 0 && k[5] == 0 { // typed, no language tag
			dt := data[ref.dtOff+1 : ref.dtOff+ref.dtN]
			if id, ok := inlineID(dt, k[6:]); ok {
				return id, nil
			}
			if isDateType(dt) {
				date = 1
				if string(dt) == XSDDate {
					date = 2
				}
			}
		}
		var dt ID
		if ref.dtN > 0 {
			var err error
			if dt, err = b.internDatatype(data[ref.dtOff : ref.dtOff+ref.dtN]); err != nil {
				return 0, err
			}
		}
		setLiteralDatatype(k, dt)
		h = hashKey(k)
	}
	return b.internKey(k, h, date)
}

package pipeline

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/pipeline/stream"
)

// batch is a slice of statements handed to every reader; readers only read it.
type batch struct {
	quads []rdf.Quad
	err   error
	// refs counts the readers not yet done with quads; the last one hands the slice back to the decoding
	// goroutine, which fills it again.
	refs *atomic.Int32
}

const batchSize = 4096

// fanOut decodes once and gives n readers every statement, each through a Decoder of its own. A reader that falls
// behind holds the others back by at most depth batches, so memory stays bounded. When ctx ends (a reader failed)
// the decoding stops and the remaining readers see io.ErrUnexpectedEOF rather than a clean end.
//
// The depth lets a fast reader run well ahead of the slowest: the SPARQL index (cheaper per statement than a dump
// with its gzip) then sorts and saves while the dumps still compress their last megabytes, instead of alone on
// one core after them (0.4-1.0 s of the render on the loaded machine with 4 batches). It costs at most depth+2
// batches of statements and their strings, about 50 MB at 32.
//
// Batch slices are recycled once every reader has moved past them: a statement is 224 bytes, and allocating and
// zeroing a fresh slice per batch meant 224 MB for a 1 M-triple upload, plus the garbage collector's work on it.
func fanOut(ctx context.Context, dec rdf.Decoder, n int) []rdf.Decoder {
	const depth = 32 // batches queued per reader
	chans := make([]chan batch, n)
	readers := make([]rdf.Decoder, n)
	// Every batch is either queued to some reader, held by one, or free: depth+2 per reader is more than can be
	// out at once, so handing a slice back never blocks.
	free := make(chan []rdf.Quad, n*(depth+2)+1)
	for i := range chans {
		chans[i] = make(chan batch, depth)
		readers[i] = &chanDecoder{ctx: ctx, ch: chans[i], free: free}
	}
	send := func(b batch) bool {
		if b.refs != nil {
			b.refs.Store(int32(n))
		}
		for _, c := range chans {
			select {
			case c <- b:
			case <-ctx.Done():
				return false
			}
		}
		return true
	}
	next := func() []rdf.Quad {
		select {
		case s := <-free:
			return s[:0]
		default:
			return make([]rdf.Quad, 0, batchSize)
		}
	}
	// read overwrites the statement in place: a batch slot is 224 bytes, worth not copying twice.
	read := func(q *rdf.Quad) (err error) {
		*q, err = dec.Next()
		return err
	}
	if nd, ok := dec.(*ntriples.Decoder); ok {
		read = stream.NewRawQuads(nd).Read
	}
	go func() {
		defer func() {
			for _, c := range chans {
				close(c)
			}
		}()
		buf := next()
		for {
			buf = buf[:len(buf)+1]
			err := read(&buf[len(buf)-1])
			if err != nil {
				buf = buf[:len(buf)-1]
			}
			if err == io.EOF {
				if len(buf) > 0 {
					send(batch{quads: buf})
				}
				return
			}
			if err != nil {
				send(batch{quads: buf, err: err})
				return
			}
			if len(buf) == batchSize {
				if !send(batch{quads: buf, refs: new(atomic.Int32)}) {
					return
				}
				buf = next()
			}
		}
	}()
	return readers
}

// chanDecoder reads the statements of a fanOut.
type chanDecoder struct {
	ctx  context.Context
	ch   <-chan batch
	free chan<- []rdf.Quad
	held batch // the batch cur is a part of
	cur  []rdf.Quad
	err  error
}

// release is done with the held batch; the last of its readers hands its slice back.
func (d *chanDecoder) release() {
	if d.held.refs != nil && d.held.refs.Add(-1) == 0 {
		select {
		case d.free <- d.held.quads:
		default:
		}
	}
	d.held = batch{}
}

// fill makes cur non-empty, or returns why it cannot be.
func (d *chanDecoder) fill() error {
	for len(d.cur) == 0 {
		if d.err != nil {
			return d.err
		}
		d.release()
		b, ok := <-d.ch
		if !ok {
			// The decoding stops early only when ctx ends; what was read is then not the whole document.
			if d.ctx.Err() != nil {
				return io.ErrUnexpectedEOF
			}
			return io.EOF
		}
		d.held, d.cur, d.err = b, b.quads, b.err
	}
	return nil
}

func (d *chanDecoder) Next() (rdf.Quad, error) {
	if err := d.fill(); err != nil {
		return rdf.Quad{}, err
	}
	q := d.cur[0]
	d.cur = d.cur[1:]
	return q, nil
}

// NextBatch hands over the rest of the held batch itself (codec.BatchDecoder, and the index builder reads it the
// same way), so the encoders and the index read the fan-out's slices instead of batching and copying every
// statement again. The slice is released to the decoding goroutine only at the next call.
func (d *chanDecoder) NextBatch() ([]rdf.Quad, error) {
	if err := d.fill(); err != nil {
		return nil, err
	}
	qs := d.cur
	d.cur = nil
	return qs, nil
}

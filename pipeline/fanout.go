package pipeline

import (
	"context"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
)

// batch is a slice of statements handed to every reader; readers only read it.
type batch struct {
	quads []rdf.Quad
	err   error
}

const batchSize = 4096

// fanOut decodes once and gives n readers every statement, each through a Decoder of its own. A reader that falls
// behind holds the others back by at most a few batches, so memory stays bounded. When ctx ends (a reader failed)
// the decoding stops and the remaining readers see io.ErrUnexpectedEOF rather than a clean end.
func fanOut(ctx context.Context, dec rdf.Decoder, n int) []rdf.Decoder {
	chans := make([]chan batch, n)
	readers := make([]rdf.Decoder, n)
	for i := range chans {
		chans[i] = make(chan batch, 4)
		readers[i] = &chanDecoder{ctx: ctx, ch: chans[i]}
	}
	send := func(b batch) bool {
		for _, c := range chans {
			select {
			case c <- b:
			case <-ctx.Done():
				return false
			}
		}
		return true
	}
	go func() {
		defer func() {
			for _, c := range chans {
				close(c)
			}
		}()
		buf := make([]rdf.Quad, 0, batchSize)
		for {
			q, err := dec.Next()
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
			buf = append(buf, q)
			if len(buf) == batchSize {
				if !send(batch{quads: buf}) {
					return
				}
				buf = make([]rdf.Quad, 0, batchSize)
			}
		}
	}()
	return readers
}

// chanDecoder reads the statements of a fanOut.
type chanDecoder struct {
	ctx context.Context
	ch  <-chan batch
	cur []rdf.Quad
	err error
}

func (d *chanDecoder) Next() (rdf.Quad, error) {
	for len(d.cur) == 0 {
		if d.err != nil {
			return rdf.Quad{}, d.err
		}
		b, ok := <-d.ch
		if !ok {
			// The decoding stops early only when ctx ends; what was read is then not the whole document.
			if d.ctx.Err() != nil {
				return rdf.Quad{}, io.ErrUnexpectedEOF
			}
			return rdf.Quad{}, io.EOF
		}
		d.cur, d.err = b.quads, b.err
	}
	q := d.cur[0]
	d.cur = d.cur[1:]
	return q, nil
}

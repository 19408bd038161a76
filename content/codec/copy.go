package codec

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
)

const (
	copyBatch    = 1024 // statements handed over at once: large enough that channel costs vanish
	copyInFlight = 4    // batches decoded ahead; bounds memory whatever the input size
)

type batch struct {
	quads []rdf.Quad
	err   error // io.EOF or the decoder's error, after quads
}

// BatchDecoder is a Decoder whose statements already arrive in batches (the pipeline's fan-out of one parse to
// several encoders). Copy reads such a decoder a batch at a time on the caller's goroutine: batching the
// statements a second time on a goroutine of its own and copying each one again cost a 1 M-statement upload
// 0.4 s of CPU per dump.
type BatchDecoder interface {
	rdf.Decoder
	// NextBatch returns the next statements, which stay valid (and must not be modified) until the next call of
	// NextBatch or Next; it returns no statements and io.EOF after the last one, or no statements and the error
	// that ended the stream.
	NextBatch() ([]rdf.Quad, error)
}

// Copy reads every statement from dec and writes it to enc, returning how many were copied. Decoding runs on its
// own goroutine, a few batches ahead of encoding, so the two overlap on a multi-core machine while memory stays
// bounded; a BatchDecoder, which decodes elsewhere, is read directly instead. Copy does not Close enc. It stops at the first decode or encode error, or when ctx is done; either way
// it returns only once the decoding goroutine has stopped, so the caller may use dec afterwards (Prefixes, say).
// A decoder blocked in a read of a silent stream therefore delays the return until that read ends.
func Copy(ctx context.Context, enc rdf.Encoder, dec rdf.Decoder) (int64, error) {
	if bd, ok := dec.(BatchDecoder); ok {
		return copyBatches(ctx, enc, bd)
	}
	full := make(chan batch, copyInFlight)
	free := make(chan []rdf.Quad, copyInFlight+1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var qs []rdf.Quad
			select {
			case qs = <-free:
				qs = qs[:0]
			default:
				qs = make([]rdf.Quad, 0, copyBatch)
			}
			var err error
			for len(qs) < copyBatch {
				var q rdf.Quad
				if q, err = dec.Next(); err != nil {
					break
				}
				qs = append(qs, q)
			}
			if err == nil && ctx.Err() != nil {
				err = ctx.Err()
			}
			select {
			case full <- batch{quads: qs, err: err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// Whatever happens, the decoding goroutine ends before Copy returns.
	defer func() {
		close(stop)
		<-done
	}()

	var n int64
	for b := range full {
		for _, q := range b.quads {
			if err := enc.Encode(q); err != nil {
				return n, fmt.Errorf("encoding statement %d: %w", n+1, err)
			}
			n++
		}
		select {
		case free <- b.quads:
		default:
		}
		if b.err != nil {
			if errors.Is(b.err, io.EOF) {
				return n, nil
			}
			return n, b.err
		}
	}
	return n, nil
}

// copyBatches is Copy for a BatchDecoder, with the same errors.
func copyBatches(ctx context.Context, enc rdf.Encoder, dec BatchDecoder) (int64, error) {
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		qs, err := dec.NextBatch()
		for i := range qs {
			if err := enc.Encode(qs[i]); err != nil {
				return n, fmt.Errorf("encoding statement %d: %w", n+1, err)
			}
			n++
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
	}
}

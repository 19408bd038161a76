package index

import (
	"context"
	"errors"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
)

const batchSize = 4096

// batchSource is a decoder whose statements already arrive in batches (codec.BatchDecoder; the pipeline's fan-out
// of one parse to the encoders and the index). Its slices stay valid until the next call and are not ours to
// change.
type batchSource interface {
	NextBatch() ([]rdf.Quad, error)
}

// BuildFrom reads every quad of dec and builds the dataset. Decoding runs on its own goroutine and hands over
// batches, so parsing and dictionary encoding use both cores; nothing but the dictionary and the rows is kept.
// A decoder that offers raw term bytes (N-Triples, N-Quads) is read without a string per term.
func BuildFrom(ctx context.Context, dec rdf.Decoder) (*Dataset, error) {
	if rs, ok := dec.(rawSource); ok {
		return buildRaw(ctx, rs.Raw())
	}
	if bs, ok := dec.(batchSource); ok {
		return buildBatches(ctx, bs)
	}
	batches := make(chan []rdf.Quad, 4)
	free := make(chan []rdf.Quad, 6)
	for range 6 {
		free <- make([]rdf.Quad, 0, batchSize)
	}
	errc := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(batches)
		for {
			var batch []rdf.Quad
			select {
			case batch = <-free:
			case <-done:
				return
			}
			batch = batch[:0]
			for len(batch) < batchSize {
				q, err := dec.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						errc <- err
					}
					if len(batch) > 0 {
						batches <- batch
					}
					return
				}
				batch = append(batch, q)
			}
			select {
			case batches <- batch:
			case <-done:
				return
			}
		}
	}()
	b := NewBuilder()
	for batch := range batches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, q := range batch {
			if err := b.Add(q); err != nil {
				return nil, err
			}
		}
		clear(batch) // drop string references so the GC can free what the decoder allocated
		free <- batch
	}
	select {
	case err := <-errc:
		return nil, err
	default:
	}
	return b.Build(), nil
}

// buildBatches is BuildFrom for a batchSource: its statements were decoded elsewhere, so batching them again on a
// goroutine of our own would only copy each one once more.
func buildBatches(ctx context.Context, dec batchSource) (*Dataset, error) {
	b := NewBuilder()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		qs, err := dec.NextBatch()
		for i := range qs {
			if err := b.Add(qs[i]); err != nil {
				return nil, err
			}
		}
		if errors.Is(err, io.EOF) {
			return b.Build(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

package delta

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
)

// ComputeDecoders reads both versions, concurrently since parsing dominates the cost of a delta, and computes
// their delta as Compute does.
func ComputeDecoders(ctx context.Context, a, b rdf.Decoder, opts Options) (added, removed []rdf.Quad, err error) {
	type read struct {
		side *side
		err  error
	}
	seed := maphash.MakeSeed()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan read, 1)
	go func() {
		s, err := readAll(ctx, seed, b)
		if err != nil {
			cancel() // the other reader stops early too
		}
		done <- read{s, err}
	}()
	sa, errA := readAll(ctx, seed, a)
	if errA != nil {
		cancel()
	}
	rb := <-done
	switch {
	case errA != nil && !errors.Is(errA, context.Canceled):
		return nil, nil, fmt.Errorf("delta: reading the old version: %w", errA)
	case rb.err != nil && !errors.Is(rb.err, context.Canceled):
		return nil, nil, fmt.Errorf("delta: reading the new version: %w", rb.err)
	case errA != nil:
		return nil, nil, fmt.Errorf("delta: reading the old version: %w", errA)
	case rb.err != nil:
		return nil, nil, fmt.Errorf("delta: reading the new version: %w", rb.err)
	}
	return compute(ctx, sa, rb.side, opts)
}

// readAll drains dec into a prepared side (encoded and sorted in this goroutine, so both versions are prepared in
// parallel), checking ctx every few thousand quads so a cancelled request stops a large read.
func readAll(ctx context.Context, seed maphash.Seed, dec rdf.Decoder) (*side, error) {
	s := newSide(seed, 0)
	for i := 0; ; i++ {
		if i&0x3fff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		q, err := dec.Next()
		if err == io.EOF {
			s.finish()
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		s.add(&q)
	}
}

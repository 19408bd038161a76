package delta

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
)

// ComputeDecoders reads both versions, concurrently since parsing dominates the cost of a delta, and computes
// their delta as Compute does.
func ComputeDecoders(ctx context.Context, a, b rdf.Decoder, opts Options) (added, removed []rdf.Quad, err error) {
	type read struct {
		quads quadList
		err   error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan read, 1)
	go func() {
		qs, err := readAll(ctx, b)
		if err != nil {
			cancel() // the other reader stops early too
		}
		done <- read{qs, err}
	}()
	qa, errA := readAll(ctx, a)
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
	return compute(ctx, qa, rb.quads, opts)
}

// readAll drains dec, checking ctx every few thousand quads so a cancelled request stops a large read.
func readAll(ctx context.Context, dec rdf.Decoder) (quadList, error) {
	var qs quadList
	for i := 0; ; i++ {
		if i&0x3fff == 0 {
			if err := ctx.Err(); err != nil {
				return quadList{}, err
			}
		}
		q, err := dec.Next()
		if err == io.EOF {
			return qs, nil
		}
		if err != nil {
			return quadList{}, err
		}
		qs.add(q)
	}
}

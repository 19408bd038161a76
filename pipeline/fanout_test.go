package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
)

// sliceDecoder yields quads, then err (io.EOF for a clean end).
type sliceDecoder struct {
	quads []rdf.Quad
	err   error
}

func (d *sliceDecoder) Next() (rdf.Quad, error) {
	if len(d.quads) == 0 {
		return rdf.Quad{}, d.err
	}
	q := d.quads[0]
	d.quads = d.quads[1:]
	return q, nil
}

func TestFanOut(t *testing.T) {
	bad := errors.New("line 9: bad")
	for _, tc := range []struct {
		quads int
		err   error
	}{{0, io.EOF}, {1, io.EOF}, {batchSize, io.EOF}, {3*batchSize + 7, io.EOF}, {batchSize + 1, bad}} {
		t.Run(fmt.Sprintf("%d-%v", tc.quads, tc.err), func(t *testing.T) {
			qs := make([]rdf.Quad, tc.quads)
			for i := range qs {
				qs[i] = rdf.Triple(rdf.IRI(fmt.Sprint("http://x/", i)), rdf.IRI("http://x/p"), rdf.String("o"))
			}
			readers := fanOut(context.Background(), &sliceDecoder{quads: qs, err: tc.err}, 3)
			type res struct {
				n   int
				err error
			}
			out := make(chan res, len(readers))
			for _, r := range readers {
				go func() { n, err := conformance.Drain(r); out <- res{n, err} }()
			}
			for range readers {
				r := <-out
				if r.n != tc.quads {
					t.Errorf("a reader saw %d statements, want %d", r.n, tc.quads)
				}
				if tc.err != io.EOF && !errors.Is(r.err, tc.err) || tc.err == io.EOF && r.err != nil {
					t.Errorf("reader error %v, want %v", r.err, tc.err)
				}
			}
		})
	}
}

func TestFanOutStopsWhenCancelled(t *testing.T) {
	qs := make([]rdf.Quad, 10*batchSize)
	ctx, cancel := context.WithCancel(context.Background())
	readers := fanOut(ctx, &sliceDecoder{quads: qs, err: io.EOF}, 2)
	cancel() // reader 0 never reads; the decoding goroutine must still end
	if _, err := conformance.Drain(readers[1]); err == nil {
		t.Error("a reader saw a clean end of a cancelled fan-out")
	}
}

// Batches are recycled once every reader is past them: a fast reader must never see a statement of a later batch
// written over one a slow reader still holds.
func TestFanOutRecycledBatchesKeepEveryStatement(t *testing.T) {
	qs := make([]rdf.Quad, 40*batchSize+3)
	for i := range qs {
		qs[i] = rdf.Triple(rdf.IRI(fmt.Sprint("http://x/", i)), rdf.IRI("http://x/p"), rdf.String(fmt.Sprint(i)))
	}
	readers := fanOut(context.Background(), &sliceDecoder{quads: qs, err: io.EOF}, 4)
	errs := make(chan error, len(readers))
	for k, r := range readers {
		go func() {
			for i := 0; ; i++ {
				q, err := r.Next()
				if err == io.EOF {
					if i != len(qs) {
						errs <- fmt.Errorf("reader %d: %d statements, want %d", k, i, len(qs))
						return
					}
					errs <- nil
					return
				}
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", k, err)
					return
				}
				if q != qs[i] {
					errs <- fmt.Errorf("reader %d: statement %d is %v, want %v", k, i, q, qs[i])
					return
				}
				if i%(batchSize/2) == k { // readers at different paces: one batch held while others move on
					time.Sleep(time.Duration(k) * time.Millisecond)
				}
			}
		}()
	}
	for range readers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

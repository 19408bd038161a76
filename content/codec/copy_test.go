package codec_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

func ntDoc(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<http://ex/s%d> <http://ex/p> \"%d\" .\n", i, i)
	}
	return b.String()
}

// failingEncoder fails on the statement numbered failAt (from 1).
type failingEncoder struct {
	n, failAt int
}

func (e *failingEncoder) Encode(rdf.Quad) error {
	e.n++
	if e.n == e.failAt {
		return errors.New("disk full")
	}
	return nil
}
func (e *failingEncoder) Close() error { return nil }

func TestCopy(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		failAt  int
		wantN   int64
		wantErr string
	}{
		{"empty", "", 0, 0, ""},
		{"less than a batch", ntDoc(10), 0, 10, ""},
		{"several batches", ntDoc(5000), 0, 5000, ""},
		{"syntax error mid-stream", ntDoc(3000) + "oops\n" + ntDoc(5), 0, 3000, "line 3001"},
		{"encoder error", ntDoc(5000), 2500, 2499, "disk full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := ntriples.NewDecoder(strings.NewReader(tt.in), rdf.DecodeOptions{})
			var enc rdf.Encoder
			var out strings.Builder
			if tt.failAt > 0 {
				enc = &failingEncoder{failAt: tt.failAt}
			} else {
				enc = ntriples.NewEncoder(&out, rdf.EncodeOptions{})
			}
			n, err := codec.Copy(context.Background(), enc, dec)
			if n != tt.wantN {
				t.Errorf("copied %d, want %d", n, tt.wantN)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if err := enc.Close(); err != nil {
					t.Fatal(err)
				}
				if out.String() != tt.in {
					t.Errorf("output differs from canonical input")
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCopyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dec := ntriples.NewDecoder(strings.NewReader(ntDoc(10000)), rdf.DecodeOptions{})
	n, err := codec.Copy(ctx, ntriples.NewEncoder(io.Discard, rdf.EncodeOptions{}), dec)
	if !errors.Is(err, context.Canceled) || n >= 10000 {
		t.Errorf("copied %d with err %v, want an early context.Canceled", n, err)
	}
}

// sliceBatches hands out quads in batches of size, then err (io.EOF for a clean end); it counts calls of Next,
// which Copy must not make on a BatchDecoder.
type sliceBatches struct {
	quads []rdf.Quad
	size  int
	err   error
	nexts int
}

func (d *sliceBatches) Next() (rdf.Quad, error) {
	d.nexts++
	if len(d.quads) == 0 {
		return rdf.Quad{}, d.err
	}
	q := d.quads[0]
	d.quads = d.quads[1:]
	return q, nil
}

func (d *sliceBatches) NextBatch() ([]rdf.Quad, error) {
	if len(d.quads) == 0 {
		return nil, d.err
	}
	n := min(d.size, len(d.quads))
	qs := d.quads[:n]
	d.quads = d.quads[n:]
	return qs, nil
}

func quadsOf(t *testing.T, doc string) []rdf.Quad {
	t.Helper()
	dec := ntriples.NewDecoder(strings.NewReader(doc), rdf.DecodeOptions{})
	var qs []rdf.Quad
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return qs
		}
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
}

func TestCopyBatchDecoder(t *testing.T) {
	bad := errors.New("line 3001: bad statement")
	tests := []struct {
		name    string
		in      string
		size    int
		end     error
		failAt  int
		wantN   int64
		wantErr string
	}{
		{"empty", "", 7, io.EOF, 0, 0, ""},
		{"one partial batch", ntDoc(10), 64, io.EOF, 0, 10, ""},
		{"several batches", ntDoc(5000), 1000, io.EOF, 0, 5000, ""},
		{"batches of one", ntDoc(50), 1, io.EOF, 0, 50, ""},
		{"decoder error after the statements", ntDoc(3000), 512, bad, 0, 3000, "line 3001"},
		{"encoder error", ntDoc(5000), 1000, io.EOF, 2500, 2499, "disk full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := &sliceBatches{quads: quadsOf(t, tt.in), size: tt.size, err: tt.end}
			var enc rdf.Encoder
			var out strings.Builder
			if tt.failAt > 0 {
				enc = &failingEncoder{failAt: tt.failAt}
			} else {
				enc = ntriples.NewEncoder(&out, rdf.EncodeOptions{})
			}
			n, err := codec.Copy(context.Background(), enc, dec)
			if dec.nexts != 0 {
				t.Errorf("Copy called Next %d times on a BatchDecoder", dec.nexts)
			}
			if n != tt.wantN {
				t.Errorf("copied %d, want %d", n, tt.wantN)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if err := enc.Close(); err != nil {
					t.Fatal(err)
				}
				if out.String() != tt.in {
					t.Errorf("output differs from canonical input")
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCopyBatchDecoderCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dec := &sliceBatches{quads: quadsOf(t, ntDoc(100)), size: 10, err: io.EOF}
	n, err := codec.Copy(ctx, ntriples.NewEncoder(io.Discard, rdf.EncodeOptions{}), dec)
	if !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("copied %d with err %v, want nothing and context.Canceled", n, err)
	}
}

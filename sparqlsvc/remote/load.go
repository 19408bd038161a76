package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
)

// LoadOptions tune LoadGraph.
type LoadOptions struct {
	// ChunkBytes is the most N-Triples one request carries; 0 is 4 MiB. Virtuoso's Graph Store handler commits a
	// request as one transaction, and a transaction of millions of rows is many times slower per triple than a
	// few of tens of thousands (docs/performance.md has the figures).
	ChunkBytes int
	// Parallel is how many requests are in flight at once; 0 is 2.
	Parallel int
}

// LoadGraph replaces the store graph named graph with the N-Triples file at path, through the Graph Store HTTP
// Protocol only: a PUT of the first chunk replaces the graph, and POSTs add the rest, Parallel at a time.
//
// A blank-node label is scoped to one request (one RDF document), so every line that holds one ("_:" anywhere,
// which errs on the safe side for a literal that spells it) goes in one last request of its own: the graph keeps
// each blank node once, as a single PUT of the whole file would. That last request is not split, so a file made
// mostly of blank nodes loads at the speed of one large request.
//
// The graph is complete only when LoadGraph returns nil. A failure or a crash in between leaves part of it, which
// the caller records (pipeline/storeload marks the graph "loading" first, and loads it again).
func (s *Store) LoadGraph(ctx context.Context, graph, path string, o LoadOptions) error {
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = 4 << 20
	}
	if o.Parallel <= 0 {
		o.Parallel = 2
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		sem      = make(chan struct{}, o.Parallel)
		sent     bool // the first request (the PUT) has been answered
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	send := func(chunk []byte) error {
		body := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(chunk)), nil }
		if !sent {
			// The PUT goes alone and first: a POST answered before it would be replaced by it.
			sent = true
			return s.graphRequest(ctx, http.MethodPut, graph, body, int64(len(chunk)))
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := s.graphRequest(ctx, http.MethodPost, graph, body, int64(len(chunk))); err != nil {
				fail(err)
			}
		}()
		return nil
	}

	r := bufio.NewReaderSize(f, 1<<16)
	var chunk []byte
	var blankBytes int64
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer (a long literal): read the rest of it.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			if bytes.Contains(line, []byte("_:")) {
				blankBytes += int64(len(line))
				if line[len(line)-1] != '\n' {
					blankBytes++
				}
			} else {
				chunk = append(chunk, line...)
				if line[len(line)-1] != '\n' {
					chunk = append(chunk, '\n')
				}
				if len(chunk) >= o.ChunkBytes {
					if err := send(chunk); err != nil {
						fail(err)
						break
					}
					chunk = make([]byte, 0, o.ChunkBytes+o.ChunkBytes/8)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(err)
			break
		}
	}
	if ctx.Err() == nil && (len(chunk) > 0 || (!sent && blankBytes == 0)) {
		if err := send(chunk); err != nil {
			fail(err)
		}
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err // the caller's context ended
	}
	if blankBytes == 0 {
		return nil
	}
	method := http.MethodPost
	if !sent {
		method = http.MethodPut
	}
	return s.graphRequest(ctx, method, graph, func() (io.ReadCloser, error) {
		g, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return &blankLines{f: g, r: bufio.NewReaderSize(g, 1<<16)}, nil
	}, blankBytes)
}

// blankLines reads the lines of an N-Triples file that hold a blank node, each ending in a newline.
type blankLines struct {
	f       *os.File
	r       *bufio.Reader
	pending []byte
	err     error
}

func (b *blankLines) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		line, err := b.r.ReadBytes('\n')
		if err != nil {
			b.err = err
		}
		if len(line) > 0 && bytes.Contains(line, []byte("_:")) {
			if line[len(line)-1] != '\n' {
				line = append(line, '\n')
			}
			b.pending = line
		}
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

func (b *blankLines) Close() error { return b.f.Close() }

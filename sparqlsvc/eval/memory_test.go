package eval_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// blockingSink lets a query run until it has delivered after rows, then holds it (and what it holds) until
// release is closed.
type blockingSink struct {
	after   int
	n       int
	reached chan struct{}
	release chan struct{}
}

func (s *blockingSink) Begin([]string) error { return nil }
func (s *blockingSink) Row([]rdf.Term) error {
	if s.n++; s.n == s.after {
		close(s.reached)
		<-s.release
	}
	return nil
}
func (s *blockingSink) Boolean(bool) error    { return nil }
func (s *blockingSink) Triple(rdf.Quad) error { return nil }

// TestSharedMemoryBudget: what each query holds is charged on the server's budget too (Options.Memory), so the
// queries running at once hold at most that between them. A DISTINCT of 10 000 computed values (3 MiB) fits a
// 4 MiB shared budget alone; while another query holds most of it, it stops with ErrServerMemory (an ErrTooLarge
// too), and once that query ended it answers. Every charge is given back as a query ends.
func TestSharedMemoryBudget(t *testing.T) {
	const n = 10000
	var qs []rdf.Quad
	for i := range n {
		qs = append(qs, rdf.Triple(rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i)), rdf.IRI("http://ex.org/v"), rdf.Literal(fmt.Sprint(i), rdf.XSDInteger)))
	}
	ds := eval.FromIndex(build(t, qs))
	q, err := parser.Parse(`SELECT DISTINCT ?x { ?s <http://ex.org/v> ?v BIND(CONCAT("value number ", STR(?v)) AS ?x) }`, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shared := eval.NewMemory(4 << 20) // the query alone charges 3 MiB
	opt := eval.Options{MaxMemory: 64 << 20, Memory: shared}
	r, err := eval.Run(context.Background(), ds, q, opt)
	if err != nil || len(r.Rows) != n {
		t.Fatalf("alone under the shared budget: %v", err)
	}
	if u := shared.Used(); u != 0 {
		t.Errorf("%d bytes still charged after the query ended", u)
	}

	// The first query holds the values of all but a few rows when its sink stops it.
	sink := &blockingSink{after: n - 10, reached: make(chan struct{}), release: make(chan struct{})}
	first := make(chan error, 1)
	go func() { first <- eval.Stream(context.Background(), ds, q, opt, sink) }()
	<-sink.reached
	held := shared.Used()
	if held < 2<<20 {
		t.Fatalf("the held query charged %d bytes, want at least 2 MiB", held)
	}
	if _, err := eval.Run(context.Background(), ds, q, opt); !errors.Is(err, eval.ErrServerMemory) || !errors.Is(err, eval.ErrTooLarge) {
		t.Errorf("beside a query holding %d of %d bytes: %v, want ErrServerMemory", held, shared.Max(), err)
	}
	if u := shared.Used(); u != held {
		t.Errorf("the stopped query left %d bytes charged, want the held query's %d", u, held)
	}
	close(sink.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if r, err := eval.Run(context.Background(), ds, q, opt); err != nil || len(r.Rows) != n {
		t.Errorf("after the other query ended: %v", err)
	}
	if u := shared.Used(); u != 0 {
		t.Errorf("%d bytes still charged after the queries ended", u)
	}
}

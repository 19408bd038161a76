package eval

import (
	"context"
	"testing"
	"unsafe"

	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// TestOrderByChargesItsBuffer: a full sort charges its buffer's items (by its capacity), besides each row and its
// keys. Before, the items and their slack went uncharged: 8 sorted products at 1 M held up to 1.4 times what they
// charged (docs/reliability.md).
func TestOrderByChargesItsBuffer(t *testing.T) {
	e, res := runSelect(t, tagStarData(t), `SELECT ?s ?o WHERE { ?s <http://ex.org/p2> ?o } ORDER BY ?o`)
	n := int64(len(res.Rows))
	if n < 3000 {
		t.Fatalf("%d solutions, want at least 3000", n)
	}
	rowAndKey := e.rowCost() + int64(unsafe.Sizeof(builtin.Key{})+4)
	if least := n * (rowAndKey + int64(unsafe.Sizeof(sortItem{}))); e.bytes < least {
		t.Errorf("%d solutions sorted: %d bytes charged, want at least %d (%d for rows and keys alone)", n, e.bytes, least, n*rowAndKey)
	}
}

// runSelect runs a SELECT as Stream does, returning its evaluator (what it charged) and its answer.
func runSelect(t *testing.T, ds *Dataset, src string) (*evaluator, *Result) {
	t.Helper()
	q := mustParse(t, src)
	e := newEvaluator(context.Background(), ds, q, Options{})
	c := &collector{res: &Result{}}
	if err := e.selectQuery(q, c); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return e, c.res
}

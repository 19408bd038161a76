package eval

import (
	"strings"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// CONTAINS(LCASE(?text), "word") over every text (h58: product labels, review titles and comments, 550 ms of CPU
// at 10 M) made each text's lower-case string through the function machinery: LCASE's mapping a third of the time,
// the calls' argument slices and dispatch another. lowerContains lowers the text into a buffer the evaluator keeps
// (builtin.AppendLower, LCASE's own tables) and searches it there. Texts AppendLower leaves to LCASE (a rune whose
// lower case is several, invalid UTF-8), other terms and other needles go to the functions as written.

// lowerContains answers CONTAINS(LCASE(?v), "constant") for the row when that is the call, the constant a simple
// literal and ?v a simple or language-tagged literal; ok is false otherwise (the caller evaluates the call as
// written).
func (e *evaluator) lowerContains(c *algebra.Call, row []ID) (result, ok bool) {
	if len(c.Args) != 2 {
		return false, false
	}
	l, isCall := c.Args[0].(*algebra.Call)
	if !isCall || l.Func != "LCASE" || len(l.Args) != 1 {
		return false, false
	}
	v, isVar := l.Args[0].(algebra.Var)
	k, isConst := c.Args[1].(algebra.Constant)
	if !isVar || !isConst || k.Term.Kind != rdf.KindLiteral || k.Term.Datatype != rdf.XSDString {
		return false, false
	}
	id := row[e.varSlot(v)]
	if id == 0 {
		return false, false
	}
	t := e.t.term(id)
	if t.Kind != rdf.KindLiteral || (t.Datatype != rdf.XSDString && t.Datatype != rdf.RDFLangString) {
		return false, false
	}
	buf, ok := builtin.AppendLower(e.lowerBuf[:0], t.Value)
	e.lowerBuf = buf
	if !ok {
		return false, false
	}
	// The buffer as a string without a copy: only read here, and rewritten by the next call.
	return strings.Contains(unsafe.String(unsafe.SliceData(buf), len(buf)), k.Term.Value), true
}

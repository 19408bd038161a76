package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// MIN and MAX over an expression (MAX(STRLEN(?title)), MIN(?r1 * ?r2)) kept their best value as a parsed term
// (builtin.Key) made from a term evaluated per solution: h116's MIN and MAX of STRLEN over every review spent half
// its CPU making each title's term, the length's term and its key. Where the value is an integer or decimal that an
// id holds (index.IntegerID, index.DecimalID), the id is compared instead (minMaxNumber), as MIN(?price) is.

// minMaxForm is how accumulate computes an aggregate's operand as an inline number id, decided once per group.
type minMaxForm uint8

const (
	minMaxUnknown minMaxForm = iota
	minMaxNone               // evaluated as written
	minMaxStrlen             // STRLEN of a variable: the literal's length from the dictionary (Dict.StringLength)
	minMaxArith              // an operation numberValue computes (arithExpr)
)

func minMaxFormOf(x algebra.Expr) (minMaxForm, algebra.Var) {
	c, ok := x.(*algebra.Call)
	switch {
	case !ok:
		return minMaxNone, ""
	case c.Func == "STRLEN" && len(c.Args) == 1:
		if v, ok := c.Args[0].(algebra.Var); ok {
			return minMaxStrlen, v
		}
		return minMaxNone, ""
	case arithExpr(c):
		return minMaxArith, ""
	}
	return minMaxNone, ""
}

// minMaxValueID is the inline id of the value x has over row when s's form computes it without a term; ok is false
// when it does not (a title that is no string literal of the dictionary, an operand that is no number held in an
// id, a value past an inline id), and the general evaluation gives the value or the error.
func (e *evaluator) minMaxValueID(s *aggState, x algebra.Expr, row []ID) (ID, bool) {
	switch e.exprForm(s, x) {
	case minMaxStrlen:
		return e.strlenID(s, row)
	case minMaxArith:
		return e.numberID(x, row, false)
	}
	return 0, false
}

// exprForm is s's form of its aggregate's operand x, found on the first solution.
func (e *evaluator) exprForm(s *aggState, x algebra.Expr) minMaxForm {
	if s.minMax == minMaxUnknown {
		s.minMax, s.minMaxVar = minMaxFormOf(x)
	}
	return s.minMax
}

// strlenID is the inline id of STRLEN of s's variable (s's form is minMaxStrlen) over row, from the dictionary
// (Dict.StringLength); ok is false when the variable's value is no string literal of the dictionary.
func (e *evaluator) strlenID(s *aggState, row []ID) (ID, bool) {
	// MIN(STRLEN(?t)) and MAX(STRLEN(?t)) of one solution read the same title: counted once.
	id := row[e.varSlot(s.minMaxVar)]
	if id == e.lenMemo[0] && id != 0 {
		return e.lenMemo[1], true
	}
	n, ok := e.t.dict.StringLength(id)
	if !ok {
		return 0, false
	}
	nid, ok := index.IntegerID(int64(n))
	if ok {
		e.lenMemo = [2]ID{id, nid}
	}
	return nid, ok
}

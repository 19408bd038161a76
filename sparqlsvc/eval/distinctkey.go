package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
)

// A projection's rows differ only in the variables it keeps: every other slot is the input's (constant over the
// operand's rows) or cleared. DISTINCT over a projection of one or two variables (b32's SELECT DISTINCT ?vendor
// over the offers a path reaches, hidden path variables in the row) therefore keys its set by those ids, in a map
// of integers, not by a string of the whole row: the string map's hashing and comparing was a quarter of b32.

// distinctByKey returns DISTINCT's set test for op when op is a projection of one or two variables, or nil (the
// caller keys the set by the whole row).
func (e *evaluator) distinctByKey(op algebra.Op, emit emitFn, errp *error) emitFn {
	p, ok := op.(*algebra.Project)
	if !ok || len(p.Vars) == 0 || len(p.Vars) > 2 {
		return nil
	}
	a, b := e.slot(p.Vars[0]), -1
	if len(p.Vars) == 2 {
		b = e.slot(p.Vars[1])
	}
	seen := map[uint64]struct{}{}
	return func(row []ID) bool {
		k := uint64(row[a])
		if b >= 0 {
			k |= uint64(row[b]) << 32
		}
		if _, dup := seen[k]; dup {
			return true
		}
		if err := e.hold(1); err != nil {
			*errp = err
			return false
		}
		seen[k] = struct{}{}
		return emit(row)
	}
}

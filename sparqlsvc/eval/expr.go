package eval

import (
	"cmp"
	"encoding/binary"
	"errors"
	"strings"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

func rdfIRI(s string) rdf.Term { return rdf.IRI(s) }

var errUnbound = errors.New("sparql: unbound variable")

// eval evaluates an expression over a solution. The error result is an expression error (the value is absent);
// fatal conditions (time-out, cancellation) go to *errp instead.
func (e *evaluator) eval(x algebra.Expr, row []ID, errp *error) (rdf.Term, error) {
	switch v := x.(type) {
	case algebra.Var:
		id := row[e.varSlot(v)]
		if id == 0 {
			return rdf.Term{}, errUnbound
		}
		return e.t.term(id), nil
	case algebra.Constant:
		return v.Term, nil
	case *algebra.Call:
		return e.call(v, row, errp)
	case *algebra.FunctionCall:
		if id, ok := e.dateTimeCastID(v, row); ok { // xsd:dateTime(STR(?t)) of a valid dateTime: ?t itself
			return e.t.term(id), nil
		}
		args, base, err := e.args(v.Args, row, errp)
		if err != nil {
			return rdf.Term{}, err
		}
		t, err := rdf.Term{}, builtin.ErrUnknownFunction
		if strings.HasPrefix(v.IRI, rdf.XSDNS) {
			t, err = builtin.Cast(v.IRI, args[0])
		}
		e.argStack = e.argStack[:base]
		return t, err
	case *algebra.In:
		if m := e.inMemoOf(v); m != nil {
			return e.inMemoised(m, v, row, errp)
		}
		return e.in(v, row, errp)
	case *algebra.Exists:
		return e.exists(v, row, errp)
	}
	return rdf.Term{}, builtin.ErrType
}

// inMemo holds the answers of one `?x IN (constants)` (or NOT IN) by ?x's id: with constants only, the answer is
// a function of ?x's value alone, and a FILTER over every offer meets a few delivery days or countries again and
// again. Each test read the value's term and compared it with every constant through parsed keys (h18 at 10 M:
// half of its CPU in the two IN filters).
type inMemo struct {
	slot int
	seen map[ID]inAnswer
}

type inAnswer struct {
	t   rdf.Term
	err error
}

// maxInMemo bounds an inMemo: past it, values not yet met are tested without being kept.
const maxInMemo = 1 << 14

// inMemoOf returns x's memo when x tests a variable against constants only, else nil.
func (e *evaluator) inMemoOf(x *algebra.In) *inMemo {
	if m, ok := e.inMemos[x]; ok {
		return m
	}
	var m *inMemo
	if v, ok := x.Expr.(algebra.Var); ok && !e.noMemo {
		m = &inMemo{slot: e.slot(v), seen: map[ID]inAnswer{}}
		for _, it := range x.List {
			if _, ok := it.(algebra.Constant); !ok {
				m = nil
				break
			}
		}
	}
	if e.inMemos == nil {
		e.inMemos = map[*algebra.In]*inMemo{}
	}
	e.inMemos[x] = m
	return m
}

// inMemoised answers x from m, or tests it and keeps the answer. Ids of the data, inline ids and the query's
// interned terms name one term for the whole query; a scratch id (a value on its way to the sink) is reused per
// solution, so its answers are not kept.
func (e *evaluator) inMemoised(m *inMemo, x *algebra.In, row []ID, errp *error) (rdf.Term, error) {
	id := row[m.slot]
	if id == 0 || !(e.t.inData(id) || e.t.isOverlay(id)) {
		return e.in(x, row, errp)
	}
	if a, ok := m.seen[id]; ok {
		return a.t, a.err
	}
	t, err := e.in(x, row, errp)
	if *errp == nil && len(m.seen) < maxInMemo {
		if herr := e.holdBytes(48); herr != nil {
			*errp = herr
			return rdf.Term{}, herr
		}
		m.seen[id] = inAnswer{t, err}
	}
	return t, err
}

// in evaluates x, IN or NOT IN (§17.4.1.9, §17.4.1.10), over a solution.
func (e *evaluator) in(v *algebra.In, row []ID, errp *error) (rdf.Term, error) {
	val, err := e.eval(v.Expr, row, errp)
	if err != nil {
		return rdf.Term{}, err
	}
	var firstErr error
	for _, it := range v.List {
		w, err := e.eval(it, row, errp)
		if err == nil {
			var eq bool
			eq, err = builtin.Equal(val, w)
			if err == nil && eq {
				return builtin.Boolean(!v.Not), nil
			}
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return rdf.Term{}, firstErr
	}
	return builtin.Boolean(v.Not), nil
}

// exists evaluates EXISTS or NOT EXISTS over a solution. It is eval's case, apart so that eval stays small (it
// had a defer, which made every eval call run the deferred-call machinery at its return: 5 % of an aggregate's
// evaluation).
func (e *evaluator) exists(v *algebra.Exists, row []ID, errp *error) (rdf.Term, error) {
	b, err := e.existsTest(v, row, errp)
	if err != nil {
		return rdf.Term{}, err
	}
	return builtin.Boolean(b), nil
}

// existsTest is exists' answer as a bool: a FILTER's test (ebv) reads it so, without a boolean term made and read
// back per row (v55c tests 29 000 products).
func (e *evaluator) existsTest(v *algebra.Exists, row []ID, errp *error) (bool, error) {
	m := e.existsMemoOf(v)
	if found, ok := e.existsBySet(m, v, row, errp); ok || *errp != nil {
		if *errp != nil {
			return false, *errp
		}
		return found != v.Not, nil
	}
	key, memo := m.key(e, row)
	if found, ok := m.seen[string(key)]; memo && ok {
		m.hits++
		return found != v.Not, nil
	}
	if memo && len(m.seen) >= memoTrial && !m.pays() { // the values seldom repeat: stop remembering them
		m.ok, m.seen, memo = false, nil, false
	}
	found, err := e.existsPerRow(m, v, row)
	if err != nil {
		*errp = err
		return false, err
	}
	if memo && len(m.seen) < maxExistsMemo {
		if err := e.holdBytes(int64(len(key)) + 48); err != nil {
			*errp = err
			return false, err
		}
		m.seen[string(key)] = found
	}
	return found != v.Not, nil
}

// args evaluates a call's arguments onto the evaluator's argument stack, so a FILTER or BIND does not allocate a
// slice per call and solution; the caller releases them with e.argStack = e.argStack[:base] once the call has
// its value. A nested call pushes above its caller's arguments; if that grows the stack into a new array, the
// caller's slice still reads the old one, which keeps its values.
func (e *evaluator) args(xs []algebra.Expr, row []ID, errp *error) (args []rdf.Term, base int, err error) {
	base = len(e.argStack)
	for _, a := range xs {
		t, err := e.eval(a, row, errp)
		if err != nil {
			e.argStack = e.argStack[:base]
			return nil, base, err
		}
		e.argStack = append(e.argStack, t)
	}
	return e.argStack[base:len(e.argStack):len(e.argStack)], base, nil
}

func (e *evaluator) call(c *algebra.Call, row []ID, errp *error) (rdf.Term, error) {
	switch c.Func {
	case "||", "&&":
		// Three-valued logic (§17.2): an error on one side is overridden by a decisive value on the other, so
		// the right side is only evaluated when the left one does not decide.
		decisive := c.Func == "||"
		l, lerr := e.ebv(c.Args[0], row, errp)
		if lerr == nil && l == decisive {
			return builtin.Boolean(decisive), nil
		}
		r, rerr := e.ebv(c.Args[1], row, errp)
		switch {
		case rerr == nil && r == decisive:
			return builtin.Boolean(decisive), nil
		case lerr != nil:
			return rdf.Term{}, lerr
		case rerr != nil:
			return rdf.Term{}, rerr
		}
		return builtin.Boolean(!decisive), nil
	case "!":
		b, err := e.ebv(c.Args[0], row, errp)
		if err != nil {
			return rdf.Term{}, err
		}
		return builtin.Boolean(!b), nil
	case "BOUND":
		v, ok := c.Args[0].(algebra.Var)
		if !ok {
			return rdf.Term{}, builtin.ErrType
		}
		return builtin.Boolean(row[e.slot(v)] != 0), nil
	case "IF":
		b, err := e.ebv(c.Args[0], row, errp)
		if err != nil {
			return rdf.Term{}, err
		}
		if b {
			return e.eval(c.Args[1], row, errp)
		}
		return e.eval(c.Args[2], row, errp)
	case "COALESCE":
		for _, a := range c.Args {
			if t, err := e.eval(a, row, errp); err == nil && !t.IsZero() {
				return t, nil
			}
		}
		return rdf.Term{}, builtin.ErrType
	}
	switch c.Func {
	case "=", "!=", "<", ">", "<=", ">=":
		// Operands straight to comparison keys: a variable holding a number in its id gives its key without the
		// lexical form being parsed. Both operands are evaluated before either key is made, since a nested
		// comparison would reuse the scratch keys. A dateTime numbered in value order against a constant is
		// compared by its id (siteCompare).
		if s := e.cmpSiteOf(c); s.kind == siteRatio {
			if r, err, ok := e.ratioCompare(s, row); ok {
				if err != nil {
					return rdf.Term{}, err
				}
				return builtin.Boolean(r), nil
			}
		} else if r, ok := e.compareAt(s, row); ok {
			return builtin.Boolean(r), nil
		}
		if r, ok := e.langCompare(c, row); ok {
			return builtin.Boolean(r), nil
		}
		if s := e.cmpSiteOf(c); s.memoSlot > 0 && e.t.isOverlay(row[s.memoSlot-1]) && (s.memo == nil || !s.memo.off) && !e.noMemo {
			return e.memoCompare(s, row, errp)
		}
		return e.compareTerms(c, row, errp)
	case "SAMETERM":
		if r, ok := e.sameTermByID(c, row); ok {
			return builtin.Boolean(r), nil
		}
	}
	if r, err, ok := e.strTest(c, row); ok {
		if err != nil {
			return rdf.Term{}, err
		}
		return builtin.Boolean(r), nil
	}
	if r, ok := e.langMatchesTag(c, row); ok {
		return builtin.Boolean(r), nil
	}
	if t, err, ok := e.substrFast(c, row); ok {
		return t, err
	}
	if arithFunc(c) {
		// An arithmetic tree computed in Value form, one term written for its result (values.go). arithExpr
		// first (read once per site by progOf): a tree value cannot compute (xsd:double(?w) * xsd:double(?h),
		// b03) is not descended into at every level of the general evaluation's own descent.
		if p := e.progOf(c); p.arith {
			if v, ok := e.runProg(p, row); ok {
				return v.Term(), nil
			}
		}
	}
	if c.Func == "CONTAINS" {
		if r, ok := e.lowerContains(c, row); ok {
			return builtin.Boolean(r), nil
		}
	}
	if c.Func == "LANG" && len(c.Args) == 1 {
		if tag, ok := e.langOf(c.Args[0], row); ok {
			return rdf.String(tag), nil
		}
	}
	if id, ok := e.dateFieldID(c, row); ok { // YEAR(?d) and the like from the dictionary's column
		return e.t.term(id), nil
	}
	if (c.Func == "TZ" || c.Func == "TIMEZONE") && len(c.Args) == 1 {
		// A valid date's timezone from the end of its lexical form (the ids of the date blocks and the inline
		// dates DateValue reads are valid forms).
		if v, ok := c.Args[0].(algebra.Var); ok {
			if id := row[e.varSlot(v)]; id != 0 && !isScratch(id) && e.t.inData(id) {
				if _, ok := e.dateValue(id); ok {
					return builtin.ValidDateZone(c.Func, e.t.term(id).Value)
				}
			}
		}
	}
	args, base, err := e.args(c.Args, row, errp)
	if err != nil {
		return rdf.Term{}, err
	}
	v, err := e.apply(c, args)
	e.argStack = e.argStack[:base]
	switch {
	case errors.Is(err, builtin.ErrTooLong):
		*errp = ErrTooLarge // not an absent value: the query stops at its budget
	case err != nil && e.ctx.Err() != nil && errors.Is(err, e.ctx.Err()): // REPLACE or a pattern's compiling stopped
		*errp = err
	}
	return v, err
}

// sameTermByID answers sameTerm(a, b) from the operands' ids when each is a bound variable or a constant of the
// data: one term has one id in the query's id space (the dictionary's, an inline id printed back byte for byte,
// or an id the query interned after looking in the dictionary), so the terms are the same exactly when the ids
// are. Reading both terms cost h27 (sameTerm over 11.6 M pairs of offers at 10 M) half of its CPU. ok is false for
// an unbound variable (an error), a scratch id (reused per solution), a constant the data lacks, graphs with their
// own dictionaries, or other operands; the terms are then compared.
func (e *evaluator) sameTermByID(c *algebra.Call, row []ID) (same, ok bool) {
	if len(c.Args) != 2 || e.multi || e.noMemo {
		return false, false
	}
	var ids [2]ID
	for i, a := range c.Args {
		switch v := a.(type) {
		case algebra.Var:
			ids[i] = row[e.varSlot(v)]
			if ids[i] == 0 || isScratch(ids[i]) || !(e.t.inData(ids[i]) || e.t.isOverlay(ids[i])) {
				return false, false
			}
		case algebra.Constant:
			if ids[i] = e.constID(v.Term); ids[i] == 0 {
				return false, false
			}
		default:
			return false, false
		}
	}
	return ids[0] == ids[1], true
}

// compareTerms is a comparison operator on its operands' keys.
func (e *evaluator) compareTerms(c *algebra.Call, row []ID, errp *error) (rdf.Term, error) {
	{
		var ts [2]rdf.Term
		var ids [2]ID
		var vals [2]builtin.Value
		var has [2]bool
		for i := range ts {
			if v, ok := c.Args[i].(algebra.Var); ok {
				if ids[i] = row[e.varSlot(v)]; ids[i] == 0 {
					return rdf.Term{}, errUnbound
				}
				if _, _, ok := index.InlineNumber(ids[i]); ok {
					continue
				}
			}
			// An arithmetic operand computed from numbers held in ids (b61's xsd:integer(xsd:decimal(STR(?price))
			// * 100) over every offer) is compared by its value's id, without its term made and parsed back.
			if site := e.valueSite(c.Args[i]); site || arithExpr(c.Args[i]) {
				if !site {
					if id, ok := e.numberID(c.Args[i], row, false); ok {
						ids[i] = id
						continue
					}
				}
				// Past int64 (an AVG's 18 places) or in doubles: compared as a Value, no term made (values.go).
				if v, ok := e.value(c.Args[i], row); ok {
					if !site {
						e.noteValueSite(c.Args[i])
					}
					vals[i], has[i] = v, true
					continue
				}
			}
			t, err := e.eval(c.Args[i], row, errp)
			if err != nil {
				return rdf.Term{}, err
			}
			ts[i], ids[i] = t, 0
		}
		if has[0] || has[1] {
			if r, ok := e.valueCompare(c, row, ids, ts, vals, has); ok {
				return builtin.Boolean(r), nil
			}
			for i := range has {
				if has[i] {
					ts[i], ids[i] = vals[i].Term(), 0
				}
			}
		}
		if r, ok := e.inlineCompare(c, ids); ok {
			return builtin.Boolean(r), nil
		}
		a, b := e.operandKey(c, 0, ids[0], ts[0]), e.operandKey(c, 1, ids[1], ts[1])
		return compareKeys(c.Func, a, b)
	}
}

// inlineCompare is compareTerms for operands that are both numbers held in ids: ids (0: not held so), or a
// constant's id, read once for its site (prepareNumbers). ok is false for any other operands.
func (e *evaluator) inlineCompare(c *algebra.Call, ids [2]ID) (result, ok bool) {
	for i, id := range ids {
		if _, _, ok := index.InlineNumber(id); ok {
			continue
		}
		if _, isConst := c.Args[i].(algebra.Constant); !isConst || id != 0 {
			return false, false
		}
		s := e.cmpSiteOf(c)
		if !s.numsDone {
			e.prepareNumbers(s)
		}
		ids[i] = s.nums[i]
	}
	r, ok := compareNumbers(ids[0], ids[1])
	if !ok {
		return false, false
	}
	return opTable[opIndex(c.Func)][r+1], true
}

// memoCompare is compareTerms for a variable holding an overlay id against a constant, answered from the site's
// memo when the id was met before.
func (e *evaluator) memoCompare(s *cmpSite, row []ID, errp *error) (rdf.Term, error) {
	if s.memo == nil {
		s.memo = &cmpMemo{vals: map[ID]cmpOutcome{}}
	}
	id := row[s.memoSlot-1]
	o, hit := s.memo.last, id == s.memo.lastID
	if !hit {
		if o, hit = s.memo.vals[id]; hit {
			s.memo.lastID, s.memo.last = id, o
		}
	}
	s.memo.count(hit)
	if hit {
		if o.err != nil {
			return rdf.Term{}, o.err
		}
		return builtin.Boolean(o.r), nil
	}
	t, err := e.compareTerms(s.call, row, errp)
	if *errp != nil {
		return t, err
	}
	o = cmpOutcome{err: err}
	if err == nil {
		if o.r, err = builtin.EBV(t); err != nil {
			return t, nil // not a boolean: not memoised
		}
	}
	if len(s.memo.vals) < memoEntries && e.bytes+e.t.bytes+32 < e.opt.MaxMemory/2 {
		s.memo.vals[id] = o
		s.memo.lastID, s.memo.last = id, o
		e.t.bytes += 32
	}
	return t, o.err
}

// apply is a call of an operator or function on its evaluated arguments.
func (e *evaluator) apply(c *algebra.Call, args []rdf.Term) (rdf.Term, error) {
	switch c.Func {
	case "=", "!=", "<", ">", "<=", ">=":
		return compareKeys(c.Func, e.argKey(c, 0, args[0]), e.argKey(c, 1, args[1]))
	case "+", "-":
		if len(args) == 1 {
			if c.Func == "-" {
				return builtin.Negate(args[0])
			}
			return builtin.Plus(args[0])
		}
		return builtin.Arith(c.Func[0], args[0], args[1])
	case "*", "/":
		return builtin.Arith(c.Func[0], args[0], args[1])
	}
	return e.fn.Call(c.Func, args)
}

func (e *evaluator) ebv(x algebra.Expr, row []ID, errp *error) (bool, error) {
	// A comparison its site answers needs no boolean term made and read back (a FILTER over every row).
	if c, ok := x.(*algebra.Call); ok {
		switch {
		case len(c.Args) == 2 && isComparison(c.Func):
			s := e.cmpSiteOf(c)
			if s.kind == siteRatio { // its unbound operand's error too, without the general path's steps
				if r, err, ok := e.ratioCompare(s, row); ok {
					return r, err
				}
			} else if r, ok := e.compareAt(s, row); ok {
				return r, nil
			}
			// A computed value against a constant, met before: the memo's answer without a boolean term made
			// and read back (call's memoCompare, the same test).
			if s.memo != nil && !s.memo.off && !e.noMemo && e.t.isOverlay(row[s.memoSlot-1]) {
				if id := row[s.memoSlot-1]; id == s.memo.lastID {
					s.memo.count(true)
					return s.memo.last.r, s.memo.last.err
				}
			}
			if r, ok := e.compareByValue(c, row); ok {
				return r, nil
			}
		case c.Func == "!" && len(c.Args) == 1: // call's "!", without its boolean term made and read back
			b, err := e.ebv(c.Args[0], row, errp)
			return !b, err
		case c.Func == "SAMETERM":
			if r, ok := e.sameTermByID(c, row); ok {
				return r, nil
			}
		default:
			if r, err, ok := e.strTest(c, row); ok { // without a boolean term made and read back
				return r, err
			}
			if r, ok := e.langMatchesTag(c, row); ok {
				return r, nil
			}
		}
	}
	if v, ok := x.(*algebra.Exists); ok {
		return e.existsTest(v, row, errp)
	}
	t, err := e.eval(x, row, errp)
	if err != nil {
		return false, err
	}
	return builtin.EBV(t)
}

// isComparison reports whether op is one of the six comparison operators.
func isComparison(op string) bool {
	switch op {
	case "=", "!=", "<", ">", "<=", ">=":
		return true
	}
	return false
}

// compareKeys applies comparison operator op to two parsed operands.
func compareKeys(op string, a, b *builtin.Key) (rdf.Term, error) {
	if op == "=" || op == "!=" {
		eq, err := builtin.EqualKeys(a, b)
		if err != nil {
			return rdf.Term{}, err
		}
		return builtin.Boolean(eq == (op == "=")), nil
	}
	cmp, err := builtin.CompareKeys(a, b)
	if err != nil {
		return rdf.Term{}, err
	}
	var r bool
	switch op {
	case "<":
		r = cmp < 0
	case ">":
		r = cmp > 0
	case "<=":
		r = cmp <= 0
	default:
		r = cmp >= 0
	}
	return builtin.Boolean(r), nil
}

// operandKey is operand i of a comparison as a key: from id when it holds a number (index.IsInline), without
// parsing a lexical form; otherwise from t, the operand's value (argKey).
func (e *evaluator) operandKey(c *algebra.Call, i int, id ID, t rdf.Term) *builtin.Key {
	if n, scale, ok := index.InlineNumber(id); ok {
		e.scratchKeys[i] = builtin.FixedKey(e.t.term(id), n, scale)
		return &e.scratchKeys[i]
	}
	return e.argKey(c, i, t)
}

// argKey is argument i of a comparison, parsed for comparing: a constant's key is parsed once per query (a FILTER
// comparing every row with a dateTime constant parsed the constant every time); others go to one of two scratch
// keys, valid until the next comparison.
func (e *evaluator) argKey(c *algebra.Call, i int, v rdf.Term) *builtin.Key {
	if _, ok := c.Args[i].(algebra.Constant); ok {
		ks := e.constKeys[c]
		if ks == nil {
			ks = new([2]*builtin.Key)
			e.constKeys[c] = ks
		}
		if ks[i] == nil {
			k := builtin.NewKey(v)
			ks[i] = &k
		}
		return ks[i]
	}
	e.scratchKeys[i] = builtin.NewKey(v)
	return &e.scratchKeys[i]
}

// numberCompare is a comparison of two numbers held in their ids (a variable's value or a constant, both
// xsd:integer or xsd:decimal small enough to be inlined): their values v / 10^scale are compared exactly as
// integers at the larger scale, which is the numeric comparison of XPath for these types, without a term or a key
// made. ok is false for any other operands, which take the general path.
func (e *evaluator) numberCompare(s *cmpSite, row []ID) (result, ok bool) {
	if !s.numsDone {
		e.prepareNumbers(s)
	}
	a, b := s.nums[0], s.nums[1]
	if s.numSlots[0] >= 0 {
		a = row[s.numSlots[0]]
	}
	if s.numSlots[1] >= 0 {
		b = row[s.numSlots[1]]
	}
	r, ok := compareNumbers(a, b)
	if !ok || s.op == 0 {
		return false, false
	}
	return opTable[s.op][r+1], true
}

// prepareNumbers reads once what numberCompare needs of s's operands, which it then reads per solution without a
// type switch or a slot lookup (a FILTER over every offer's price compared each row's operands that way, a tenth of
// such a query): the ids of the constants held in ids, the slots of the variables (-1: not a variable), and the
// operator's row of opTable.
func (e *evaluator) prepareNumbers(s *cmpSite) {
	for i, a := range s.call.Args {
		s.numSlots[i] = -1
		switch a := a.(type) {
		case algebra.Constant:
			if id, ok := index.InlineID(a.Term); ok {
				s.nums[i] = id
			}
		case algebra.Var:
			s.numSlots[i] = e.varSlot(a)
		}
	}
	s.op = opIndex(s.call.Func)
	s.numsDone = true
}

// opTable holds, per comparison operator (opIndex; row 0: none), its result for a comparison of -1, 0 and +1.
var opTable = [7][3]bool{
	{},
	{true, false, false}, // <
	{true, true, false},  // <=
	{false, false, true}, // >
	{false, true, true},  // >=
	{false, true, false}, // =
	{true, false, true},  // !=
}

// opIndex is op's row of opTable, 0 when op is not a comparison operator.
func opIndex(op string) uint8 {
	for i, o := range [...]string{"<", "<=", ">", ">=", "=", "!="} {
		if op == o {
			return uint8(i + 1)
		}
	}
	return 0
}

// compareNumbers compares the values of two numbers held in their ids (xsd:integer or xsd:decimal, index.IsInline):
// v / 10^scale each, as integers at the larger scale. ok is false unless both ids hold such numbers.
func compareNumbers(a, b ID) (r int, ok bool) {
	va, sa, okA := index.InlineNumber(a)
	vb, sb, okB := index.InlineNumber(b)
	if !okA || !okB {
		return 0, false
	}
	// |v| < 2^27 and scale <= 3: scaled to the larger scale, the values fit an int64 easily.
	for ; sa < sb; sa++ {
		va *= 10
	}
	for ; sb < sa; sb++ {
		vb *= 10
	}
	return cmp.Compare(va, vb), true
}

// varRef is a variable's slot by the address and length of its name.
type varRef struct {
	p    *byte
	n    int
	slot int
}

// varSlot is slot for the variables of expressions, which are evaluated per solution: it finds the name by the
// address of its text among the first 32 met (the parsed query's strings do not move), without hashing the name
// as the map does.
func (e *evaluator) varSlot(v algebra.Var) int {
	p := unsafe.StringData(string(v))
	for _, c := range e.varRefs {
		if c.p == p && c.n == len(v) {
			return c.slot
		}
	}
	s := e.slot(v)
	if len(e.varRefs) < 32 {
		e.varRefs = append(e.varRefs, varRef{p, len(v), s})
	}
	return s
}

// maxExistsMemo is the most answers one EXISTS remembers (existsMemo).
const maxExistsMemo = 1 << 16

// existsMemo remembers one EXISTS's answers by the values of the variables its pattern mentions. Under
// substitution those values are all the pattern sees of the row, so equal values give the same answer: a NOT
// EXISTS over each product's offers, tested once per (product, feature) solution, walks each product's offers
// once. Patterns whose answer may differ between calls (RAND, BNODE, UUID, SERVICE) remember nothing.
type existsMemo struct {
	slots []int
	ok    bool
	seen  map[string]bool
	hits  int
	buf   []byte
	join  existsJoin // the semi-join's state (existsBySet)
	// found and err are existsPerRow's answer, and sink the function its pattern's solutions go to: made once,
	// so an evaluation per row allocates nothing.
	found bool
	err   error
	sink  emitFn
	// volatile: the pattern's answer may differ between evaluations with the same values (volatileOp).
	volatile bool
	// ext is the pattern read as a comparison with the row (extremeOf; nil: it is not one), once extDone.
	ext     *extremeShape
	extDone bool
}

// memoTrial is how many answers an EXISTS remembers before it weighs what the memo saves against what it costs
// (existsMemo.pays).
const memoTrial = 1024

// memoWork is what remembering and looking up one answer costs, in counted work (effort's units): a string key
// made, hashed and stored in a map that grows to tens of thousands of keys, about eight row steps.
const memoWork = 8

// pays reports whether the answers found again in the memo saved, in the work per row measured so far, at least
// what keeping the memo cost. v55i's keys (a product and a country) repeated once in sixteen at 10 M, each saving
// ~90 units of work: the memo took 12 % more CPU than none. h17's repeat once in three and h60's more often.
func (m *existsMemo) pays() bool {
	if m.hits == 0 || m.join.calls == 0 {
		return false
	}
	return int64(m.hits)*m.join.work/int64(m.join.calls) >= memoWork*int64(len(m.seen))
}

func (e *evaluator) existsMemoOf(x *algebra.Exists) *existsMemo {
	if x == e.lastExists {
		return e.lastMemo // the same EXISTS row after row: no map lookup (a pointer's hash per row)
	}
	if m := e.existsMemos[x]; m != nil {
		e.lastExists, e.lastMemo = x, m
		return m
	}
	if e.existsMemos == nil {
		e.existsMemos = map[*algebra.Exists]*existsMemo{}
	}
	m := &existsMemo{ok: true, seen: map[string]bool{}}
	seen := map[int]bool{}
	walkVars(x.Pattern, func(v algebra.Var) {
		if s := e.slot(v); !seen[s] {
			seen[s] = true
			m.slots = append(m.slots, s)
		}
	}, nil)
	m.volatile = volatileOp(x.Pattern)
	if f, ok := x.Pattern.(*algebra.Filter); ok && e.optFilters[f] == nil {
		if of := e.optFilterOf(f); of != nil {
			if e.optFilters == nil {
				e.optFilters = map[*algebra.Filter]*optFilter{}
			}
			e.optFilters[f] = of
		}
	}
	m.ok = !m.volatile
	m.sink = func([]ID) bool {
		m.found = true
		return false
	}
	e.existsMemos[x] = m
	e.lastExists, e.lastMemo = x, m
	return m
}

// existsPerRow evaluates the EXISTS x for row by substitution (§18.6: every operand sees the row's bindings) and
// counts its work towards the semi-join's decision (existsBySet).
func (e *evaluator) existsPerRow(m *existsMemo, x *algebra.Exists, row []ID) (bool, error) {
	saved, before := e.inExists, e.effort()
	e.subst++
	e.inExists = &m.join
	m.found, m.err = false, nil
	e.exec(x.Pattern, row, m.sink, &m.err)
	e.subst--
	e.inExists = saved
	m.join.measure(e.effort() - before)
	return m.found, m.err
}

// key returns the memo's key for row: the ids in the pattern's slots and the active graph. memo is false when the
// answer must not be remembered: the pattern is volatile, or a value is a scratch id (valid for one solution).
func (m *existsMemo) key(e *evaluator, row []ID) ([]byte, bool) {
	if !m.ok {
		return nil, false
	}
	m.buf = binary.LittleEndian.AppendUint32(m.buf[:0], e.activeName())
	for _, s := range m.slots {
		id := row[s]
		if isScratch(id) {
			return nil, false
		}
		m.buf = binary.LittleEndian.AppendUint32(m.buf, id)
	}
	return m.buf, true
}

// volatileOp reports whether op's answer may differ between two evaluations with the same bindings: it calls RAND,
// BNODE, UUID or STRUUID somewhere (EXISTS patterns included), or asks a SERVICE.
func volatileOp(op algebra.Op) bool {
	v := false
	expr := func(x algebra.Expr) {
		algebra.WalkExpr(x, func(x algebra.Expr) bool {
			switch c := x.(type) {
			case *algebra.Call:
				switch c.Func {
				case "RAND", "BNODE", "UUID", "STRUUID":
					v = true
				}
			case *algebra.Exists:
				v = v || volatileOp(c.Pattern)
			}
			return !v
		})
	}
	algebra.Walk(op, func(op algebra.Op) bool {
		switch o := op.(type) {
		case *algebra.Service:
			v = true
		case *algebra.Filter:
			for _, f := range o.Exprs {
				expr(f)
			}
		case *algebra.Extend:
			expr(o.Expr)
		case *algebra.LeftJoin:
			if o.Expr != nil {
				expr(o.Expr)
			}
		case *algebra.Group:
			for _, k := range o.Keys {
				expr(k.Expr)
			}
			for _, a := range o.Aggregates {
				if a.Aggregate.Expr != nil {
					expr(a.Aggregate.Expr)
				}
			}
		case *algebra.OrderBy:
			for _, c := range o.Conds {
				expr(c.Expr)
			}
		}
		return !v
	})
	return v
}

package eval

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// The dictionary numbers dateTimes in value order, in blocks (index.DateBlock), with a column of their fields: the
// evaluator answers YEAR … MINUTES, comparisons with a constant, MIN and MAX of such ids without the terms.

// dateValue returns the fields of the dateTime or date held by id, from the dictionary's column or an inline id.
func (e *evaluator) dateValue(id ID) (builtin.DateValue, bool) {
	if e.t.dict == nil || id == 0 {
		return builtin.DateValue{}, false
	}
	// A row's date is often read twice or more (GROUP BY HOURS(?d) with MINUTES(?d) in an aggregate).
	if id == e.lastDate.id {
		return e.lastDate.v, e.lastDate.ok
	}
	v, ok := e.t.dict.DateValue(id)
	e.lastDate.id, e.lastDate.v, e.lastDate.ok = id, v, ok
	return v, ok
}

// dateBlock returns the index of the dictionary's date block holding id, or -1.
func (e *evaluator) dateBlock(id ID) int {
	if e.t.dict == nil || id == 0 || id > e.t.base {
		return -1
	}
	return e.t.dict.DateBlockOf(id)
}

// inlineDates is orderBlock's number for the xsd:dates held in their ids, after the dictionary's (at most 4) blocks.
const inlineDates = 4

// orderBlock is dateBlock, or inlineDates for an xsd:date held in its id: those are YYYY-MM-DD forms whose ids
// ascend with (year, month, day), which is both their value order and their lexical order, so OrderCompare orders
// them as their ids even when a form is no date (31 February compares by its lexical form). Only ordering (ORDER
// BY, MIN, MAX) may use it; a comparison operator raises an error on such a form.
func (e *evaluator) orderBlock(id ID) int {
	if index.IsInlineDate(id) {
		return inlineDates
	}
	return e.dateBlock(id)
}

// dateFieldID is YEAR, MONTH, DAY, HOURS or MINUTES of a variable holding a date or dateTime the column knows, as
// the id of the integer, or SECONDS of a dateTime of the dictionary's date blocks as the id of its decimal; ok is
// false for any other call or value, which takes the general path.
func (e *evaluator) dateFieldID(x algebra.Expr, row []ID) (ID, bool) {
	c, ok := x.(*algebra.Call)
	if !ok {
		return 0, false
	}
	v, ok := fieldArg(c)
	if !ok {
		return 0, false
	}
	return e.fieldID(c.Func, row[e.varSlot(v)])
}

// fieldArg returns the variable c is YEAR, MONTH, DAY, HOURS, MINUTES or SECONDS of; ok is false for any other
// call.
func fieldArg(c *algebra.Call) (algebra.Var, bool) {
	if len(c.Args) != 1 {
		return "", false
	}
	switch c.Func {
	case "YEAR", "MONTH", "DAY", "HOURS", "MINUTES", "SECONDS":
	default:
		return "", false
	}
	v, ok := c.Args[0].(algebra.Var)
	return v, ok
}

// dateTimeCastID answers xsd:dateTime(?t), xsd:dateTime(STR(?t)) and xsd:dateTime(xsd:string(?t)) with ?t's id
// when ?t holds a dateTime of the dictionary's blocks: the cast of a dateTime gives back its lexical form when that
// form is valid, and STR and the cast to xsd:string give the lexical form, which the cast from a string trims of
// spaces and parses the same way (builtin.Cast). A block's ids are valid forms (index.DateValue), and one without
// surrounding spaces is the term unchanged. d20 built both strings and parsed the dateTime back for every offer.
// ok is false for any other call or value (an xsd:date, a string, an invalid form, an overlay or scratch id), which
// take the general path.
func (e *evaluator) dateTimeCastID(c *algebra.FunctionCall, row []ID) (ID, bool) {
	if c.IRI != index.XSDDateTime || len(c.Args) != 1 {
		return 0, false
	}
	a := c.Args[0]
	switch in := a.(type) {
	case *algebra.Call:
		if in.Func == "STR" && len(in.Args) == 1 {
			a = in.Args[0]
		}
	case *algebra.FunctionCall:
		if in.IRI == rdf.XSDString && len(in.Args) == 1 {
			a = in.Args[0]
		}
	}
	v, ok := a.(algebra.Var)
	if !ok {
		return 0, false
	}
	id := row[e.varSlot(v)]
	if id == 0 || isScratch(id) || !e.t.inData(id) || index.IsInline(id) {
		return 0, false
	}
	if dv, ok := e.dateValue(id); !ok || dv.Class.IsDate() {
		return 0, false
	}
	if lex := e.t.term(id).Value; strings.TrimSpace(lex) != lex { // as the cast from a string trims
		return 0, false
	}
	return id, true
}

// fieldID is dateFieldID of the function fn (as fieldArg accepts) of the value id.
func (e *evaluator) fieldID(fn string, id ID) (ID, bool) {
	if fn == "SECONDS" {
		return e.secondsID(id)
	}
	if fn != "HOURS" && fn != "MINUTES" {
		if f, ok := e.runField(fn, id); ok {
			return index.IntegerID(int64(index.RunField(f, fn)))
		}
	}
	dv, ok := e.dateValue(id)
	if !ok || (dv.Class.IsDate() && fn != "YEAR" && fn != "MONTH" && fn != "DAY") {
		return 0, false // HOURS and MINUTES of a date: whatever the general path says
	}
	return index.IntegerID(int64(dv.Field(fn)))
}

// runField is the column entry of id masked to YEAR and MONTH (fn YEAR or MONTH) or to YEAR … DAY (DAY), from the
// dictionary's runs of those fields (index.FieldRuns): no read of the column entry itself, which for dateTimes met
// in subject order is a cache miss each. The two runs found last answer first: a row's two dateTimes (h45's
// validFrom and validTo), or a POS range's ids in turn. ok is false for ids outside the column, inline dates and
// columns without runs, which read the column (dateValue).
func (e *evaluator) runField(fn string, id ID) (uint64, bool) {
	level := index.RunsMonth
	if fn == "DAY" {
		level = index.RunsDay
	}
	m := &e.runMemo[level]
	for i := range m.runs {
		if r := &m.runs[i]; id >= r.first && id <= r.last && r.last != 0 {
			return r.fields, true
		}
	}
	if e.t.dict == nil || id == 0 || index.IsInline(id) || id > e.t.base {
		return 0, false
	}
	runs := e.t.dict.FieldRuns(level)
	if runs == nil {
		return 0, false
	}
	first, last, f, ok := runs.Find(id)
	if !ok {
		return 0, false
	}
	m.runs[m.next&1] = fieldRun{first, last, f}
	m.next++
	return f, true
}

// fieldRun is one run of index.FieldRuns: ids first … last have the fields.
type fieldRun struct {
	first, last ID
	fields      uint64
}

// cmpSite is what one comparison operator in the query is, found once: a variable against a constant date or
// dateTime (dateCompare), two variables (dateCompareVars), YEAR … MINUTES of a variable against an integer
// (fieldCompare), or anything else (the general path). A FILTER over every offer then neither tells its
// operands apart nor looks its constant up by its term per row.
type cmpSite struct {
	call    *algebra.Call
	kind    uint8
	slots   [2]int // the variables' slots: the compared variable first
	flip    bool   // the constant (or the second variable) is the left operand
	field   string // siteField: YEAR … MINUTES
	fieldAt int    // siteField: field's index in fieldFuncs (-1: SECONDS)
	opc     uint8  // the operator's row of opTable (0: none)
	n       int64  // siteField: the number, n / 10^scale
	scale   int
	konst   rdf.Term
	cuts    [4]dateCut // siteDate: per date block
	// nums holds the constant operands that are numbers held in ids, numSlots the variables' slots (-1 for any
	// other operand) and op the operator's row of opTable (numberCompare), once numsDone.
	nums     [2]ID
	numSlots [2]int
	op       uint8
	numsDone bool
	// memoSlot is 1 + the slot of the variable compared with a constant (0: not that form); memo its answers for
	// overlay ids (memoCompare).
	memoSlot  int
	memo      *cmpMemo
	castConst ID // siteDateCast: the constant operand's id
	// inlineConst is a siteDate's constant as an inline xsd:date id (0: it is none, or no valid date), once
	// inlineDone (inlineDateCompare).
	inlineConst ID
	inlineDone  bool
	byValue     cmpProg    // compareByValue's comparison compiled (compileCompare), once met
	ratio       *ratioSite // siteRatio's operands
}

const (
	siteGeneral  uint8 = iota
	siteDate           // a variable against a constant date or dateTime
	siteDateVars       // two variables
	siteField          // YEAR … MINUTES of a variable against an integer held in its id
	siteDateCast       // xsd:date of a variable against a variable or a constant (dateCastCompare)
	siteRatio          // a quotient of two variables or constants against a third (ratioCompare)
)

// cmpSiteOf returns c's site, made when first met.
func (e *evaluator) cmpSiteOf(c *algebra.Call) *cmpSite {
	s := e.cmpSites.lookup(c)
	if s == nil {
		s = e.newCmpSite(c)
		e.cmpSites.add(c, s)
	}
	return s
}

// callMemo holds one entry per call of the query (a comparison's site, a compiled tree). The four met last are
// looked at before the map: a FILTER and a MAX over the same rows alternate between a few calls per row.
type callMemo[T any] = siteMemo[*algebra.Call, T]

// siteMemo is callMemo keyed by any site of the query (an expression for numProgOf).
type siteMemo[K comparable, T any] struct {
	recent [4]struct {
		call K
		v    *T
	}
	next int
	all  map[K]*T
}

// lookup returns c's entry, or nil when it has none yet.
func (m *siteMemo[K, T]) lookup(c K) *T {
	for _, r := range m.recent {
		if r.v != nil && r.call == c {
			return r.v
		}
	}
	v := m.all[c]
	if v != nil {
		m.remember(c, v)
	}
	return v
}

// add makes v c's entry.
func (m *siteMemo[K, T]) add(c K, v *T) {
	if m.all == nil {
		m.all = map[K]*T{}
	}
	m.all[c] = v
	m.remember(c, v)
}

func (m *siteMemo[K, T]) remember(c K, v *T) {
	r := &m.recent[m.next&3]
	r.call, r.v = c, v
	m.next++
}

func (e *evaluator) newCmpSite(c *algebra.Call) *cmpSite {
	s := &cmpSite{call: c, opc: opIndex(c.Func)}
	if len(c.Args) != 2 {
		return s
	}
	a, aVar := c.Args[0].(algebra.Var)
	b, bVar := c.Args[1].(algebra.Var)
	_, aConst := c.Args[0].(algebra.Constant)
	_, bConst := c.Args[1].(algebra.Constant)
	switch {
	case aVar && bConst:
		s.memoSlot = e.slot(a) + 1
	case bVar && aConst:
		s.memoSlot = e.slot(b) + 1
	}
	if aVar && bVar {
		s.kind, s.slots = siteDateVars, [2]int{e.slot(a), e.slot(b)}
		return s
	}
	if r, flip := e.ratioSiteOf(c); r != nil {
		s.kind, s.ratio, s.flip = siteRatio, r, flip
		return s
	}
	for i := 0; i < 2; i++ {
		f, isCall := c.Args[i].(*algebra.FunctionCall)
		if !isCall || f.IRI != index.XSDDate || len(f.Args) != 1 {
			continue
		}
		v, isVar := f.Args[0].(algebra.Var)
		if !isVar {
			break
		}
		switch o := c.Args[1-i].(type) {
		case algebra.Var:
			s.kind, s.slots = siteDateCast, [2]int{e.slot(v), e.slot(o)}
		case algebra.Constant:
			s.kind, s.slots, s.castConst = siteDateCast, [2]int{e.slot(v), -1}, e.constID(o.Term)
		}
		s.flip = i == 1
		return s
	}
	for i := 0; i < 2; i++ {
		k, isConst := c.Args[1-i].(algebra.Constant)
		if !isConst {
			continue
		}
		s.flip = i == 1
		if v, isVar := c.Args[i].(algebra.Var); isVar {
			if k.Term.Kind == rdf.KindLiteral && (k.Term.Datatype == index.XSDDateTime || k.Term.Datatype == index.XSDDate) {
				s.kind, s.slots[0], s.konst = siteDate, e.slot(v), k.Term
			}
			return s
		}
		n, scale, isNum := index.InlineNumber(e.constID(k.Term))
		f, isCall := c.Args[i].(*algebra.Call)
		if !isNum || !isCall || len(f.Args) != 1 {
			return s
		}
		// SECONDS is a decimal, compared with integers and decimals held in ids; the other fields with integers.
		if (scale != 0 || !slices.Contains(fieldFuncs[:], f.Func)) && f.Func != "SECONDS" {
			return s
		}
		if v, isVar := f.Args[0].(algebra.Var); isVar {
			s.kind, s.slots[0], s.field, s.n, s.scale = siteField, e.slot(v), f.Func, n, scale
			s.fieldAt = slices.Index(fieldFuncs[:], f.Func)
		}
		return s
	}
	return s
}

// siteCompare answers a comparison operator from its site without the operands' terms where it can; ok is false
// where the general path must decide.
func (e *evaluator) siteCompare(c *algebra.Call, row []ID) (result, ok bool) {
	return e.compareAt(e.cmpSiteOf(c), row)
}

// compareAt is siteCompare with the site known: a caller that tests the same conjuncts on every row keeps their
// sites (condMemo) and skips the general test's memo lookup, the operator's dispatch and the site's lookup.
func (e *evaluator) compareAt(s *cmpSite, row []ID) (result, ok bool) {
	switch s.kind {
	case siteDate:
		return e.dateCompare(s, row)
	case siteDateVars:
		if r, ok := e.dateCompareVars(s.call.Func, row[s.slots[0]], row[s.slots[1]]); ok {
			return r, ok
		}
	case siteField:
		return e.fieldCompare(s, row)
	case siteDateCast:
		return e.dateCastCompare(s, row)
	case siteRatio:
		if r, err, ok := e.ratioCompare(s, row); ok && err == nil {
			return r, true
		}
		return false, false
	}
	return e.numberCompare(s, row)
}

// dateCastCompare is a comparison of xsd:date(?v), ?v a dateTime or date without a timezone that the index knows,
// with an xsd:date held in its id (a variable's value or a constant), which has none either: two dates without
// timezones compare as their (year, month, day) do, and the cast keeps the date as written, so neither the cast's
// term nor either key is made (a FILTER(xsd:date(?reviewDate) < ?published) over every review). ok is false for
// anything else (a timezone, 24:00:00, which is the next day, a form that is no date), which takes the general path.
func (e *evaluator) dateCastCompare(s *cmpSite, row []ID) (result, ok bool) {
	if e.t.dict == nil {
		return false, false
	}
	other := s.castConst
	if s.slots[1] >= 0 {
		other = row[s.slots[1]]
	}
	if !index.IsInlineDate(other) {
		return false, false
	}
	ov, ok := e.t.dict.DateValue(other)
	if !ok {
		return false, false
	}
	dv, ok := e.castDay(row[s.slots[0]])
	if !ok {
		return false, false
	}
	r := cmp.Compare(dv.Year, ov.Year)
	if r == 0 {
		r = cmp.Compare(dv.Month, ov.Month)
	}
	if r == 0 {
		r = cmp.Compare(dv.Day, ov.Day)
	}
	if s.flip {
		r = -r
	}
	return s.result(r)
}

// castDay is the year, month and day of xsd:date(v) for the date or dateTime without a timezone of id that the
// index knows; ok is false for anything else (a timezone, a form that is no date), which takes the general path.
// A dateTime's day comes from the column's runs (runField), which hold the column's fields (a dateTime written at
// 24:00:00 is in the column as the next day's midnight, as the cast reads it): h50's FILTER(xsd:date(?reviewDate)
// < ?published) over reviews met in subject order read a column entry per review, a cache miss each.
func (e *evaluator) castDay(id ID) (builtin.DateValue, bool) {
	if b := e.dateBlock(id); b >= 0 && !e.t.dict.DateBlocks()[b].Class.HasZone() {
		if f, ok := e.runField("DAY", id); ok {
			return builtin.DateValue{Year: runFieldAt(f, 0), Month: uint8(runFieldAt(f, 1)), Day: uint8(runFieldAt(f, 2))}, true
		}
	}
	dv, ok := e.dateValue(id)
	if !ok || dv.Class.HasZone() || (!dv.Class.IsDate() && dv.Hour == 24) {
		return builtin.DateValue{}, false
	}
	return dv, true
}

// fieldCompare is a comparison of YEAR … MINUTES of a date or dateTime the column knows (as dateFieldID reads it)
// with an integer constant held in its id: two integers compared, without the field's term being made and parsed
// again (FILTER(YEAR(?d) = 2008) over every offer). ok is false for any other value, which takes the general path.
func (e *evaluator) fieldCompare(s *cmpSite, row []ID) (result, ok bool) {
	if s.field == "SECONDS" {
		return e.secondsCompare(s, row)
	}
	if s.fieldAt <= 2 {
		// YEAR, MONTH and DAY from the column's runs (runField, as fieldID reads them): h122's DAY(?d) <= 7 over
		// reviews met in subject order read a column entry each, a cache miss, a third of its CPU.
		if f, ok := e.runField(s.field, row[s.slots[0]]); ok {
			r := cmp.Compare(int64(runFieldAt(f, s.fieldAt)), s.n)
			if s.flip {
				r = -r
			}
			return s.result(r)
		}
	}
	dv, ok := e.dateValue(row[s.slots[0]])
	if !ok || (dv.Class.IsDate() && s.fieldAt >= 3) {
		return false, false // HOURS and MINUTES of a date: whatever the general path says
	}
	r := cmp.Compare(int64(fieldOf(dv, s.fieldAt)), s.n)
	if s.flip { // the constant is the left operand
		r = -r
	}
	return s.result(r)
}

// runFieldAt is index.RunField for field i of fieldFuncs (YEAR, MONTH or DAY).
func runFieldAt(fields uint64, i int) int32 {
	switch i {
	case 0:
		return int32(fields >> 32)
	case 1:
		return int32(uint8(fields >> 24))
	}
	return int32(uint8(fields >> 16))
}

// fieldOf is dv's field i of fieldFuncs (builtin.DateValue.Field without its name).
func fieldOf(dv builtin.DateValue, i int) int32 {
	switch i {
	case 0:
		return dv.Year
	case 1:
		return int32(dv.Month)
	case 2:
		return int32(dv.Day)
	case 3:
		return int32(dv.Hour)
	}
	return int32(dv.Minute)
}

// secondsCompare is fieldCompare for SECONDS of a dateTime in the dictionary's date blocks (the column has no
// seconds): its lexical form is read in place and its seconds compared exactly, digit by digit, with the number
// n / 10^scale, without the decimal term SECONDS would make and parse. ok is false for anything else.
func (e *evaluator) secondsCompare(s *cmpSite, row []ID) (result, ok bool) {
	id := row[s.slots[0]]
	bi := e.dateBlock(id)
	if bi < 0 || e.t.dict.DateBlocks()[bi].Class.IsDate() {
		return false, false
	}
	sec, frac := builtin.ValidDateSeconds(e.t.dict.Lexical(id))
	r := compareScaled(int64(sec), frac, s.n, s.scale)
	if s.flip {
		r = -r
	}
	return s.result(r)
}

// secondsID is SECONDS of id when it is a dateTime of the dictionary's date blocks, as the id of the decimal the
// builtin writes (whole seconds, then the fraction without trailing zeros), read from the lexical form where it
// stands (secondsCompare): GROUP BY SECONDS(?d) over every offer parsed each dateTime and interned its decimal by
// its term. ok is false for other ids and for fractions of more digits than an id holds.
func (e *evaluator) secondsID(id ID) (ID, bool) {
	bi := e.dateBlock(id)
	if bi < 0 || e.t.dict.DateBlocks()[bi].Class.IsDate() {
		return 0, false
	}
	sec, frac := builtin.ValidDateSeconds(e.t.dict.Lexical(id))
	m := int64(sec)
	for i := 0; i < len(frac) && i < 4; i++ {
		m = m*10 + int64(frac[i]-'0')
	}
	return index.DecimalID(m, len(frac)) // refuses a scale above 3
}

// secondsMilli is SECONDS of a valid dateTime's lexical form in thousandths, which tell apart every SECONDS an id
// holds (secondsID); ok is false for a fraction of more digits.
func secondsMilli(lex string) (uint32, bool) {
	sec, frac := builtin.ValidDateSeconds(lex)
	if len(frac) > 3 {
		return 0, false
	}
	m := uint32(sec)
	for i := range 3 {
		m *= 10
		if i < len(frac) {
			m += uint32(frac[i] - '0')
		}
	}
	return m, true
}

// compareScaled compares the non-negative decimal whole.frac (frac: digits without trailing zeros) with
// n / 10^scale (scale <= 4).
func compareScaled(whole int64, frac string, n int64, scale int) int {
	v := whole
	for i := 0; i < scale; i++ {
		v *= 10
		if i < len(frac) {
			v += int64(frac[i] - '0')
		}
	}
	if r := cmp.Compare(v, n); r != 0 || len(frac) <= scale {
		return r
	}
	return 1 // equal in the first scale digits, and a non-zero digit follows
}

// dateCut splits a date block for one comparison with a constant: ids below lt compare less than the constant,
// ids from gt on compare greater, and those between are equal to it or not comparable (the general path decides).
type dateCut struct {
	lt, gt ID
	done   bool
}

// dateCompare is a comparison of a variable holding an id of a date block with a constant date or dateTime,
// answered by comparing the id with the block's cut for that constant; ok is false where the general path must
// decide. Within a block the ids ascend with the values, so the comparison with a constant is "less" on a prefix and
// "greater" on a suffix (a value without a timezone is not comparable with one that has one within 14 hours, which
// only widens the middle); the cut is found once per block by binary search with the comparison itself.
func (e *evaluator) dateCompare(s *cmpSite, row []ID) (result, ok bool) {
	id := row[s.slots[0]]
	if index.IsInlineDate(id) {
		return e.inlineDateCompare(s, id)
	}
	bi := e.dateBlock(id)
	if bi < 0 || bi >= len(s.cuts) {
		return false, false
	}
	cut := &s.cuts[bi]
	if !cut.done {
		b := e.t.dict.DateBlocks()[bi]
		ck := builtin.NewKey(s.konst)
		n := int(b.Hi-b.Lo) + 1
		cmpAt := func(i int) (int, error) {
			vk := builtin.NewKey(e.t.dict.Term(b.Lo + ID(i)))
			return builtin.CompareKeys(&vk, &ck)
		}
		lt := sort.Search(n, func(i int) bool { r, err := cmpAt(i); return err != nil || r >= 0 })
		gt := lt + sort.Search(n-lt, func(i int) bool { r, err := cmpAt(lt + i); return err == nil && r > 0 })
		*cut = dateCut{lt: b.Lo + ID(lt), gt: b.Lo + ID(gt), done: true}
	}
	var r int // the variable's value against the constant
	switch {
	case id < cut.lt:
		r = -1
	case id >= cut.gt:
		r = 1
	default:
		return false, false
	}
	if s.flip {
		r = -r
	}
	return s.result(r)
}

// inlineDateCompare is dateCompare for a variable holding an xsd:date in its id (YYYY-MM-DD without a timezone)
// against a constant xsd:date of that form: two dates without timezones compare as their (year, month, day) do,
// and such ids ascend with (year, month, day), so the ids compare as the values (h81's FILTER(?date >=
// "2006-01-01"^^xsd:date) over every dated resource parsed each date and the constant). A form that is no date (31
// February, held as written), a constant with a timezone or of another type take the general path.
func (e *evaluator) inlineDateCompare(s *cmpSite, id ID) (result, ok bool) {
	if e.t.dict == nil {
		return false, false
	}
	if !s.inlineDone {
		s.inlineDone = true
		if k, isInline := index.InlineID(s.konst); isInline && index.IsInlineDate(k) {
			if _, valid := e.t.dict.DateValue(k); valid {
				s.inlineConst = k
			}
		}
	}
	if s.inlineConst == 0 {
		return false, false
	}
	if _, valid := e.t.dict.DateValue(id); !valid {
		return false, false
	}
	r := cmp.Compare(id, s.inlineConst)
	if s.flip {
		r = -r
	}
	return s.result(r)
}

// dateCompareVars compares two variables' values by their ids when both are in one date block whose values are
// distinct (index.DateBlock.Distinct): there the id order is the value order, strictly, and values of one class
// always compare. ok is false otherwise.
func (e *evaluator) dateCompareVars(op string, x, y ID) (result, ok bool) {
	bi := e.dateBlock(x)
	if bi < 0 || bi != e.dateBlock(y) || !e.t.dict.DateBlocks()[bi].Distinct {
		if r, ok := e.dateFieldsCompare(x, y); ok {
			return opResult(op, r)
		}
		return false, false
	}
	switch {
	case x < y:
		return opResult(op, -1)
	case x > y:
		return opResult(op, 1)
	}
	return opResult(op, 0)
}

// result is opResult for s's operator, read from opTable by the row newCmpSite found.
func (s *cmpSite) result(r int) (result, ok bool) {
	if s.opc == 0 {
		return false, false
	}
	return opTable[s.opc][r+1], true
}

// opResult is a comparison operator's answer when its left operand compares r (-1, 0, 1) with its right one.
func opResult(op string, r int) (result, ok bool) {
	switch op {
	case "<":
		return r < 0, true
	case "<=":
		return r <= 0, true
	case ">":
		return r > 0, true
	case ">=":
		return r >= 0, true
	case "=":
		return r == 0, true
	case "!=":
		return r != 0, true
	}
	return false, false
}

// valueBlocks are the id ranges [lo, hi) within which ids ascend with their values: the dictionary's date blocks,
// then the inline numbers and dates by kind and scale (inlineBlocks).
func (e *evaluator) valueBlocks() [][2]ID {
	if e.blocks != nil {
		return e.blocks
	}
	var bs [][2]ID
	if e.t.dict != nil {
		for _, b := range e.t.dict.DateBlocks() {
			bs = append(bs, [2]ID{b.Lo, b.Hi + 1})
		}
	}
	for i := 0; i+1 < len(inlineBlocks); i++ {
		bs = append(bs, [2]ID{inlineBlocks[i], inlineBlocks[i+1]})
	}
	e.blocks = bs
	return bs
}

// rangeShare is the share of the triples of pattern t (of BGP x) left by the FILTER conjuncts over x that compare
// its object with a constant, when t starts the join as "?s p ?o" and valueRanges can narrow it: the planner's
// estimate of a pattern such as "?offer validTo ?to" under FILTER(?to < …), which may leave nothing to join.
func (e *evaluator) rangeShare(x *algebra.BGP, i int, bound varset) float64 {
	t := x.Triples[i]
	conj := e.filterConj[x]
	if len(conj) == 0 || !t.S.IsVar() || t.P.IsVar() || !t.O.IsVar() || bound.has(e.slot(t.S.Var)) ||
		bound.has(e.slot(t.O.Var)) || t.S.Var == t.O.Var {
		return 1
	}
	key := shareKey{x, i, e.activeName()}
	if s, ok := e.shares[key]; ok {
		return s
	}
	share := 1.0
	if p := e.constID(t.P.Term); p != 0 {
		row := make([]ID, e.nvars)
		var err error
		total, kept := 0, 0
		for _, gr := range e.active {
			if gr.f != nil {
				total = 0
				break
			}
			m := gr.g.Match(0, p, 0)
			total += m.Len()
			ranges, _, _ := e.valueRanges(m, e.slot(t.O.Var), conj, row, &err)
			for _, r := range ranges {
				kept += r.Len()
			}
		}
		if err == nil && total > 0 {
			share = float64(kept) / float64(total)
		}
	}
	if e.shares == nil {
		e.shares = map[shareKey]float64{}
	}
	e.shares[key] = share
	return share
}

// shareKey names a pattern of a BGP in the graphs active when it was planned.
type shareKey struct {
	x     *algebra.BGP
	i     int
	graph ID
}

// minMaxByID adds id to a MIN (min) or MAX aggregate's state without its term when id and the best value so far
// are in one date block: there ids ascend as OrderCompare orders their terms, ties included (index.DateBlock), so
// comparing ids is comparing the terms. It reports false when the general path must take the value.
func (e *evaluator) minMaxByID(s *aggState, min bool, id ID) bool {
	bi := e.orderBlock(id)
	if bi < 0 {
		return false
	}
	switch {
	case s.best == nil && s.bestID == 0:
		s.bestID = id
	case s.bestID != 0 && e.orderBlock(s.bestID) == bi:
		if (min && id < s.bestID) || (!min && id > s.bestID) {
			s.bestID = id
		}
	default:
		return false
	}
	return true
}

// equalHalves is ">=" and "<=" with the operands of the comparison c ("="), made once per query: where a block's
// ids ascend with values that equal only when they compare equal, c holds on the interval where both do
// (valueRanges). For "!=" they are "<" and ">", each holding at one end of a block, c where either does.
func (e *evaluator) equalHalves(c *algebra.Call) *[2]*algebra.Call {
	if h := e.eqHalves[c]; h != nil {
		return h
	}
	if e.eqHalves == nil {
		e.eqHalves = map[*algebra.Call]*[2]*algebra.Call{}
	}
	h := &[2]*algebra.Call{{Func: ">=", Args: c.Args}, {Func: "<=", Args: c.Args}}
	if c.Func == "!=" {
		h = &[2]*algebra.Call{{Func: "<", Args: c.Args}, {Func: ">", Args: c.Args}}
	}
	e.eqHalves[c] = h
	return h
}

// fieldWindow is the box of local (year, month, day, hour, minute) readings that FILTER conjuncts comparing
// YEAR … MINUTES of one variable with integer constants leave, each field an inclusive range.
type fieldWindow struct{ lo, hi [5]int64 }

var (
	fieldFuncs  = [5]string{"YEAR", "MONTH", "DAY", "HOURS", "MINUTES"}
	fieldDomain = [5][2]int64{{-builtin.DateYearLimit, builtin.DateYearLimit}, {1, 12}, {1, 31}, {0, 23}, {0, 59}}
	// flippedOp is a comparison operator with its operands swapped.
	flippedOp = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
)

// fieldWindowOf collects the conjuncts "FIELD(?o) op n" (either operand order, n an integer held in its id) over
// the variable in slot oslot; ok is false when there are none. Every value they let pass has a field reading in
// the window; values of any other kind fail them all (YEAR of a number is an error).
func (e *evaluator) fieldWindowOf(oslot int, conj []algebra.Expr) (w fieldWindow, ok bool) {
	for f := range w.lo {
		w.lo[f], w.hi[f] = fieldDomain[f][0], fieldDomain[f][1]
	}
	for _, c := range conj {
		call, isCall := c.(*algebra.Call)
		if !isCall || len(call.Args) != 2 {
			continue
		}
		op, fx, kx := call.Func, call.Args[0], call.Args[1]
		if _, isConst := fx.(algebra.Constant); isConst {
			op, fx, kx = flippedOp[op], kx, fx
		}
		fc, isCall := fx.(*algebra.Call)
		k, isConst := kx.(algebra.Constant)
		if !isCall || !isConst || len(fc.Args) != 1 {
			continue
		}
		v, isVar := fc.Args[0].(algebra.Var)
		f := slices.Index(fieldFuncs[:], fc.Func)
		if !isVar || f < 0 || e.slot(v) != oslot {
			continue
		}
		n, scale, isNum := index.InlineNumber(e.constID(k.Term))
		if !isNum || scale != 0 {
			continue
		}
		switch op {
		case "=":
			w.lo[f], w.hi[f] = max(w.lo[f], n), min(w.hi[f], n)
		case "<":
			w.hi[f] = min(w.hi[f], n-1)
		case "<=":
			w.hi[f] = min(w.hi[f], n)
		case ">":
			w.lo[f] = max(w.lo[f], n+1)
		case ">=":
			w.lo[f] = max(w.lo[f], n)
		default:
			continue
		}
		ok = true
	}
	return w, ok
}

// bounds is the window as wall-clock seconds (as if in UTC): from its lowest reading, the tuple of the fields' lower
// bounds, to the end of the minute of its highest. A day past its month's end moves into the next month
// (time.Date), which widens the end and keeps the start below every reading of the window, whose day is as late.
func (w *fieldWindow) bounds() (from, to int64, ok bool) {
	date := func(t [5]int64) time.Time {
		return time.Date(int(t[0]), time.Month(t[1]), int(t[2]), int(t[3]), int(t[4]), 0, 0, time.UTC)
	}
	from, to = date(w.lo).Unix(), date(w.hi).Unix()+60
	return from, to, from < to
}

// tzSlack bounds how far a value's wall clock is from its instant: the largest offset a timezone may have (the
// reading accepts up to ±14:59).
const tzSlack = 15 * 3600

// windowRows narrows rows[lo:hi], the rows of value block b (valueBlocks) ordered by id, to those whose value can
// have field readings in w. In a dictionary block ids ascend with the instant (Sec), which is the wall clock for
// values without a timezone and within tzSlack of it for the others; inline dates' ids ascend with (year, month,
// day). Numbers have no fields: none of their rows can pass.
func (e *evaluator) windowRows(rows [][3]ID, lo, hi int, b [2]ID, w fieldWindow) (int, int) {
	for f := range w.lo {
		if w.lo[f] > w.hi[f] { // no reading has such a field
			return lo, lo
		}
	}
	switch {
	case index.IsInlineDate(b[0]):
		if w.hi[0] < 0 || w.lo[0] > 9999 {
			return lo, lo
		}
		from := index.InlineDateBound(max(w.lo[0], 0), w.lo[1], w.lo[2])
		to := index.InlineDateBound(min(w.hi[0], 9999), w.hi[1], w.hi[2]) + 1
		a := lo + sort.Search(hi-lo, func(i int) bool { return rows[lo+i][1] >= from })
		return a, a + sort.Search(hi-a, func(i int) bool { return rows[a+i][1] >= to })
	case index.IsInline(b[0]):
		return lo, lo
	}
	bi := e.dateBlock(b[0])
	if bi < 0 {
		return lo, hi
	}
	class := e.t.dict.DateBlocks()[bi].Class
	from, to, ok := w.bounds() // a date reads 00:00, which the window's hours and minutes allow or not
	if !ok {
		return lo, lo
	}
	if class.HasZone() {
		from, to = from-tzSlack, to+tzSlack
	}
	sec := func(i int) int64 {
		v, _ := builtin.DateValueOf(e.t.term(rows[i][1]).Value, class.IsDate())
		return v.Sec
	}
	a := lo + sort.Search(hi-lo, func(i int) bool { return sec(lo+i) >= from })
	return a, a + sort.Search(hi-a, func(i int) bool { return sec(a+i) >= to })
}

// classConstant reports whether c, a FILTER conjunct over the object ?o in slot oslot, has one value over all the
// ids of a dictionary date block, so that valueRanges may test it on one row of the block and keep or drop the
// whole block. A block holds valid dateTimes (or dates with a timezone) of one builtin.DateClass: one datatype,
// literals, and a timezone on all or on none. What depends on nothing else is constant over it: DATATYPE(?o) or
// LANG(?o) compared with a constant; isIRI, isBlank, isLiteral, isNumeric of ?o; TZ(?o) compared with "" (TZ is
// "" exactly without a timezone, and never an error on a valid form, so d26's FILTER(TZ(?t) != "") holds on the
// zoned blocks and on no other); and !, && and || of those. Nothing in it is an error on a block's ids.
func (e *evaluator) classConstant(c algebra.Expr, oslot int) bool {
	call, ok := c.(*algebra.Call)
	if !ok {
		return false
	}
	isO := func(x algebra.Expr) bool {
		v, ok := x.(algebra.Var)
		return ok && e.slot(v) == oslot
	}
	switch call.Func {
	case "!", "&&", "||":
		for _, a := range call.Args {
			if !e.classConstant(a, oslot) {
				return false
			}
		}
		return len(call.Args) > 0
	case "ISIRI", "ISBLANK", "ISLITERAL", "ISNUMERIC":
		return len(call.Args) == 1 && isO(call.Args[0])
	case "=", "!=":
		if len(call.Args) != 2 {
			return false
		}
		for i, a := range call.Args {
			f, ok := a.(*algebra.Call)
			k, isConst := call.Args[1-i].(algebra.Constant)
			if !ok || !isConst || len(f.Args) != 1 || !isO(f.Args[0]) {
				continue
			}
			switch f.Func {
			case "DATATYPE", "LANG":
				return true
			case "TZ":
				// Any other string may be one zoned form's TZ and not another's.
				return k.Term.Kind == rdf.KindLiteral && k.Term.Value == "" && k.Term.Lang == "" &&
					(k.Term.Datatype == "" || k.Term.Datatype == rdf.XSDString)
			}
		}
	}
	return false
}

// dateFieldsCompare compares two values by their fields (YEAR … MINUTES) when both are dates, or both dateTimes,
// without a timezone: a date block's id or an inline date (the dictionary's column), or a value the query computed
// (an overlay or scratch id, its term parsed once: overlayDate). Without a timezone a value is its wall clock read
// as if in UTC, and DateValueOf's fields are that reading's calendar fields (24:00:00 already the next day's
// midnight, in the column too), so the fields' order is the values' order wherever they differ; two dates with
// equal fields are equal. Two dateTimes equal to the minute are left to the general path (the column has no
// seconds), as are values with a timezone, values of two classes (a type error or XPath's ±14 hours) and anything
// that is no valid date. h165 compared a computed xsd:dateTime(CONCAT(STR(?published), "T00:00:00")) with each
// review's dateTime, parsing both terms into keys per review.
func (e *evaluator) dateFieldsCompare(x, y ID) (int, bool) {
	a, ok := e.anyDateValue(x)
	if !ok || a.Class.HasZone() {
		return 0, false
	}
	b, ok := e.anyDateValue(y)
	if !ok || b.Class != a.Class {
		return 0, false
	}
	r := cmp.Compare(a.Year, b.Year)
	for _, f := range [...][2]uint8{{a.Month, b.Month}, {a.Day, b.Day}, {a.Hour, b.Hour}, {a.Minute, b.Minute}} {
		if r != 0 {
			return r, true
		}
		r = cmp.Compare(f[0], f[1])
	}
	if r == 0 && !a.Class.IsDate() {
		return 0, false
	}
	return r, true
}

// anyDateValue is dateValue, or for an id the query made (an overlay's or a scratch id's term) the value of its
// term when that is a valid xsd:dateTime or xsd:date (overlayDate).
func (e *evaluator) anyDateValue(id ID) (builtin.DateValue, bool) {
	switch {
	case id == 0:
		return builtin.DateValue{}, false
	case isScratch(id):
		return termDate(e.t.term(id))
	case e.t.isOverlay(id):
		return e.t.overlayDate(id)
	}
	return e.dateValue(id)
}

// termDate is DateValueOf of t when it is an xsd:dateTime or xsd:date literal.
func termDate(t rdf.Term) (builtin.DateValue, bool) {
	if t.Kind != rdf.KindLiteral || t.Datatype != index.XSDDateTime && t.Datatype != index.XSDDate {
		return builtin.DateValue{}, false
	}
	return builtin.DateValueOf(t.Value, t.Datatype == index.XSDDate)
}

// overlayDate is termDate of an overlay id's term, parsed once: a BIND's computed dateTime is one overlay term
// for many rows (bindMemo), each compared with the row's own date. The values sit in a slice beside the overlay's
// terms (by id, no hashing per row: h165 meets its computed dates in no order), charged as it grows.
func (t *terms) overlayDate(id ID) (builtin.DateValue, bool) {
	i := int(id - t.base - 1)
	if i >= len(t.dates) {
		n := max(len(t.extra), 2*len(t.dates))
		t.bytes += int64(n-len(t.dates)) * int64(unsafe.Sizeof(overlayDateValue{}))
		t.dates = append(t.dates, make([]overlayDateValue, n-len(t.dates))...)
	}
	d := &t.dates[i]
	if !d.read {
		d.v, d.ok = termDate(t.extra[i])
		d.read = true
	}
	return d.v, d.ok
}

// overlayDateValue is an overlay term's date value once read, ok false when it is no valid date or dateTime.
type overlayDateValue struct {
	v        builtin.DateValue
	ok, read bool
}

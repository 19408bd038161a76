package builtin

// The comparison operators, the dateTime reading, SUBSTR and big-number arithmetic as they were before the fast
// paths of session 7 of issue 14 (Key, the allocation-free dateTime parser, SUBSTR by slicing, floats without
// big.Rat), kept as the reference those fast paths are tested against.

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

func refParseDateTime(t rdf.Term) (dateTime, bool) {
	if t.Kind != rdf.KindLiteral || (t.Datatype != xsdDT && t.Datatype != xsdDate) {
		return dateTime{}, false
	}
	return refParseDateTimeLex(t.Value, t.Datatype == xsdDate)
}

func refEqual(a, b rdf.Term) (bool, error) {
	if a.Kind == rdf.KindLiteral && b.Kind == rdf.KindLiteral {
		if x, ok := toFixed(a); ok {
			if y, ok := toFixed(b); ok {
				if c, ok := x.cmp(y); ok {
					return c == 0, nil
				}
			}
		}
		if x, ok := toNum(a); ok {
			if y, ok := toNum(b); ok {
				c, ordered := cmpNum(x, y)
				return ordered && c == 0, nil
			}
		}
		if isStringLike(a) && isStringLike(b) {
			return a.Value == b.Value, nil
		}
		if x, ok := boolValue(a); ok {
			if y, ok := boolValue(b); ok {
				return x == y, nil
			}
		}
		if x, ok := refParseDateTime(a); ok {
			if y, ok := refParseDateTime(b); ok && x.isDate == y.isDate {
				c, err := x.compare(y)
				return c == 0, err
			}
		}
		if a.Equal(b) {
			return true, nil
		}
		// A language-tagged string's value is the pair (text, tag), which no other literal has: unequal, not an
		// error (the LangTagAwareness behaviour of the SPARQL 1.0 open-world tests).
		if a.Datatype == rdf.RDFLangString || b.Datatype == rdf.RDFLangString {
			return false, nil
		}
		if knownDatatype(a.Datatype) && knownDatatype(b.Datatype) && validLexical(a) && validLexical(b) {
			return false, nil
		}
		return false, ErrType
	}
	return a.Equal(b), nil
}

func refCompare(a, b rdf.Term) (int, error) {
	if a.Kind != rdf.KindLiteral || b.Kind != rdf.KindLiteral {
		return 0, ErrType
	}
	if x, ok := toFixed(a); ok {
		if y, ok := toFixed(b); ok {
			if c, ok := x.cmp(y); ok {
				return c, nil
			}
		}
	}
	if x, ok := toNum(a); ok {
		if y, ok := toNum(b); ok {
			c, ordered := cmpNum(x, y)
			if !ordered {
				return 0, ErrType
			}
			return c, nil
		}
		return 0, ErrType
	}
	if isStringLike(a) && isStringLike(b) {
		return strings.Compare(a.Value, b.Value), nil
	}
	if x, ok := boolValue(a); ok {
		if y, ok := boolValue(b); ok {
			return b2i(x) - b2i(y), nil
		}
	}
	if x, ok := refParseDateTime(a); ok {
		if y, ok := refParseDateTime(b); ok && x.isDate == y.isDate {
			return x.compare(y)
		}
	}
	return 0, ErrType
}

// refOrderCompare is ORDER BY's order as conformance.md states it (since session 21, when NaN, zeros written
// several ways and big numbers near a double stopped making cycles), written without Keys: numbers by exact
// value with NaN last, then the < operator, then for literals it cannot compare: strings by text, groups,
// datatypes, valid forms first, dates by instant; equal values by lexical form, language tag and datatype.
func refOrderCompare(a, b rdf.Term) int {
	if a.Kind != b.Kind {
		return rank(a.Kind) - rank(b.Kind)
	}
	switch a.Kind {
	case rdf.KindNone:
		return 0
	case rdf.KindBlank, rdf.KindIRI:
		return strings.Compare(a.Value, b.Value)
	}
	x, okx := refOrderNumberOf(a)
	y, oky := refOrderNumberOf(b)
	if c, err := refCompare(a, b); okx && oky {
		if c := x.cmp(y); c != 0 {
			return c
		}
	} else if err == nil {
		if c != 0 {
			return c
		}
	} else if isString(a) && isString(b) {
		if c := strings.Compare(a.Value, b.Value); c != 0 {
			return c
		}
	} else {
		if ga, gb := refLiteralGroup(a), refLiteralGroup(b); ga != gb {
			return ga - gb
		}
		if a.Datatype != b.Datatype {
			return strings.Compare(a.Datatype, b.Datatype)
		}
		da, oka := refOrderInstant(a)
		db, okb := refOrderInstant(b)
		if oka && okb {
			if c := da.Compare(db); c != 0 {
				return c
			}
		} else if va, vb := refValidForm(a) || oka, refValidForm(b) || okb; va != vb {
			return b2i(vb) - b2i(va)
		}
	}
	if c := strings.Compare(a.Value, b.Value); c != 0 {
		return c
	}
	if c := strings.Compare(strings.ToLower(a.Lang), strings.ToLower(b.Lang)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Lang, b.Lang); c != 0 {
		return c
	}
	return strings.Compare(a.Datatype, b.Datatype)
}

// refOrderNumber is a number's place in ORDER BY's order: NaN, an infinity's sign, or an exact value.
type refOrderNumber struct {
	nan     bool
	inf     int
	r       *big.Rat
	negZero bool // a float's or double's -0, before the other zeros
}

func refOrderNumberOf(t rdf.Term) (refOrderNumber, bool) {
	n, ok := toNum(t)
	switch {
	case !ok:
		return refOrderNumber{}, false
	case n.kind < kFloat:
		return refOrderNumber{r: n.r}, true
	case math.IsNaN(n.f):
		return refOrderNumber{nan: true}, true
	case math.IsInf(n.f, 1):
		return refOrderNumber{inf: 1}, true
	case math.IsInf(n.f, -1):
		return refOrderNumber{inf: -1}, true
	}
	return refOrderNumber{r: new(big.Rat).SetFloat64(n.f), negZero: n.f == 0 && math.Signbit(n.f)}, true
}

func (x refOrderNumber) cmp(y refOrderNumber) int {
	switch {
	case x.nan || y.nan:
		return b2i(x.nan) - b2i(y.nan)
	case x.inf != 0 || y.inf != 0:
		return x.inf - y.inf
	}
	if c := x.r.Cmp(y.r); c != 0 {
		return c
	}
	return b2i(y.negZero) - b2i(x.negZero)
}

// refOrderInstant is a date's or dateTime's instant (read as UTC without a timezone), or for an xsd:date
// YYYY-MM-DD past its month's end (an id of the index holds it, ordered as written) the month's last day.
func refOrderInstant(t rdf.Term) (time.Time, bool) {
	if d, ok := refParseDateTime(t); ok {
		return d.t, true
	}
	if t.Datatype != xsdDate {
		return time.Time{}, false
	}
	tm, err := time.Parse("2006-01-02", t.Value[:min(len(t.Value), 8)]+"01")
	if err != nil || len(t.Value) != 10 || t.Value[7] != '-' {
		return time.Time{}, false
	}
	d, err := strconv.Atoi(t.Value[8:])
	if err != nil || d < 1 || d > 31 || t.Value[8] == '+' || t.Value[8] == '-' {
		return time.Time{}, false
	}
	return tm.AddDate(0, 0, min(d, tm.AddDate(0, 1, -1).Day())-1), true
}

// refValidForm reports whether a literal that is no string has a valid form of a datatype < compares.
func refValidForm(t rdf.Term) bool {
	_, isBool := boolValue(t)
	_, isDate := refParseDateTime(t)
	return isBool || isDate || IsNumeric(t)
}

func refLiteralGroup(t rdf.Term) int {
	switch {
	case IsNumeric(t):
		return 0
	case isString(t):
		return 1
	}
	return 2
}

func refParseDateTimeLex(s string, isDate bool) (dateTime, bool) {
	var d dateTime
	d.isDate = isDate
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	// Split off the timezone.
	tz := ""
	switch {
	case strings.HasSuffix(s, "Z"):
		tz, s = "Z", s[:len(s)-1]
	case len(s) > 6 && (s[len(s)-6] == '+' || s[len(s)-6] == '-') && s[len(s)-3] == ':':
		tz, s = s[len(s)-6:], s[:len(s)-6]
	}
	datePart, timePart := s, ""
	if !isDate {
		var ok bool
		datePart, timePart, ok = strings.Cut(s, "T")
		if !ok {
			return d, false
		}
	}
	ymd := strings.Split(datePart, "-")
	if len(ymd) != 3 || len(ymd[0]) < 4 || len(ymd[1]) != 2 || len(ymd[2]) != 2 {
		return d, false
	}
	year, err1 := strconv.Atoi(ymd[0])
	month, err2 := strconv.Atoi(ymd[1])
	day, err3 := strconv.Atoi(ymd[2])
	if err1 != nil || err2 != nil || err3 != nil || month < 1 || month > 12 || day < 1 || day > 31 {
		return d, false
	}
	if neg {
		year = -year
	}
	hour, min := 0, 0
	if !isDate {
		hms := strings.Split(timePart, ":")
		if len(hms) != 3 || len(hms[0]) != 2 || len(hms[1]) != 2 || len(hms[2]) < 2 {
			return d, false
		}
		var err error
		if hour, err = strconv.Atoi(hms[0]); err != nil || hour > 24 {
			return d, false
		}
		if min, err = strconv.Atoi(hms[1]); err != nil || min > 59 {
			return d, false
		}
		secStr, frac, hasFrac := strings.Cut(hms[2], ".")
		if len(secStr) != 2 || !digits(secStr) || (hasFrac && !digits(frac)) {
			return d, false
		}
		d.sec, _ = strconv.Atoi(secStr)
		if d.sec > 59 || (hour == 24 && (min != 0 || d.sec != 0 || strings.Trim(frac, "0") != "")) {
			return d, false
		}
		d.frac = frac
	}
	nanos := 0
	if d.frac != "" {
		f := (d.frac + "000000000")[:9]
		nanos, _ = strconv.Atoi(f)
	}
	loc := time.UTC
	if tz != "" {
		d.hasTZ = true
		if tz != "Z" {
			h, err1 := strconv.Atoi(tz[1:3])
			m, err2 := strconv.Atoi(tz[4:6])
			if err1 != nil || err2 != nil || h > 14 || m > 59 {
				return d, false
			}
			d.tzMin = h*60 + m
			if tz[0] == '-' {
				d.tzMin = -d.tzMin
			}
		}
		loc = time.FixedZone("", d.tzMin*60)
	}
	tm := time.Date(year, time.Month(month), day, hour, min, d.sec, nanos, loc)
	if tm.Day() != day && hour != 24 {
		return d, false // 31 February and friends
	}
	d.t = tm.UTC()
	if !d.hasTZ {
		d.t = time.Date(year, time.Month(month), day, hour, min, d.sec, nanos, time.UTC)
	}
	return d, true
}

func (a dateTime) refLocal() time.Time {
	if !a.hasTZ {
		return a.t
	}
	return a.t.In(time.FixedZone("", a.tzMin*60))
}
func refSubstr(args []rdf.Term) (rdf.Term, error) {
	s := args[0]
	if !isString(s) {
		return rdf.Term{}, ErrType
	}
	start, ok := toNum(args[1])
	if !ok {
		return rdf.Term{}, ErrType
	}
	runes := []rune(s.Value)
	// fn:substring: characters at positions p with round(start) <= p < round(start) + round(len).
	st := xpathRound(start.float())
	end := math.Inf(1)
	if len(args) == 3 {
		l, ok := toNum(args[2])
		if !ok {
			return rdf.Term{}, ErrType
		}
		end = st + xpathRound(l.float())
	}
	var b strings.Builder
	for i, r := range runes {
		p := float64(i + 1)
		if p >= st && p < end {
			b.WriteRune(r)
		}
	}
	s.Value = b.String()
	return s, nil
}

// refArithBig is arithBig before toNumFloat.
func refArithBig(op byte, a, b rdf.Term) (rdf.Term, error) {
	x, ok1 := toNum(a)
	y, ok2 := toNum(b)
	if !ok1 || !ok2 {
		return rdf.Term{}, ErrType
	}
	x, y = promote(x, y)
	if x.kind >= kFloat {
		var f float64
		switch op {
		case '+':
			f = x.f + y.f
		case '-':
			f = x.f - y.f
		case '*':
			f = x.f * y.f
		case '/':
			f = x.f / y.f
		}
		if x.kind == kFloat {
			f = float64(float32(f))
		}
		return num{kind: x.kind, f: f}.term(), nil
	}
	r := new(big.Rat)
	k := x.kind
	switch op {
	case '+':
		r.Add(x.r, y.r)
	case '-':
		r.Sub(x.r, y.r)
	case '*':
		r.Mul(x.r, y.r)
	case '/':
		if y.r.Sign() == 0 {
			return rdf.Term{}, ErrType
		}
		r.Quo(x.r, y.r)
		k = kDecimal
		if !r.IsInt() && !finiteDecimal(r) {
			// Cut to the decimal precision (toward zero, as Oxigraph's fixed-point decimals do) so later
			// arithmetic works on the value that was printed.
			r = truncDecimal(r)
		}
	}
	return num{kind: k, r: r}.term(), nil
}

package builtin

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// dateTime is a parsed xsd:dateTime or xsd:date. Values without a timezone are kept as if in UTC with hasTZ false;
// comparing one with and one without follows XPath's ±14 hour rule.
type dateTime struct {
	t      time.Time // in UTC when hasTZ
	hasTZ  bool
	tzMin  int    // offset in minutes
	frac   string // fractional seconds digits as written, for SECONDS
	sec    int
	isDate bool
}

func parseDateTime(t rdf.Term) (dateTime, bool) {
	if t.Kind != rdf.KindLiteral || (t.Datatype != xsdDT && t.Datatype != xsdDate) {
		return dateTime{}, false
	}
	return parseDateTimeLex(t.Value, t.Datatype == xsdDate)
}

// parseDateTimeLex reads the lexical form without allocating: ORDER BY, MIN/MAX and FILTERs on dates parse
// every row's value (TestParseDateTimeMatchesReference holds it to the reading it replaced).
func parseDateTimeLex(s string, isDate bool) (dateTime, bool) {
	if d, ok := parseCommonDateTime(s, isDate); ok {
		return d, true
	}
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
	ys, rest, ok1 := strings.Cut(datePart, "-")
	ms, ds, ok2 := strings.Cut(rest, "-")
	if !ok1 || !ok2 || strings.Contains(ds, "-") || len(ys) < 4 || len(ms) != 2 || len(ds) != 2 {
		return d, false
	}
	year, err1 := strconv.Atoi(ys)
	month, err2 := strconv.Atoi(ms)
	day, err3 := strconv.Atoi(ds)
	if err1 != nil || err2 != nil || err3 != nil || month < 1 || month > 12 || day < 1 || day > 31 {
		return d, false
	}
	if neg {
		year = -year
	}
	hour, min := 0, 0
	if !isDate {
		hs, rest, ok1 := strings.Cut(timePart, ":")
		mins, ss, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 || strings.Contains(ss, ":") || len(hs) != 2 || len(mins) != 2 || len(ss) < 2 {
			return d, false
		}
		var err error
		if hour, err = strconv.Atoi(hs); err != nil || hour > 24 {
			return d, false
		}
		if min, err = strconv.Atoi(mins); err != nil || min > 59 {
			return d, false
		}
		secStr, frac, hasFrac := strings.Cut(ss, ".")
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
	for i := 0; i < 9; i++ { // the first nine fractional digits, padded with zeros
		nanos *= 10
		if i < len(d.frac) {
			nanos += int(d.frac[i] - '0')
		}
	}
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
	}
	// The wall-clock reading as if in UTC; a fixed offset only moves the instant, so the calendar check and the
	// normalisation are the same as in the value's own zone.
	tm := time.Date(year, time.Month(month), day, hour, min, d.sec, nanos, time.UTC)
	if tm.Day() != day && hour != 24 {
		return d, false // 31 February and friends
	}
	d.t = tm
	if d.hasTZ {
		d.t = tm.Add(-time.Duration(d.tzMin) * time.Minute)
	}
	return d, true
}

// parseCommonDateTime reads the forms nearly all data uses, "YYYY-MM-DDThh:mm:ss" with or without "Z", and a date
// "YYYY-MM-DD",
// digit by digit: the general reading cut and converted each field through strings.Cut and strconv.Atoi, a third of
// a FILTER over every offer's validFrom. ok is false for anything else, which the general reading then takes
// (invalid forms included, so both agree on what is valid).
func parseCommonDateTime(s string, isDate bool) (dateTime, bool) {
	n := 10
	if !isDate {
		n = 19
		if len(s) == 20 && s[19] == 'Z' {
			n = 20
		}
	}
	if len(s) != n || s[4] != '-' || s[7] != '-' {
		return dateTime{}, false
	}
	num := func(i, w int) (int, bool) {
		v := 0
		for _, c := range []byte(s[i : i+w]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	if !ok1 || !ok2 || !ok3 || month < 1 || month > 12 || day < 1 || day > 31 {
		return dateTime{}, false
	}
	d := dateTime{isDate: isDate}
	hour, min := 0, 0
	if !isDate {
		if s[10] != 'T' || s[13] != ':' || s[16] != ':' {
			return dateTime{}, false
		}
		var ok4, ok5, ok6 bool
		hour, ok4 = num(11, 2)
		min, ok5 = num(14, 2)
		d.sec, ok6 = num(17, 2)
		if !ok4 || !ok5 || !ok6 || hour > 23 || min > 59 || d.sec > 59 {
			return dateTime{}, false
		}
		d.hasTZ = n == 20
	}
	tm := time.Date(year, time.Month(month), day, hour, min, d.sec, 0, time.UTC)
	if tm.Day() != day {
		return dateTime{}, false
	}
	d.t = tm
	return d, true
}

func (a dateTime) compare(b dateTime) (int, error) {
	if a.hasTZ == b.hasTZ {
		return a.t.Compare(b.t), nil
	}
	// One value lacks a timezone: it may be anywhere within ±14 hours of its UTC reading.
	const window = 14 * time.Hour
	if a.hasTZ {
		c, err := b.compare(a)
		return -c, err
	}
	switch {
	case a.t.Add(window).Before(b.t):
		return -1, nil
	case a.t.Add(-window).After(b.t):
		return 1, nil
	}
	return 0, ErrType
}

// local returns the wall-clock fields as written (before UTC normalisation).
func (a dateTime) local() time.Time {
	if !a.hasTZ {
		return a.t
	}
	// The fields of the instant in its own offset, read in UTC: no time.Location to allocate per value.
	return a.t.Add(time.Duration(a.tzMin) * time.Minute)
}

// DateValue is what the SPARQL index keeps of a valid xsd:dateTime or xsd:date literal in the dictionary (see
// DateValueOf): its value order, and the fields YEAR to MINUTES return, so that neither needs the lexical form.
type DateValue struct {
	// Class separates the values comparison does not order against each other in one pass: dateTimes and dates
	// (never comparable), and values with and without a timezone (comparable only outside XPath's ±14 hour
	// window). Within a class, two values compare as (Sec, Nsec) do.
	Class DateClass
	Sec   int64 // seconds since 1970-01-01T00:00:00Z of the instant, or of the wall-clock reading as if in UTC
	Nsec  int32
	// Year … Minute are YEAR(), MONTH(), DAY(), HOURS() and MINUTES() of the value.
	Year                     int32
	Month, Day, Hour, Minute uint8
}

// DateClass is DateValue.Class: bit 0 a timezone, bit 1 an xsd:date.
type DateClass uint8

// IsDate reports whether the class is of xsd:dates, which have no HOURS or MINUTES and never compare with
// dateTimes.
func (c DateClass) IsDate() bool { return c&2 != 0 }

// HasZone reports whether the class is of values with a timezone.
func (c DateClass) HasZone() bool { return c&1 != 0 }

// DateYearLimit bounds the years DateValueOf accepts, so that Sec is exact and a year fits the index's column.
const DateYearLimit = 1 << 20

// DateValueOf reads the lexical form of an xsd:dateTime (isDate false) or xsd:date; ok is false for an invalid
// form and for years beyond ±DateYearLimit. It is the reading Compare, OrderCompare and the date functions use.
func DateValueOf(lex string, isDate bool) (DateValue, bool) {
	d, ok := parseDateTimeLex(lex, isDate)
	if !ok {
		return DateValue{}, false
	}
	l := d.local()
	if y := l.Year(); y <= -DateYearLimit || y >= DateYearLimit || d.t.Year() <= -DateYearLimit || d.t.Year() >= DateYearLimit {
		return DateValue{}, false
	}
	v := DateValue{Sec: d.t.Unix(), Nsec: int32(d.t.Nanosecond()), Year: int32(l.Year()), Month: uint8(l.Month()),
		Day: uint8(l.Day()), Hour: uint8(l.Hour()), Minute: uint8(l.Minute())}
	if d.hasTZ {
		v.Class |= 1
	}
	if isDate {
		v.Class |= 2
	}
	return v, true
}

func dateField(name string, t rdf.Term) (rdf.Term, error) {
	d, ok := parseDateTime(t)
	if !ok {
		return rdf.Term{}, ErrType
	}
	l := d.local() // DateValueOf reads the same fields
	switch name {
	case "YEAR":
		return Integer(int64(l.Year())), nil
	case "MONTH":
		return Integer(int64(l.Month())), nil
	case "DAY":
		return Integer(int64(l.Day())), nil
	case "HOURS":
		return Integer(int64(l.Hour())), nil
	case "MINUTES":
		return Integer(int64(l.Minute())), nil
	case "SECONDS":
		return rdf.Literal(secondsLex(d.sec, d.frac), rdf.XSDDecimal), nil
	case "TIMEZONE":
		if !d.hasTZ {
			return rdf.Term{}, ErrType
		}
		return rdf.Literal(dayTimeDuration(d.tzMin), xsdDayTime), nil
	case "TZ":
		switch {
		case !d.hasTZ:
			return rdf.String(""), nil
		case d.tzMin == 0 && strings.HasSuffix(t.Value, "Z"):
			return rdf.String("Z"), nil
		}
		sign := '+'
		m := d.tzMin
		if m < 0 {
			sign, m = '-', -m
		}
		return rdf.String(fmt.Sprintf("%c%02d:%02d", sign, m/60, m%60)), nil
	}
	return rdf.Term{}, ErrType
}

// secondsLex is SECONDS' canonical xsd:decimal: the whole seconds, then the fractional digits as written without
// trailing zeros. Beyond DecimalPlaces digits formatDecimal's rounding decides, as for any other decimal.
func secondsLex(sec int, frac string) string {
	frac = strings.TrimRight(frac, "0")
	switch {
	case frac == "":
		return strconv.Itoa(sec)
	case len(frac) <= DecimalPlaces:
		return strconv.Itoa(sec) + "." + frac
	}
	r, _ := new(big.Rat).SetString(strconv.Itoa(sec) + "." + frac)
	return formatDecimal(r)
}

// DateSeconds returns SECONDS of a dateTime's (isDate false) or date's lexical form as whole seconds and the
// fractional digits without trailing zeros; ok is false where SECONDS raises an error. It reads no term and
// allocates nothing, for comparisons of SECONDS with a number over every row.
func DateSeconds(lex string, isDate bool) (sec int, frac string, ok bool) {
	d, ok := parseDateTimeLex(lex, isDate)
	if !ok {
		return 0, "", false
	}
	return d.sec, strings.TrimRight(d.frac, "0"), true
}

// ValidDateSeconds is DateSeconds of the lexical form of a valid xsd:dateTime (as DateValueOf accepts: the
// dictionary's date blocks hold only those), read where it stands: "hh:mm:ss" follows the only 'T', and the
// fractional digits its '.'. Nothing is checked, so nothing else may be passed.
func ValidDateSeconds(lex string) (sec int, frac string) {
	t := 10 // a four-digit year's: no 'T' comes before it in a valid form
	if len(lex) <= t || lex[t] != 'T' {
		t = strings.IndexByte(lex, 'T')
	}
	sec = int(lex[t+7]-'0')*10 + int(lex[t+8]-'0')
	if f := lex[t+9:]; f != "" && f[0] == '.' {
		n := 1
		for n < len(f) && f[n] >= '0' && f[n] <= '9' {
			n++
		}
		frac = strings.TrimRight(f[1:n], "0")
	}
	return sec, frac
}

// ValidDateZone is TZ or TIMEZONE (name) of a valid xsd:dateTime's or xsd:date's lexical form (as DateValueOf
// accepts), read from its suffix without parsing the rest: what dateField gives, for a FILTER or GROUP BY over
// every offer.
func ValidDateZone(name, lex string) (rdf.Term, error) {
	tz, n := "", len(lex)
	switch {
	case lex[n-1] == 'Z':
		tz = "Z"
	case n > 6 && (lex[n-6] == '+' || lex[n-6] == '-') && lex[n-3] == ':':
		tz = lex[n-6:]
		if tz == "-00:00" || tz == "+00:00" {
			tz = "+00:00" // what the offset in minutes (0) is written as
		}
	}
	if name == "TZ" {
		return rdf.String(tz), nil
	}
	switch tz {
	case "":
		return rdf.Term{}, ErrType
	case "Z", "+00:00":
		return rdf.Literal("PT0S", xsdDayTime), nil
	}
	m := (int(tz[1]-'0')*10+int(tz[2]-'0'))*60 + int(tz[4]-'0')*10 + int(tz[5]-'0')
	if tz[0] == '-' {
		m = -m
	}
	return rdf.Literal(dayTimeDuration(m), xsdDayTime), nil
}

// Field returns YEAR, MONTH, DAY, HOURS or MINUTES of v (0 for another name).
func (v DateValue) Field(name string) int32 {
	switch name {
	case "YEAR":
		return v.Year
	case "MONTH":
		return int32(v.Month)
	case "DAY":
		return int32(v.Day)
	case "HOURS":
		return int32(v.Hour)
	case "MINUTES":
		return int32(v.Minute)
	}
	return 0
}

func dayTimeDuration(min int) string {
	if min == 0 {
		return "PT0S"
	}
	var b strings.Builder
	if min < 0 {
		b.WriteByte('-')
		min = -min
	}
	b.WriteString("PT")
	if min/60 > 0 {
		fmt.Fprintf(&b, "%dH", min/60)
	}
	if min%60 > 0 {
		fmt.Fprintf(&b, "%dM", min%60)
	}
	return b.String()
}

// FormatNow renders a time as the xsd:dateTime NOW() returns.
func FormatNow(t time.Time) rdf.Term {
	return rdf.Literal(t.UTC().Format("2006-01-02T15:04:05.000Z"), xsdDT)
}

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

func parseDateTimeLex(s string, isDate bool) (dateTime, bool) {
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
	return a.t.In(time.FixedZone("", a.tzMin*60))
}

func dateField(name string, t rdf.Term) (rdf.Term, error) {
	d, ok := parseDateTime(t)
	if !ok {
		return rdf.Term{}, ErrType
	}
	l := d.local()
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
		r, _ := new(big.Rat).SetString(fmt.Sprintf("%d.%s0", d.sec, d.frac))
		return rdf.Literal(formatDecimal(r), rdf.XSDDecimal), nil
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

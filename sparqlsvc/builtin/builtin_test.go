package builtin

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

func i(s string) rdf.Term   { return rdf.Literal(s, rdf.XSDInteger) }
func dec(s string) rdf.Term { return rdf.Literal(s, rdf.XSDDecimal) }
func dbl(s string) rdf.Term { return rdf.Literal(s, rdf.XSDDouble) }
func flt(s string) rdf.Term { return rdf.Literal(s, xsdFloat) }
func str(s string) rdf.Term { return rdf.String(s) }
func dt(s string) rdf.Term  { return rdf.Literal(s, xsdDT) }

var errT = rdf.Term{Kind: 99} // marks an expected type error in tables

func TestArith(t *testing.T) {
	cases := []struct {
		op   byte
		a, b rdf.Term
		want rdf.Term
	}{
		{'+', i("1"), i("2"), i("3")},
		{'+', i("1"), dec("2.5"), dec("3.5")},
		{'/', i("1"), i("2"), dec("0.5")},
		{'/', i("4"), i("2"), dec("2")},
		{'/', i("2"), i("3"), dec("0.666666666666666666")},
		{'/', i("1"), i("0"), errT},
		{'/', dbl("1"), dbl("0"), dbl("INF")},
		{'*', dec("0.1"), dec("3"), dec("0.3")},
		{'-', dec("36.0"), dec("0"), dec("36")},
		{'+', flt("1.5"), i("1"), flt("2.5")},
		{'+', dbl("1.5"), flt("1"), dbl("2.5")},
		{'+', i("99999999999999999999"), i("1"), i("100000000000000000000")},
		{'+', i("1"), str("1"), errT},
		{'+', i("abc"), i("1"), errT},
		{'+', rdf.Literal("300", xsd+"byte"), i("1"), errT},
		{'+', rdf.Literal("100", xsd+"byte"), i("1"), i("101")},
	}
	for _, c := range cases {
		got, err := Arith(c.op, c.a, c.b)
		if c.want == errT {
			if !errors.Is(err, ErrType) {
				t.Errorf("%v %c %v = %v, want a type error", c.a, c.op, c.b, got)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%v %c %v = %v, %v; want %v", c.a, c.op, c.b, got, err, c.want)
		}
	}
}

func TestEqualAndCompare(t *testing.T) {
	cases := []struct {
		a, b  rdf.Term
		eq    any // bool or error
		order any // int or error
	}{
		{i("1"), dec("1.0"), true, 0},
		{i("1"), dbl("1.0e0"), true, 0},
		{i("1"), i("2"), false, -1},
		{str("a"), str("b"), false, -1},
		{rdf.LangString("a", "en"), rdf.LangString("a", "EN"), true, ErrType},
		{rdf.LangString("a", "en"), str("a"), false, ErrType},
		{i("1"), str("1"), false, ErrType},
		{rdf.Literal("x", "http://ex.org/t"), rdf.Literal("y", "http://ex.org/t"), ErrType, ErrType},
		{rdf.Literal("x", "http://ex.org/t"), rdf.Literal("x", "http://ex.org/t"), true, ErrType},
		{rdf.IRI("http://a"), rdf.IRI("http://a"), true, ErrType},
		{rdf.IRI("http://a"), str("http://a"), false, ErrType},
		{dbl("NaN"), dbl("NaN"), false, ErrType},
		{dt("2026-01-01T00:00:00Z"), dt("2026-01-01T01:00:00+01:00"), true, 0},
		{dt("2026-01-01T00:00:00Z"), dt("2026-01-02T00:00:00Z"), false, -1},
		{dt("2026-01-01T00:00:00"), dt("2026-01-01T05:00:00Z"), ErrType, ErrType},
		{dt("2026-01-01T00:00:00"), dt("2026-01-03T05:00:00Z"), false, -1},
		{Boolean(false), Boolean(true), false, -1},
		{i("abc"), i("abc"), true, ErrType},
		{i("abc"), i("1"), ErrType, ErrType},
	}
	for _, c := range cases {
		eq, err := Equal(c.a, c.b)
		switch want := c.eq.(type) {
		case bool:
			if err != nil || eq != want {
				t.Errorf("%v = %v: %v, %v; want %v", c.a, c.b, eq, err, want)
			}
		case error:
			if !errors.Is(err, want) {
				t.Errorf("%v = %v: %v, %v; want an error", c.a, c.b, eq, err)
			}
		}
		ord, err := Compare(c.a, c.b)
		switch want := c.order.(type) {
		case int:
			if err != nil || ord != want {
				t.Errorf("%v < %v: %v, %v; want %v", c.a, c.b, ord, err, want)
			}
		case error:
			if !errors.Is(err, want) {
				t.Errorf("%v < %v: %v, %v; want an error", c.a, c.b, ord, err)
			}
		}
	}
}

func TestEBV(t *testing.T) {
	cases := []struct {
		t    rdf.Term
		want any
	}{
		{Boolean(true), true}, {rdf.Literal("false", rdf.XSDBoolean), false}, {rdf.Literal("maybe", rdf.XSDBoolean), false},
		{str(""), false}, {str("x"), true}, {rdf.LangString("x", "en"), true}, {i("0"), false}, {i("2"), true},
		{dbl("NaN"), false}, {dec("0.0"), false}, {i("abc"), false}, {rdf.IRI("http://a"), ErrType},
		{rdf.Literal("x", "http://ex.org/t"), ErrType}, {rdf.Blank("b"), ErrType},
	}
	for _, c := range cases {
		got, err := EBV(c.t)
		if want, ok := c.want.(bool); ok {
			if err != nil || got != want {
				t.Errorf("EBV(%v) = %v, %v; want %v", c.t, got, err, want)
			}
		} else if !errors.Is(err, ErrType) {
			t.Errorf("EBV(%v) = %v, %v; want an error", c.t, got, err)
		}
	}
}

func TestCall(t *testing.T) {
	ctx := NewContext(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), "http://ex.org/base/")
	en := func(s string) rdf.Term { return rdf.LangString(s, "en") }
	cases := []struct {
		name string
		args []rdf.Term
		want rdf.Term
	}{
		{"STR", []rdf.Term{rdf.IRI("http://a")}, str("http://a")},
		{"STR", []rdf.Term{rdf.Blank("b")}, errT},
		{"LANG", []rdf.Term{en("x")}, str("en")},
		{"DATATYPE", []rdf.Term{en("x")}, rdf.IRI(rdf.RDFLangString)},
		{"DATATYPE", []rdf.Term{str("x")}, rdf.IRI(rdf.XSDString)},
		{"LANGMATCHES", []rdf.Term{str("en-GB"), str("en")}, Boolean(true)},
		{"LANGMATCHES", []rdf.Term{str("fr"), str("*")}, Boolean(true)},
		{"LANGMATCHES", []rdf.Term{str(""), str("*")}, Boolean(false)},
		{"LANGMATCHES", []rdf.Term{str("english"), str("en")}, Boolean(false)},
		{"IRI", []rdf.Term{str("rel")}, rdf.IRI("http://ex.org/base/rel")},
		{"STRLEN", []rdf.Term{str("Größe")}, i("5")},
		{"SUBSTR", []rdf.Term{str("motor"), i("2"), i("3")}, str("oto")},
		{"SUBSTR", []rdf.Term{en("motor"), i("0"), i("3")}, en("mo")},
		{"SUBSTR", []rdf.Term{str("12345"), dec("1.5"), dec("2.6")}, str("234")},
		{"UCASE", []rdf.Term{en("foo")}, en("FOO")},
		// Full case mapping (SpecialCasing), as XPath's fn:upper-case and fn:lower-case: lengths may change.
		{"UCASE", []rdf.Term{str("ß")}, str("SS")},
		{"UCASE", []rdf.Term{rdf.LangString("Straße", "de")}, rdf.LangString("STRASSE", "de")},
		{"UCASE", []rdf.Term{str("ﬁne ŉ ǰ")}, str("FINE ʼN J̌")},
		{"UCASE", []rdf.Term{str("ἀι")}, str("ἈΙ")},
		{"LCASE", []rdf.Term{str("İ")}, str("i̇")},
		{"LCASE", []rdf.Term{str("ΟΔΟΣ")}, str("οδος")}, // final sigma
		{"LCASE", []rdf.Term{str("ÀÉÎ ABC")}, str("àéî abc")},
		{"UCASE", []rdf.Term{str("plain ascii")}, str("PLAIN ASCII")},
		{"STRLEN", []rdf.Term{str("SS")}, i("2")},
		{"STRBEFORE", []rdf.Term{en("abc"), str("b")}, en("a")},
		{"STRBEFORE", []rdf.Term{en("abc"), str("z")}, str("")},
		{"STRAFTER", []rdf.Term{str("abc"), str("")}, str("abc")},
		{"STRSTARTS", []rdf.Term{en("abc"), rdf.LangString("a", "fr")}, errT},
		{"CONTAINS", []rdf.Term{en("abc"), str("bc")}, Boolean(true)},
		{"CONCAT", []rdf.Term{en("a"), en("b")}, en("ab")},
		{"CONCAT", []rdf.Term{en("a"), str("b")}, str("ab")},
		{"CONCAT", nil, str("")},
		{"ENCODE_FOR_URI", []rdf.Term{str("Los Angeles/ü")}, str("Los%20Angeles%2F%C3%BC")},
		{"REGEX", []rdf.Term{en("Qualität gut"), str("qualität|größe"), str("i")}, Boolean(true)},
		{"REGEX", []rdf.Term{str("abc"), str("^A"), str("i")}, Boolean(true)},
		{"REGEX", []rdf.Term{str("abc"), str("^B"), str("i")}, Boolean(false)},
		{"REGEX", []rdf.Term{str("a.c"), str("."), str("q")}, Boolean(true)},
		{"REGEX", []rdf.Term{str("abc"), str("x"), str("z")}, errT},
		{"REGEX", []rdf.Term{rdf.IRI("http://a"), str("a")}, errT},
		{"REPLACE", []rdf.Term{str("abcd"), str("(b)(c)"), str("$2$1")}, str("acbd")},
		{"REPLACE", []rdf.Term{str("abab"), str("B"), str("Z"), str("i")}, str("aZaZ")},
		{"REPLACE", []rdf.Term{str("abc"), str("x*"), str("Z")}, errT},
		// XPath's \w, \d are Unicode (RE2's are ASCII), \s is XML whitespace; escaped backslashes stay literal.
		{"REPLACE", []rdf.Term{rdf.LangString("Größe Bildschirm über", "de"), str(`^(\w+) (\w+)`), str("$2 $1")}, rdf.LangString("Bildschirm Größe über", "de")},
		{"REPLACE", []rdf.Term{str("écran, bon"), str(`[\w]+`), str("x")}, str("x, x")},
		{"REPLACE", []rdf.Term{str("a1٣b"), str(`\d+`), str("#")}, str("a#b")},
		{"REPLACE", []rdf.Term{str("a-b.c"), str(`\W`), str("")}, str("abc")},
		{"REGEX", []rdf.Term{str("a\fb"), str(`a\sb`)}, Boolean(false)},
		{"REGEX", []rdf.Term{str("a b"), str(`a\Sb`)}, Boolean(false)},
		{"REGEX", []rdf.Term{str(`a\w`), str(`a\\w`)}, Boolean(true)},
		{"REGEX", []rdf.Term{str("é"), str(`^\D$`)}, Boolean(true)},
		{"ABS", []rdf.Term{i("-3")}, i("3")},
		{"ROUND", []rdf.Term{dec("-2.5")}, dec("-2")},
		{"ROUND", []rdf.Term{dec("2.5")}, dec("3")},
		{"CEIL", []rdf.Term{dec("-1.6")}, dec("-1")},
		{"FLOOR", []rdf.Term{dbl("1.5")}, dbl("1")},
		{"YEAR", []rdf.Term{dt("2011-01-10T14:45:13.815-05:00")}, i("2011")},
		{"HOURS", []rdf.Term{dt("2011-01-10T14:45:13.815-05:00")}, i("14")},
		{"SECONDS", []rdf.Term{dt("2011-01-10T14:45:13.815-05:00")}, dec("13.815")},
		{"TIMEZONE", []rdf.Term{dt("2011-01-10T14:45:13.815-05:00")}, rdf.Literal("-PT5H", xsdDayTime)},
		{"TIMEZONE", []rdf.Term{dt("2011-01-10T14:45:13Z")}, rdf.Literal("PT0S", xsdDayTime)},
		{"TIMEZONE", []rdf.Term{dt("2011-01-10T14:45:13")}, errT},
		{"TZ", []rdf.Term{dt("2011-01-10T14:45:13Z")}, str("Z")},
		{"TZ", []rdf.Term{dt("2011-01-10T14:45:13")}, str("")},
		{"MD5", []rdf.Term{str("abc")}, str("900150983cd24fb0d6963f7d28e17f72")},
		{"MD5", []rdf.Term{en("abc")}, errT},
		{"SHA1", []rdf.Term{str("abc")}, str("a9993e364706816aba3e25717850c26c9cd0d89d")},
		{"STRLANG", []rdf.Term{str("x"), str("en")}, en("x")},
		{"STRLANG", []rdf.Term{en("x"), str("en")}, errT},
		{"STRDT", []rdf.Term{str("1"), rdf.IRI(rdf.XSDInteger)}, i("1")},
		{"ISNUMERIC", []rdf.Term{i("abc")}, Boolean(false)},
		{"ISNUMERIC", []rdf.Term{rdf.Literal("1", xsd+"unsignedShort")}, Boolean(true)},
		{"NOW", nil, dt("2026-11-22T10:00:00.000Z")},
		{"STR", []rdf.Term{{}}, errT},
		{rdf.XSDInteger, []rdf.Term{str(" 12 ")}, i("12")},
		{rdf.XSDInteger, []rdf.Term{dbl("-2.7")}, i("-2")},
		{rdf.XSDInteger, []rdf.Term{str("1.5")}, errT},
		{rdf.XSDDecimal, []rdf.Term{Boolean(true)}, dec("1")},
		{rdf.XSDDouble, []rdf.Term{str("INF")}, dbl("INF")},
		{rdf.XSDBoolean, []rdf.Term{dbl("NaN")}, Boolean(false)},
		{rdf.XSDString, []rdf.Term{dec("1.50")}, str("1.5")},
		{rdf.XSDString, []rdf.Term{rdf.IRI("http://a")}, str("http://a")},
		{xsdDT, []rdf.Term{str("2026-02-30T00:00:00Z")}, errT},
		{rdf.XSDInteger, []rdf.Term{rdf.IRI("http://a")}, errT},
	}
	for _, c := range cases {
		got, err := ctx.Call(c.name, c.args)
		if c.want == errT {
			if err == nil {
				t.Errorf("%s%v = %v, want an error", c.name, c.args, got)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%s%v = %v, %v; want %v", c.name, c.args, got, err, c.want)
		}
	}
	if _, err := ctx.Call("NOSUCH", nil); !errors.Is(err, ErrUnknownFunction) {
		t.Errorf("unknown function: %v", err)
	}
	u, _ := ctx.Call("UUID", nil)
	if u.Kind != rdf.KindIRI || len(u.Value) != len("urn:uuid:")+36 {
		t.Errorf("UUID() = %v", u)
	}
	r, _ := ctx.Call("RAND", nil)
	if f, ok := toNum(r); !ok || f.f < 0 || f.f >= 1 {
		t.Errorf("RAND() = %v", r)
	}
}

func TestOrderCompare(t *testing.T) {
	// Each term sorts strictly before the next.
	seq := []rdf.Term{{}, rdf.Blank("a"), rdf.Blank("b"), rdf.IRI("http://a"), rdf.IRI("http://b"),
		i("-1"), dec("0.5"), dbl("2"), i("10"), str("a"), rdf.LangString("a", "en"), rdf.LangString("a", "fr"), str("b"),
		rdf.Literal("x", "http://ex.org/t")}
	for x := range seq {
		for y := range seq {
			got := OrderCompare(seq[x], seq[y])
			if (x < y && got >= 0) || (x > y && got <= 0) || (x == y && got != 0) {
				t.Errorf("OrderCompare(%v, %v) = %d", seq[x], seq[y], got)
			}
		}
	}
}

func TestFormatDouble(t *testing.T) {
	for f, want := range map[float64]string{1: "1", 1.5: "1.5", 1050: "1050", 1e10: "10000000000", -0.000125: "-0.000125",
		0: "0", 1e21: "1.0E21", 1.5e-7: "1.5E-7", 2e300: "2.0E300"} {
		if got := formatDouble(f, 64); got != want {
			t.Errorf("formatDouble(%v) = %q, want %q", f, got, want)
		}
	}
}

// TestSecondsLexMatchesReference: SECONDS' decimal written straight from the digits (secondsLex) and read in place
// (ValidDateSeconds) equals the decimal big.Rat makes of "sec.frac0", for fractions with trailing zeros, of up to
// DecimalPlaces digits and beyond (where the rounding applies).
func TestSecondsLexMatchesReference(t *testing.T) {
	fracs := []string{"", "0", "000", "5", "50", "25", "0001", "00010", "123456789012", "999999999999999999",
		"9999999999999999999", "1234567890123456785", "00000000000000000001", "100000000000000000000"}
	for sec := 0; sec < 60; sec += 7 {
		for _, frac := range fracs {
			r, _ := new(big.Rat).SetString(fmt.Sprintf("%d.%s0", sec, frac))
			want := formatDecimal(r)
			if got := secondsLex(sec, frac); got != want {
				t.Errorf("secondsLex(%d, %q) = %s, want %s", sec, frac, got, want)
			}
			for _, year := range []string{"2008", "12345", "-0044"} { // where the 'T' is not at 10 too
				lex := fmt.Sprintf("%s-01-02T03:04:%02d", year, sec)
				if frac != "" {
					lex += "." + frac
				}
				for _, tz := range []string{"", "Z", "-05:30"} {
					s, f := ValidDateSeconds(lex + tz)
					ws, wf, ok := DateSeconds(lex+tz, false)
					if !ok || s != ws || f != wf || secondsLex(s, f) != want {
						t.Errorf("ValidDateSeconds(%s) = %d %q, DateSeconds %d %q %v", lex+tz, s, f, ws, wf, ok)
					}
				}
			}
		}
	}
}

// TestValidDateZoneMatchesReference: TZ and TIMEZONE read from a valid form's suffix equal dateField's, for dates
// and dateTimes without a timezone, with Z, with +00:00 and -00:00, and with offsets east and west.
func TestValidDateZoneMatchesReference(t *testing.T) {
	for _, tz := range []string{"", "Z", "+00:00", "-00:00", "+05:30", "-09:45", "+14:00", "-14:00", "+00:01"} {
		for _, lex := range []string{"2008-01-02T03:04:05", "2008-01-02T03:04:05.250", "-0044-03-15T12:00:00",
			"2008-01-02", "12008-12-31T24:00:00"} {
			dt := xsdDT
			if len(lex) == 10 {
				dt = xsdDate
			}
			term := rdf.Literal(lex+tz, dt)
			for _, name := range []string{"TZ", "TIMEZONE"} {
				want, werr := dateField(name, term)
				got, gerr := ValidDateZone(name, term.Value)
				if got != want || (werr == nil) != (gerr == nil) {
					t.Errorf("%s(%v) = %v %v, dateField %v %v", name, term, got, gerr, want, werr)
				}
			}
		}
	}
}

// TestComputedStringsStayInRoom: CONCAT and REPLACE refuse, with ErrTooLong, a result longer than Context.Room,
// measured before it is built; REPLACE's bound from the whole string is refined match by match before refusing.
func TestComputedStringsStayInRoom(t *testing.T) {
	ctx := NewContext(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), "")
	ctx.Room = func() int64 { return 1000 }
	long := strings.Repeat("x", 900) + "ab"
	for _, c := range []struct {
		name string
		args []rdf.Term
		want string // the result's length, or "" for ErrTooLong
	}{
		{"CONCAT", []rdf.Term{str(strings.Repeat("a", 500)), str(strings.Repeat("b", 500))}, "1000"},
		{"CONCAT", []rdf.Term{str(strings.Repeat("a", 500)), str(strings.Repeat("b", 501))}, ""},
		{"REPLACE", []rdf.Term{str(strings.Repeat("a", 500)), str("a"), str("bb")}, "1000"},
		{"REPLACE", []rdf.Term{str(strings.Repeat("a", 501)), str("a"), str("bb")}, ""},
		// The whole-string bound (902 × (1 + 3·902)) is far over; match by match it is 902 + 2 × 2.
		{"REPLACE", []rdf.Term{str(long), str("(ab)"), str("$1$1$1")}, "906"},
		{"REPLACE", []rdf.Term{str(long), str("(x+)"), str("$1$1")}, ""},
		{"REPLACE", []rdf.Term{str(long), str("x"), str("$"), str("q")}, "902"},
	} {
		got, err := ctx.Call(c.name, c.args)
		switch {
		case c.want == "":
			if !errors.Is(err, ErrTooLong) {
				t.Errorf("%s over %d bytes: %v, want ErrTooLong", c.name, len(c.args[0].Value), err)
			}
		case err != nil || fmt.Sprint(len(got.Value)) != c.want:
			t.Errorf("%s over %d bytes: %d bytes, %v; want %s", c.name, len(c.args[0].Value), len(got.Value), err, c.want)
		}
	}
	ctx.Room = nil
	if got, err := ctx.Call("CONCAT", []rdf.Term{str(long), str(long)}); err != nil || len(got.Value) != 2*len(long) {
		t.Errorf("CONCAT without a room: %d bytes, %v", len(got.Value), err)
	}
	if got, err := ctx.Call("REPLACE", []rdf.Term{str(long), str("(ab)"), str("$1$1$1")}); err != nil || got.Value != strings.Repeat("x", 900)+"ababab" {
		t.Errorf("REPLACE: %q, %v", got.Value, err)
	}
}

// TestRegexProgramsStayInRoom: a short pattern can compile to a program of megabytes; one larger than the room is
// refused (ErrTooLong) before it is compiled, and the cache of compiled patterns stays within its share of the
// room however many distinct patterns a query builds.
func TestRegexProgramsStayInRoom(t *testing.T) {
	ctx := NewContext(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), "")
	ctx.Room = func() int64 { return 1 << 20 }
	if _, err := ctx.Call("REGEX", []rdf.Term{str("x"), str(`[a-z\p{L}]{1000}`)}); !errors.Is(err, ErrTooLong) {
		t.Errorf("a pattern of 1000 classes of 650 ranges under a 1 MiB room: %v, want ErrTooLong", err)
	}
	if got, err := ctx.Call("REGEX", []rdf.Term{str("abab"), str("^(?:ab){2}$")}); err != nil || got != Boolean(true) {
		t.Errorf("a small counted repeat: %v, %v", got, err)
	}
	for i := range 300 {
		p := fmt.Sprintf("(?:%d){50}", i)
		if _, err := ctx.Call("REGEX", []rdf.Term{str("x"), str(p)}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if ctx.regexpBytes > ctx.Room()/regexCacheShare {
			t.Fatalf("after %d patterns the cache holds %d bytes, more than its share %d", i+1, ctx.regexpBytes, ctx.Room()/regexCacheShare)
		}
	}
}

// TestReplaceStops: REPLACE over a long string checks Stop while it passes over the matches.
func TestReplaceStops(t *testing.T) {
	ctx := NewContext(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), "")
	calls := 0
	ctx.Stop = func() error {
		if calls++; calls > 3 {
			return context.DeadlineExceeded
		}
		return nil
	}
	long := str(strings.Repeat("ab", 1<<16))
	if _, err := ctx.Call("REPLACE", []rdf.Term{long, str("a"), str("c")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("REPLACE over 128 KiB stopped after 4 checks: %v", err)
	}
	ctx.Stop = func() error { return nil }
	if got, err := ctx.Call("REPLACE", []rdf.Term{long, str("(a)"), str("$1$1")}); err != nil || len(got.Value) != 3<<16 {
		t.Errorf("REPLACE not stopped: %d bytes, %v", len(got.Value), err)
	}
}

// TestRegexCompileStops: a pattern not yet compiled is compiled only while the query may run (Stop).
func TestRegexCompileStops(t *testing.T) {
	ctx := NewContext(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), "")
	ctx.Stop = func() error { return context.DeadlineExceeded }
	if _, err := ctx.Call("REGEX", []rdf.Term{str("x"), str("(?:x){30}")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("REGEX compiled after the query's end: %v", err)
	}
}

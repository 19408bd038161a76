package builtin

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/ldhub/ldhub/content/rdf"
)

// comparisonTerms has a term of every kind the comparison operators tell apart, with the edges of each: unbound,
// blank nodes, IRIs, numbers of each type (negative, huge, at the int64 limits, with trailing zeros, invalid
// lexical forms, out-of-range derived types), strings with and without tags (non-ASCII too), booleans, dateTimes
// with and without timezones (which XPath may leave unordered), dates, and other datatypes.
func comparisonTerms() []rdf.Term {
	ts := []rdf.Term{{}, rdf.Blank("a"), rdf.Blank("b"), rdf.IRI("http://a"), rdf.IRI("http://b/Größe"), rdf.IRI("http://b/ß")}
	for _, s := range []string{"0", "-0", "+5", "007", "5", "-5", "123456789012345678901234567890", "-9223372036854775808",
		"9223372036854775807", "9223372036854775808", "1.5", "abc", ""} {
		ts = append(ts, i(s))
	}
	for _, s := range []string{"1.50", "1.5", "-0.000", "0", "99999999999999999999.5", "-12345.678901234567890123", ".5",
		"5.", "5", "-5.0", "0.1234567890123456789", "1.2.3", "."} {
		ts = append(ts, dec(s))
	}
	for _, s := range []string{"1e3", "1000", "NaN", "INF", "-INF", "1.5E-7", "-0", "0", "abc", "1.5"} {
		ts = append(ts, dbl(s))
	}
	ts = append(ts, flt("1.5"), flt("0.1"), flt("NaN"), rdf.Literal("200", xsd+"byte"), rdf.Literal("12", xsd+"byte"),
		rdf.Literal("-3", xsd+"long"), rdf.Literal("5", xsd+"positiveInteger"), rdf.Literal("-5", xsd+"positiveInteger"))
	for _, s := range []string{"", "a", "A", "b", "Größe", "größe", "GRÖSSE", "ß", "日本", "a b", "é", "e\u0301"} {
		ts = append(ts, str(s))
	}
	ts = append(ts, rdf.LangString("a", "en"), rdf.LangString("a", "EN"), rdf.LangString("a", "fr"), rdf.LangString("b", "de"),
		rdf.LangString("Größe", "de"))
	for _, s := range []string{"true", "1", "false", "0", "yes"} {
		ts = append(ts, rdf.Literal(s, rdf.XSDBoolean))
	}
	for _, s := range []string{"2008-03-14T12:43:08", "2008-03-14T12:43:08Z", "2008-03-14T12:43:08+14:00",
		"2008-03-14T12:43:08-05:30", "2008-03-14T02:00:00", "2008-03-13T12:43:08Z", "2008-03-14T24:00:00Z",
		"2008-03-15T00:00:00Z", "2008-02-30T00:00:00Z", "-0044-03-15T12:00:00Z", "2008-03-14T12:43:08.123456789123Z",
		"2008-03-14T12:43:08.5", "2008-3-14T12:43:08Z", "2008-03-14", "2010-01-01T00:00:00Z", "2009-12-31T23:00:00-01:00"} {
		ts = append(ts, dt(s))
	}
	for _, s := range []string{"2008-03-14", "2008-03-14Z", "2008-03-14+01:00", "2008-03-15-13:00", "2008-13-01"} {
		ts = append(ts, rdf.Literal(s, xsdDate))
	}
	ts = append(ts, rdf.Literal("x", "http://ex.org/t"), rdf.Literal("1", "http://ex.org/t"), rdf.Literal("1", "http://ex.org/u"))
	return ts
}

// TestKeysMatchReference compares every pair of comparisonTerms under =, <, and ORDER BY's order, through Keys
// and through the functions, against the operators as they were before Keys (reference_test.go).
func TestKeysMatchReference(t *testing.T) {
	ts := comparisonTerms()
	keys := make([]Key, len(ts))
	for j, x := range ts {
		keys[j] = NewKey(x)
	}
	for a := range ts {
		for b := range ts {
			x, y := ts[a], ts[b]
			weq, werr := refEqual(x, y)
			if geq, gerr := EqualKeys(&keys[a], &keys[b]); geq != weq || (gerr == nil) != (werr == nil) {
				t.Errorf("EqualKeys(%v, %v) = %v, %v; reference %v, %v", x, y, geq, gerr, weq, werr)
			}
			if geq, gerr := Equal(x, y); geq != weq || (gerr == nil) != (werr == nil) {
				t.Errorf("Equal(%v, %v) = %v, %v; reference %v, %v", x, y, geq, gerr, weq, werr)
			}
			wc, werr := refCompare(x, y)
			if gc, gerr := CompareKeys(&keys[a], &keys[b]); gc != wc || (gerr == nil) != (werr == nil) {
				t.Errorf("CompareKeys(%v, %v) = %v, %v; reference %v, %v", x, y, gc, gerr, wc, werr)
			}
			wo := refOrderCompare(x, y)
			if got := OrderKeys(&keys[a], &keys[b]); sign(got) != sign(wo) {
				t.Errorf("OrderKeys(%v, %v) = %v; reference %v", x, y, got, wo)
			}
			if got := OrderCompare(x, y); sign(got) != sign(wo) {
				t.Errorf("OrderCompare(%v, %v) = %v; reference %v", x, y, got, wo)
			}
		}
	}
}

// TestOrderKeysIsTotal: ORDER BY's order is a total order on terms, which sorts, selections, heaps, MIN and MAX
// need to agree whatever order they meet values in: sorted by it, every pair of comparisonTerms and of the
// numbers, zeros, NaNs and infinities that broke it before (0 < 0.0 < NaN < 0 by lexical form and datatype;
// 2^53 + 1 against 2^53 and a double equal to both once rounded), with booleans and dateTimes whose invalid forms
// and timezones made cycles, compares as the positions do, only a term with itself is equal, and wherever < orders
// two terms the order agrees; each pair as refOrderCompare, written without Keys, orders it.
func TestOrderKeysIsTotal(t *testing.T) {
	ts := comparisonTerms()
	for _, s := range []string{"0", "-0", "+0", "1", "9007199254740992", "9007199254740993", "09007199254740993"} {
		ts = append(ts, i(s))
	}
	for _, s := range []string{"0.0", "-0.0", "1.0", "1", "0.1", "1" + strings.Repeat("0", 400), "9007199254740992.5"} {
		ts = append(ts, dec(s))
	}
	for _, s := range []string{"-0.0e0", "0.0e0", "0E0", "1.0e0", "1E0", "0.1", "9007199254740992e0", "9007199254740991.9e0",
		"-INF", "1e308"} {
		ts = append(ts, dbl(s))
	}
	ts = append(ts, flt("0"), flt("-0"), flt("INF"), flt("-INF"), flt("1"), rdf.Literal("2", rdf.XSDBoolean),
		dt("2008-03-14T99:00:00Z"), dt("2008-03-15T01:00:00+05:00"), dt("2008-03-14T21:00:00Z"),
		dt("2008-03-14T21:00:00"), rdf.LangString("a", "En"), rdf.LangString("1", "en"))
	for _, s := range []string{"2008-02-28", "2008-02-29", "2008-02-30", "2008-02-31", "2008-03-01", "2007-02-29",
		"2007-03-01", "2008-02-29Z", "2008-03-01+14:00", "2008-02-30Z", "2008-00-10", "0000-01-01"} {
		ts = append(ts, rdf.Literal(s, xsdDate))
	}
	keys := make([]Key, len(ts))
	for j, x := range ts {
		keys[j] = NewKey(x)
	}
	order := make([]int, len(ts))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return OrderKeys(&keys[a], &keys[b]) })
	for p, a := range order {
		for q, b := range order {
			got := sign(OrderKeys(&keys[a], &keys[b]))
			want := sign(p - q)
			if ts[a] == ts[b] {
				want = 0
			}
			if got != want {
				t.Errorf("OrderKeys(%v, %v) = %d, sorted at %d and %d", ts[a], ts[b], got, p, q)
			}
			if w := sign(refOrderCompare(ts[a], ts[b])); w != got {
				t.Errorf("OrderKeys(%v, %v) = %d; reference %d", ts[a], ts[b], got, w)
			}
			if c, err := CompareKeys(&keys[a], &keys[b]); err == nil && c != 0 && sign(c) != got {
				t.Errorf("OrderKeys(%v, %v) = %d where < gives %d", ts[a], ts[b], got, c)
			}
		}
	}
	if t.Failed() {
		for p, a := range order {
			t.Logf("%3d %v", p, ts[a])
		}
	}
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// TestParseDateTimeMatchesReference holds the allocation-free dateTime reading to the one it replaced, on the
// edge cases above and on random lexical forms, valid and not: the same acceptance, instant, timezone, fields and
// fraction.
func TestParseDateTimeMatchesReference(t *testing.T) {
	var lexes []string
	for _, x := range comparisonTerms() {
		if x.Kind == rdf.KindLiteral {
			lexes = append(lexes, x.Value)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	for range 20000 {
		s := pick("", "-") + pick("2008", "1999", "0001", "12345", "208", "+208", "0000") + "-" +
			pick("01", "02", "12", "13", "00", "1", "+1") + "-" + pick("01", "28", "29", "30", "31", "32", "1")
		s += pick("", "T"+pick("00", "12", "23", "24", "25", "+1")+":"+pick("00", "59", "60", "5")+":"+
			pick("00", "59", "60", "5", "07.5", "07.000", "00.123456789012", "00.", "07.x"))
		s += pick("", "Z", "+00:00", "-00:00", "+14:00", "+15:00", "-05:30", "+05:60", "+5:00", "-13:59")
		lexes = append(lexes, s)
	}
	for _, s := range lexes {
		for _, isDate := range []bool{false, true} {
			got, gok := parseDateTimeLex(s, isDate)
			want, wok := refParseDateTimeLex(s, isDate)
			if gok != wok {
				t.Fatalf("parseDateTimeLex(%q, %v) ok %v, reference %v", s, isDate, gok, wok)
			}
			if !gok {
				continue
			}
			if !got.t.Equal(want.t) || got.hasTZ != want.hasTZ || got.tzMin != want.tzMin || got.frac != want.frac ||
				got.sec != want.sec || got.isDate != want.isDate {
				t.Fatalf("parseDateTimeLex(%q, %v) = %+v, reference %+v", s, isDate, got, want)
			}
			gl, wl := got.local(), want.refLocal()
			if fmt.Sprint(gl.Date()) != fmt.Sprint(wl.Date()) || gl.Hour() != wl.Hour() || gl.Minute() != wl.Minute() {
				t.Fatalf("local(%q) = %v, reference %v", s, gl, wl)
			}
		}
	}
}

// TestMapCaseMatchesCases holds UCASE/LCASE's fast path to x/text's Caser (Unicode's full case mapping): every
// rune below U+0250 alone and after a capital, every rune it copies as without case between letters and next to a
// final sigma, and random strings of them mixed with runes outside the fast path (Greek final sigma, ß, İ,
// combining marks, CJK, typographic punctuation, invalid UTF-8).
func TestMapCaseMatchesCases(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := mapCase(s, true), cases.Upper(language.Und).String(s); got != want {
			t.Fatalf("UCASE(%q) = %q, Caser %q", s, got, want)
		}
		if got, want := mapCase(s, false), cases.Lower(language.Und).String(s); got != want {
			t.Fatalf("LCASE(%q) = %q, Caser %q", s, got, want)
		}
	}
	var pool []rune
	for r := rune(0); r < 0x250; r++ {
		check(string(r))
		check("Ä" + string(r) + "x")
		pool = append(pool, r)
	}
	for r := rune(0x250); r < 0x30000; r++ { // the runes without case the fast path copies
		if caseless(r) && (unicode.ToLower(r) != r || unicode.ToUpper(r) != r || unicode.ToTitle(r) != r) {
			t.Fatalf("%U has a case", r)
		}
		if caseless(r) {
			check("Ä" + string(r) + "xΣ" + string(r))
			check("I" + string(r))
		}
	}
	pool = append(pool, 'Σ', 'σ', 'ς', 'ß', 'İ', 'ı', '\u0307', '\u0345', 'ﬀ', '日', 'ŉ', 'ǰ', 'ᾀ', '’', '…', '\u0301', '–')
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b []byte
		for range r.IntN(12) {
			if r.IntN(40) == 0 {
				b = append(b, 0xff) // invalid UTF-8
				continue
			}
			b = utf8.AppendRune(b, pool[r.IntN(len(pool))])
		}
		check(string(b))
	}
}

// TestSubstrMatchesReference holds SUBSTR, which now slices the string instead of converting it to runes, to the
// conversion on non-ASCII and invalid UTF-8 strings and every kind of bound: fractional (rounded half up),
// negative, zero, past the end, infinite and NaN.
func TestSubstrMatchesReference(t *testing.T) {
	texts := []string{"", "a", "Größe Bildschirm", "日本語のテキスト", "e\u0301t\u00e9", "ab\xffcd\xfe\xfe", "ß"}
	bounds := []rdf.Term{i("1"), i("0"), i("-1"), i("3"), i("100"), dec("1.5"), dec("2.49"), dec("-0.5"), dbl("INF"),
		dbl("-INF"), dbl("NaN"), dbl("2.5"), flt("1.5"),
		// Read without big numbers (numFloat), at the edges of rounding and of int64, and invalid forms.
		i("+2"), i("-0"), i("99999999999999999999"), dec("0.49999999999999999"), dec("1.49999999999999999999"),
		dec("2.5000000000000001"), dec("+.5"), dec("3."), i("1.5"), i("2 "), dec("1.5.1"), i("")}
	for _, s := range texts {
		for _, lang := range []string{"", "de"} {
			x := str(s)
			if lang != "" {
				x = rdf.LangString(s, lang)
			}
			for _, st := range bounds {
				got, gerr := substr([]rdf.Term{x, st})
				want, werr := refSubstr([]rdf.Term{x, st})
				if got != want || (gerr == nil) != (werr == nil) {
					t.Fatalf("SUBSTR(%v, %v) = %v, reference %v", x, st, got, want)
				}
				for _, l := range bounds {
					got, gerr := substr([]rdf.Term{x, st, l})
					want, werr := refSubstr([]rdf.Term{x, st, l})
					if got != want || (gerr == nil) != (werr == nil) {
						t.Fatalf("SUBSTR(%v, %v, %v) = %v, reference %v", x, st, l, got, want)
					}
				}
			}
		}
	}
}

// TestFloatFastPaths holds the paths that skip big numbers when a float type is involved to the big path:
// arithmetic and comparison of an integer or decimal with a float or double (the decimal read straight into a
// float64), and casts of doubles to xsd:decimal and xsd:integer (exact values without big.Rat).
func TestFloatFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	randomFloat := func() rdf.Term {
		var f float64
		switch r.IntN(5) {
		case 0:
			f = float64(r.IntN(2000)-1000) / float64([]int{1, 2, 4, 8, 1024}[r.IntN(5)])
		case 1:
			f = r.NormFloat64() * 1e6
		case 2:
			f = float64(r.Int64()) * []float64{1, -1, 1e3, 1e-30}[r.IntN(4)]
		case 3:
			f = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e300, 5e-324}[r.IntN(7)]
		default:
			f = float64(r.IntN(100)) / 10
		}
		if r.IntN(3) == 0 {
			return flt(formatDouble(float64(float32(f)), 32))
		}
		return dbl(formatDouble(f, 64))
	}
	for range 20000 {
		a, b := randomNumber(r), randomFloat()
		if r.IntN(2) == 0 {
			a, b = b, a
		}
		for _, op := range []byte("+-*/") {
			got, gerr := arithBig(op, a, b)
			want, werr := refArithBig(op, a, b)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Fatalf("%v %c %v = %v (%v), reference %v (%v)", a, op, b, got, gerr, want, werr)
			}
		}
		gc, gerr := Compare(a, b)
		wc, werr := refCompare(a, b)
		if gc != wc || (gerr == nil) != (werr == nil) {
			t.Fatalf("Compare(%v, %v) = %v (%v), reference %v (%v)", a, b, gc, gerr, wc, werr)
		}
		geq, gerr := Equal(a, b)
		weq, werr := refEqual(a, b)
		if geq != weq || (gerr == nil) != (werr == nil) {
			t.Fatalf("Equal(%v, %v) = %v (%v), reference %v (%v)", a, b, geq, gerr, weq, werr)
		}
		x := randomFloat()
		n, _ := toNum(x)
		if n.kind >= kFloat && !math.IsNaN(n.f) && !math.IsInf(n.f, 0) {
			want := num{kind: kDecimal, r: new(big.Rat).SetFloat64(n.f)}.term()
			if got, err := Cast(rdf.XSDDecimal, x); err != nil || got != want {
				t.Fatalf("xsd:decimal(%v) = %v (%v), big %v", x, got, err, want)
			}
			want = num{kind: kInteger, r: new(big.Rat).SetFloat64(math.Trunc(n.f))}.term()
			if got, err := Cast(rdf.XSDInteger, x); err != nil || got != want {
				t.Fatalf("xsd:integer(%v) = %v (%v), big %v", x, got, err, want)
			}
		}
	}
}

// BenchmarkNewKey measures parsing a term for comparison, the cost a per-query cache of parsed values per term id
// would have to beat with a map lookup.
func BenchmarkNewKey(b *testing.B) {
	for _, x := range []rdf.Term{dec("7986.40"), i("12"), dt("2008-03-14T12:43:08"), dt("2010-12-20T08:17:52-05:00"), str("Größe")} {
		b.Run(x.Datatype[len(x.Datatype)-6:], func(b *testing.B) {
			for range b.N {
				k := NewKey(x)
				if k.kind == keyOther {
					b.Fatal(x)
				}
			}
		})
	}
}

package index

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// numericForms pairs datatypes with lexical forms: the first ones are held in their ids, the rest must stay in the
// dictionary because the id would print them otherwise (or they do not fit).
var numericForms = [][2]string{
	{rdf.XSDInteger, "0"}, {rdf.XSDInteger, "7"}, {rdf.XSDInteger, "-7"}, {rdf.XSDInteger, "134217727"},
	{rdf.XSDInteger, "-134217728"}, {rdf.XSDDecimal, "75.08"}, {rdf.XSDDecimal, "75.080"}, {rdf.XSDDecimal, "75.1"},
	{rdf.XSDDecimal, "0.5"}, {rdf.XSDDecimal, "-0.5"}, {rdf.XSDDecimal, "0.00"}, {rdf.XSDDecimal, "12"},
	{rdf.XSDDecimal, "-335544.31"}, {rdf.XSDDecimal, "33554.431"}, {XSDDate, "2008-06-20"}, {XSDDate, "0001-01-01"},
	{XSDDate, "9999-12-31"},
	// not inlined
	{rdf.XSDInteger, "01"}, {rdf.XSDInteger, "+1"}, {rdf.XSDInteger, "-0"}, {rdf.XSDInteger, "134217728"},
	{rdf.XSDInteger, "-134217729"}, {rdf.XSDInteger, "1.0"}, {rdf.XSDInteger, ""}, {rdf.XSDInteger, " 1"},
	{rdf.XSDInteger, "1e3"}, {rdf.XSDInteger, "--1"}, {rdf.XSDInteger, "9999999999999999999999"},
	{rdf.XSDDecimal, "1."}, {rdf.XSDDecimal, ".5"}, {rdf.XSDDecimal, "1.0000"}, {rdf.XSDDecimal, "-0.0"},
	{rdf.XSDDecimal, "-0"}, {rdf.XSDDecimal, "+1.5"}, {rdf.XSDDecimal, "01.5"}, {rdf.XSDDecimal, "335544.32"},
	{rdf.XSDDecimal, "-.5"}, {rdf.XSDDecimal, "--1.5"}, {rdf.XSDDecimal, "1.5.5"}, {rdf.XSDDecimal, "1.-5"},
	{rdf.XSDDecimal, "-"}, {rdf.XSDDecimal, ""}, {XSDDate, "2008-6-20"}, {XSDDate, "2008-13-01"},
	{XSDDate, "2008-00-01"}, {XSDDate, "2008-06-32"}, {XSDDate, "2008-06-00"}, {XSDDate, "2008-06-20Z"},
	{XSDDate, "-2008-06-20"}, {XSDDate, "2008/06/20"}, {XSDDate, "20O8-06-20"},
	{rdf.XSDDouble, "1"}, {rdf.XSDString, "1"}, {"http://ex.org/dt", "1"},
}

const inlinedForms = 17 // the first entries of numericForms

// TestInlineForms: the forms meant to be held in ids are, print back byte for byte with their datatype, and the
// others are not; string and byte forms agree.
func TestInlineForms(t *testing.T) {
	for i, f := range numericForms {
		id, ok := inlineID(f[0], f[1])
		idb, okb := inlineID([]byte(f[0]), []byte(f[1]))
		if id != idb || ok != okb {
			t.Errorf("%q^^%s: string %x %v, bytes %x %v", f[1], f[0], id, ok, idb, okb)
		}
		if ok != (i < inlinedForms) {
			t.Errorf("%q^^%s: inlined %v, want %v", f[1], f[0], ok, i < inlinedForms)
			continue
		}
		if ok {
			checkRoundTrip(t, id, f[0], f[1])
		}
	}
}

func checkRoundTrip(t *testing.T, id ID, dt, lex string) {
	t.Helper()
	if !IsInline(id) || id <= MaxDictID {
		t.Fatalf("%q^^%s: id %x is not an inline id", lex, dt, id)
	}
	got, gotDT := AppendInline(nil, id)
	if string(got) != lex || gotDT != dt {
		t.Fatalf("%q^^%s: id %x prints %q^^%s", lex, dt, id, got, gotDT)
	}
	if tm := inlineTerm(id); tm != rdf.Literal(lex, dt) {
		t.Fatalf("%q^^%s: id %x is the term %v", lex, dt, id, tm)
	}
}

// TestInlineRandomForms: random strings over the characters of numbers and dates. Every one inlined prints back
// exactly, so no two forms share an id (an id prints one form); each id's kind keeps the values' order.
func TestInlineRandomForms(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const chars = "0123456789-.+0123456789"
	byID := map[ID]string{}
	inlined := 0
	for i := 0; i < 200000; i++ {
		var b []byte
		dt := []string{rdf.XSDInteger, rdf.XSDDecimal, XSDDate}[i%3]
		if dt == XSDDate && r.IntN(2) == 0 {
			b = []byte(strconv.Itoa(1000 + r.IntN(9000)))
			b = append(b, '-', byte('0'+r.IntN(2)), byte('0'+r.IntN(10)), '-', byte('0'+r.IntN(4)), byte('0'+r.IntN(10)))
		} else {
			for n := 1 + r.IntN(12); n > 0; n-- {
				b = append(b, chars[r.IntN(len(chars))])
			}
		}
		id, ok := inlineID(dt, string(b))
		if !ok {
			continue
		}
		inlined++
		checkRoundTrip(t, id, dt, string(b))
		if prev, dup := byID[id]; dup && prev != dt+string(b) {
			t.Fatalf("%q and %q share id %x", prev, dt+string(b), id)
		}
		byID[id] = dt + string(b)
	}
	if inlined < 10000 {
		t.Fatalf("only %d random forms inlined: the test no longer reaches the inline encoding", inlined)
	}
	for i := 0; i < 20000; i++ { // integers and same-scale decimals ascend with their ids
		a, b := r.Int64N(1<<28)-1<<27, r.Int64N(1<<28)-1<<27
		ia, _ := inlineID(rdf.XSDInteger, strconv.FormatInt(a, 10))
		ib, _ := inlineID(rdf.XSDInteger, strconv.FormatInt(b, 10))
		if (a < b) != (ia < ib) {
			t.Fatalf("integers %d, %d have ids %x, %x", a, b, ia, ib)
		}
		da, _ := inlineID(rdf.XSDDecimal, strconv.FormatFloat(float64(a/8)/100, 'f', 2, 64))
		db, _ := inlineID(rdf.XSDDecimal, strconv.FormatFloat(float64(b/8)/100, 'f', 2, 64))
		if a/8 != 0 && b/8 != 0 && (a/8 < b/8) != (da < db) {
			t.Fatalf("decimals %d, %d (hundredths) have ids %x, %x", a/8, b/8, da, db)
		}
	}
}

// TestDecimalID: the id made from a mantissa and a scale is the one the decimal written with that many
// fractional digits is held in, and none is made where that form is not inlined.
func TestDecimalID(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 20000 {
		m, scale := r.Int64N(1<<27)-1<<26, r.IntN(5)
		if i < 8 {
			m, scale = []int64{0, 5, -5, 1<<25 - 1, -(1<<25 - 1), 1 << 25, 0, -1}[i], []int{0, 1, 3, 2, 1, 0, 3, 3}[i]
		}
		lex := strconv.FormatInt(m, 10)
		if scale > 0 {
			neg := m < 0
			digits := strconv.FormatInt(max(m, -m), 10)
			for len(digits) <= scale {
				digits = "0" + digits
			}
			lex = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
			if neg {
				lex = "-" + lex
			}
		}
		want, wantOK := inlineID(rdf.XSDDecimal, lex)
		got, ok := DecimalID(m, scale)
		if ok != wantOK || got != want {
			t.Fatalf("DecimalID(%d, %d) = %x %v; %q has %x %v", m, scale, got, ok, lex, want, wantOK)
		}
	}
}

// TestInlineLookupWithoutData: an inline id needs no dictionary entry, so Lookup finds a number the data never
// mentions, and a dictionary entry never shadows it.
func TestInlineLookupWithoutData(t *testing.T) {
	b := NewBuilder()
	if err := b.Add(rdf.Triple(rdf.IRI("http://ex.org/s"), rdf.IRI("http://ex.org/p"), rdf.Literal("5", rdf.XSDInteger))); err != nil {
		t.Fatal(err)
	}
	d := b.Build()
	if d.Dict.Len() != 2 {
		t.Errorf("the dictionary holds %d terms, want the 2 IRIs", d.Dict.Len())
	}
	five := d.Dict.Lookup(rdf.Literal("5", rdf.XSDInteger))
	if !IsInline(five) || d.Default.Match(0, 0, five).Len() != 1 {
		t.Errorf("5 has id %x, matched %d times", five, d.Default.Match(0, 0, five).Len())
	}
	if id := d.Dict.Lookup(rdf.Literal("6", rdf.XSDInteger)); !IsInline(id) || d.Default.Match(0, 0, id).Len() != 0 {
		t.Errorf("6 has id %x", id)
	}
}

func BenchmarkInlineTerm(b *testing.B) {
	id, _ := inlineID(rdf.XSDDecimal, "4096.25")
	buf := make([]byte, 0, 32)
	for b.Loop() {
		buf, _ = AppendInline(buf[:0], id)
	}
}

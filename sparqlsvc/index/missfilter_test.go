package index

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// missFilterTerms are terms present in a dictionary and their near neighbours that are not: the same text as
// another kind (an IRI's text as a literal and a literal's as an IRI), another datatype, another language tag or
// none, non-ASCII text in another normal form or case, numbers held in their ids, and keys longer than the filter
// holds (probed as ever).
func missFilterTerms(i int) (present, absent []rdf.Term) {
	n := strconv.Itoa(i)
	long := strings.Repeat("long description ", 10) + n
	present = []rdf.Term{
		rdf.IRI("http://ex.org/vendor" + n), rdf.String("label " + n), rdf.LangString("étiquette "+n, "fr"),
		rdf.Literal("v"+n, "http://ex.org/type"), rdf.String("Straße " + n), rdf.Blank("b" + n), rdf.String(long),
		rdf.String("http://ex.org/page" + n), rdf.Literal(n, rdf.XSDInteger), rdf.Literal(n+".5", rdf.XSDDecimal),
	}
	absent = []rdf.Term{
		rdf.String("http://ex.org/vendor" + n), rdf.IRI("label " + n), rdf.String("étiquette " + n),
		rdf.LangString("étiquette "+n, "de"), rdf.LangString("label "+n, "en"), rdf.Literal("v"+n, rdf.XSDString),
		rdf.String("v" + n), rdf.String("Strasse " + n), rdf.String("STRASSE " + n), rdf.String("e\u0301tiquette " + n),
		rdf.IRI("http://ex.org/page" + n), rdf.Blank("c" + n), rdf.String(long + "x"), rdf.String("label " + n + " "),
		rdf.Literal("0"+n+"x", rdf.XSDInteger), rdf.Literal("v"+n, "http://ex.org/unknownType"),
		rdf.String(strings.Repeat("0123456789abcdef", 1) + n), // a hash-like key
	}
	return present, absent
}

// TestLookupComputedMatchesLookup: LookupComputed, which counts its misses and then answers them from the miss
// filter, gives Lookup's id for every term present and absent, before the filter is made, after, and in a
// dictionary saved and opened (keys in one heap, not a builder's chunks). The filter must also reject most absent
// keys without probing, or it would cost without saving.
func TestLookupComputedMatchesLookup(t *testing.T) {
	const groups = 600
	b := NewBuilder()
	for i := range groups {
		present, _ := missFilterTerms(i)
		for _, x := range present {
			if err := b.Add(rdf.Triple(rdf.IRI("http://ex.org/s"+strconv.Itoa(i)), rdf.IRI("http://ex.org/p"), x)); err != nil {
				t.Fatal(err)
			}
		}
	}
	built := b.Build()
	for name, d := range map[string]*Dataset{"built": built, "opened": saveAndOpen(t, built)} {
		dict := d.Dict
		check := func(round string) {
			for i := range groups {
				present, absent := missFilterTerms(i)
				for _, x := range present {
					if id := dict.LookupComputed(x); id == 0 || id != dict.Lookup(x) {
						t.Fatalf("%s %s: LookupComputed(%v) = %d, Lookup %d", name, round, x, id, dict.Lookup(x))
					}
				}
				for _, x := range absent {
					if id, want := dict.LookupComputed(x), dict.Lookup(x); id != want || id != 0 && !IsInline(id) {
						t.Fatalf("%s %s: LookupComputed(%v) = %d, Lookup %d", name, round, x, id, want)
					}
				}
			}
		}
		if dict.MissFilterBytes() != 0 {
			t.Fatalf("%s: a filter before any miss", name)
		}
		check("counting") // ~10 000 misses: past missFilterAfter's 4 096, so the filter is made on the way
		if dict.MissFilterBytes() == 0 {
			t.Fatalf("%s: no filter after %d misses", name, dict.miss.misses.Load())
		}
		check("filtered")
		f := dict.miss.filter.Load()
		rejected, short := 0, 0
		for i := range groups {
			_, absent := missFilterTerms(i)
			for _, x := range absent {
				k, ok := dict.appendKey(nil, x)
				if !ok || len(k) > filterKeyMax {
					continue
				}
				short++
				if !f.mayHold(k) {
					rejected++
				}
			}
		}
		if rejected < short*95/100 {
			t.Errorf("%s: the filter rejects %d of %d absent keys", name, rejected, short)
		}
	}
}

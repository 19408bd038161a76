package index

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// dateForms are dateTimes and dates the dictionary numbers in value order, with neighbours it must not mistake for
// them: the same instant in other timezones, fractions, 24:00:00, dates with a timezone, years past 9999 and before
// 1, and invalid forms (which stay outside the blocks).
var dateForms = [][2]string{
	{XSDDateTime, "2008-03-14T12:43:08"}, {XSDDateTime, "2008-03-14T12:43:08Z"},
	{XSDDateTime, "2008-03-14T13:43:08+01:00"}, {XSDDateTime, "2008-03-14T12:43:08.5Z"},
	{XSDDateTime, "2008-03-14T12:43:08.50Z"}, {XSDDateTime, "2008-03-14T12:43:08-14:00"},
	{XSDDateTime, "2008-12-31T24:00:00"}, {XSDDateTime, "2009-01-01T00:00:00"}, {XSDDateTime, "0001-01-01T00:00:00Z"},
	{XSDDateTime, "-0044-03-15T12:00:00"}, {XSDDateTime, "12345-06-07T08:09:10Z"},
	{XSDDateTime, "2008-02-30T00:00:00"}, {XSDDateTime, "2008-3-14T12:43:08"}, {XSDDateTime, "not a date"},
	{XSDDateTime, "99999999999-01-01T00:00:00"},
	{XSDDate, "2008-03-14Z"}, {XSDDate, "2008-03-14+14:00"}, {XSDDate, "12345-01-01"}, {XSDDate, "2008-03-14"},
	{XSDDate, "2008-02-31"},
}

// randomDateForm returns a random xsd:dateTime or xsd:date literal, valid or nearly so.
func randomDateForm(r *rand.Rand) rdf.Term {
	y := 2000 + r.IntN(12)
	if r.IntN(20) == 0 {
		y = r.IntN(12000) - 1000
	}
	ys := fmt.Sprintf("%04d", y)
	if y < 0 {
		ys = fmt.Sprintf("-%04d", -y)
	}
	date := fmt.Sprintf("%s-%02d-%02d", ys, 1+r.IntN(12), 1+r.IntN(31)) // 31 February is invalid: kept out
	tz := []string{"", "", "Z", "+01:00", "-05:30", "+14:00", "-14:00", "+00:00"}[r.IntN(8)]
	if r.IntN(5) == 0 {
		return rdf.Literal(date+tz, XSDDate)
	}
	tm := fmt.Sprintf("%02d:%02d:%02d", r.IntN(24), r.IntN(4)*15, r.IntN(3)*20)
	if r.IntN(30) == 0 {
		tm = "24:00:00"
	}
	if r.IntN(4) == 0 {
		tm += "." + strconv.Itoa(r.IntN(1000))
	}
	return rdf.Literal(date+"T"+tm+tz, XSDDateTime)
}

// TestDateBlocksInValueOrder: every valid dateTime and date in the dictionary lies in the block of its class, ids
// within a block ascend exactly as builtin.OrderCompare orders the terms, the column gives what YEAR … MINUTES
// give, and terms, lookups and triples survive the renumbering and a save and open.
func TestDateBlocksInValueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 14))
	var terms []rdf.Term
	for _, f := range dateForms {
		terms = append(terms, rdf.Literal(f[1], f[0]))
	}
	for range 3000 {
		terms = append(terms, randomDateForm(r))
	}
	terms = append(terms, rdf.LangString("2008-03-14T12:43:08", "en"), rdf.String("2008-03-14T12:43:08"))
	b := NewBuilder()
	for i, tm := range terms {
		s := rdf.IRI("http://ex.org/s" + strconv.Itoa(i%700))
		if err := b.Add(rdf.Triple(s, rdf.IRI("http://ex.org/p"+strconv.Itoa(i%3)), tm)); err != nil {
			t.Fatal(err)
		}
		if err := b.Add(rdf.Triple(s, rdf.IRI("http://ex.org/q"), rdf.IRI("http://ex.org/o"+strconv.Itoa(i)))); err != nil {
			t.Fatal(err)
		}
	}
	built := b.Build()
	opened := saveAndOpen(t, built)
	fn := builtin.NewContext(time.Now(), "")
	for name, d := range map[string]*Dataset{"built": built, "opened": opened} {
		blocks := d.Dict.DateBlocks()
		if len(blocks) < 4 {
			t.Fatalf("%s: %d blocks, want one per class: %v", name, len(blocks), blocks)
		}
		inBlock := 0
		for i, tm := range terms {
			id := d.Dict.Lookup(tm)
			if got := d.Dict.Term(id); id == 0 || !got.Equal(tm) {
				t.Fatalf("%s: %v has id %d, whose term is %v", name, tm, id, got)
			}
			if o := d.Default.Match(rdf0(d, "http://ex.org/s"+strconv.Itoa(i%700)), rdf0(d, "http://ex.org/p"+strconv.Itoa(i%3)), id); o.Len() != 1 {
				t.Fatalf("%s: the triple of %v is lost", name, tm)
			}
			isDate := tm.Datatype == XSDDate
			v, valid := builtin.DateValueOf(tm.Value, isDate)
			valid = valid && tm.Lang == "" && isDateType(tm.Datatype)
			bi := d.Dict.DateBlockOf(id)
			if IsInline(id) {
				if bi >= 0 {
					t.Fatalf("%s: inline %v in block %d", name, tm, bi)
				}
			} else if valid != (bi >= 0) || (valid && blocks[bi].Class != v.Class) {
				t.Fatalf("%s: %v (valid %v, class %d) in block %d of %v", name, tm, valid, v.Class, bi, blocks)
			}
			col, ok := d.Dict.DateValue(id)
			if ok != (valid && (bi >= 0 || IsInline(id))) {
				t.Fatalf("%s: DateValue(%v) ok %v", name, tm, ok)
			}
			if !ok {
				continue
			}
			inBlock++
			for _, f := range []string{"YEAR", "MONTH", "DAY", "HOURS", "MINUTES"} {
				want, err := fn.Call(f, []rdf.Term{tm})
				if err != nil || want.Value != strconv.Itoa(int(col.Field(f))) {
					t.Fatalf("%s: %s(%v) = %v (%v), column %d", name, f, tm, want, err, col.Field(f))
				}
			}
		}
		if inBlock < len(terms)/2 {
			t.Fatalf("%s: only %d of %d terms in blocks", name, inBlock, len(terms))
		}
		// Within a block, ids ascend as OrderCompare orders the terms (all pairs of a sample), and Distinct says
		// whether two neighbours have the same value.
		distinct := 0
		for _, bl := range blocks {
			same := false
			for id := bl.Lo; id < bl.Hi; id++ {
				if c, err := builtin.Compare(d.Dict.Term(id), d.Dict.Term(id+1)); err == nil && c == 0 {
					same = true
				}
			}
			if bl.Distinct == same {
				t.Fatalf("%s: block %v: Distinct %v, but neighbours of the same value: %v", name, bl, bl.Distinct, same)
			}
			if bl.Distinct {
				distinct++
			}
			var ids []ID
			for id := bl.Lo; id <= bl.Hi; id++ {
				ids = append(ids, id)
			}
			for i := range ids {
				for j := i + 1; j < len(ids) && j < i+40; j++ {
					a, c := d.Dict.Term(ids[i]), d.Dict.Term(ids[j])
					if builtin.OrderCompare(a, c) >= 0 {
						t.Fatalf("%s: ids %d < %d but %v does not order before %v", name, ids[i], ids[j], a, c)
					}
				}
				k := ids[r.IntN(len(ids))]
				if cmp := builtin.OrderCompare(d.Dict.Term(ids[i]), d.Dict.Term(k)); (cmp < 0) != (ids[i] < k) || (cmp == 0) != (ids[i] == k) {
					t.Fatalf("%s: ids %d, %d against OrderCompare %d", name, ids[i], k, cmp)
				}
			}
		}
		if distinct == len(blocks) || distinct == 0 {
			t.Fatalf("%s: %d of %d blocks distinct; the data writes some instants two ways, not all", name, distinct, len(blocks))
		}
	}
}

// TestOnlyInvalidDates: a dictionary whose dateTimes are all invalid has no block, and saves and opens.
func TestOnlyInvalidDates(t *testing.T) {
	b := NewBuilder()
	bad := rdf.Literal("not a date", XSDDateTime)
	if err := b.Add(rdf.Triple(rdf.IRI("http://ex.org/s"), rdf.IRI("http://ex.org/p"), bad)); err != nil {
		t.Fatal(err)
	}
	d := saveAndOpen(t, b.Build())
	if id := d.Dict.Lookup(bad); id == 0 || !d.Dict.Term(id).Equal(bad) || len(d.Dict.DateBlocks()) != 0 {
		t.Fatalf("id %d, term %v, blocks %v", id, d.Dict.Term(id), d.Dict.DateBlocks())
	}
}

// TestDatesInEveryPosition: a dateTime as subject, predicate or graph name (generalized RDF, which the Builder
// takes) is renumbered there too, and a dictionary of dateTimes only saves and opens.
func TestDatesInEveryPosition(t *testing.T) {
	dt := func(s string) rdf.Term { return rdf.Literal(s, XSDDateTime) }
	quads := []rdf.Quad{
		{S: dt("2009-01-01T00:00:00Z"), P: dt("2008-01-01T00:00:00Z"), O: dt("2007-01-01T00:00:00Z"), G: dt("2006-01-01T00:00:00")},
		{S: dt("2005-01-01T00:00:00Z"), P: dt("2008-01-01T00:00:00Z"), O: dt("2004-01-01T00:00:00Z")},
	}
	b := NewBuilder()
	for _, q := range quads {
		if err := b.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	built := b.Build()
	for name, d := range map[string]*Dataset{"built": built, "opened": saveAndOpen(t, built)} {
		for _, q := range quads {
			g := d.Default
			if !q.G.IsZero() {
				g = d.Graph(d.Dict.Lookup(q.G))
			}
			s, p, o := d.Dict.Lookup(q.S), d.Dict.Lookup(q.P), d.Dict.Lookup(q.O)
			if g == nil || s == 0 || p == 0 || o == 0 || g.Match(s, p, o).Len() != 1 || g.Match(0, 0, o).Len() != 1 {
				t.Fatalf("%s: %v is lost", name, q)
			}
		}
		if bl := d.Dict.DateBlocks(); len(bl) != 2 || bl[1].Hi-bl[1].Lo != 4 {
			t.Fatalf("%s: blocks %v", name, bl)
		}
	}
}

func rdf0(d *Dataset, iri string) ID { return d.Dict.Lookup(rdf.IRI(iri)) }

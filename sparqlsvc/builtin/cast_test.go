package builtin

import (
	"errors"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestCastToDate: xsd:date, the one cast beyond §17.5's seven, follows XPath's rules: a string or a date with a
// valid date lexical form, and the date part of a dateTime with its timezone as written (24:00:00 being the next
// day); anything else is a type error, never a wrong date.
func TestCastToDate(t *testing.T) {
	for _, c := range []struct {
		in   rdf.Term
		want string // "" for a type error
	}{
		{rdf.String("2008-03-10"), "2008-03-10"},
		{rdf.String(" 2008-03-10Z "), "2008-03-10Z"},
		{rdf.String("2008-02-30"), ""},
		{rdf.String("2008-03-10T12:00:00"), ""},
		{rdf.String("10/03/2008"), ""},
		{rdf.Literal("2008-03-10+02:00", xsdDate), "2008-03-10+02:00"},
		{rdf.Literal("2008-13-10", xsdDate), ""},
		{rdf.Literal("2008-03-10T12:30:00", xsdDT), "2008-03-10"},
		{rdf.Literal("2008-03-10T23:30:00Z", xsdDT), "2008-03-10Z"},
		{rdf.Literal("2008-03-10T01:00:00.25-05:00", xsdDT), "2008-03-10-05:00"},
		{rdf.Literal("2008-12-31T24:00:00", xsdDT), "2009-01-01"},
		{rdf.Literal("2008-02-28T24:00:00+01:00", xsdDT), "2008-02-29+01:00"},
		{rdf.Literal("12008-03-10T12:00:00Z", xsdDT), "12008-03-10Z"},
		{rdf.Literal("2008-03-10T25:00:00", xsdDT), ""},
		{Integer(20080310), ""},
		{Boolean(true), ""},
		{rdf.IRI("http://ex.org/2008-03-10"), ""},
		{rdf.LangString("2008-03-10", "en"), ""},
	} {
		got, err := Cast(xsdDate, c.in)
		if c.want == "" {
			if !errors.Is(err, ErrType) {
				t.Errorf("xsd:date(%v) = %v, %v; want a type error", c.in, got, err)
			}
			continue
		}
		if err != nil || got != rdf.Literal(c.want, xsdDate) {
			t.Errorf("xsd:date(%v) = %v, %v; want %q^^xsd:date", c.in, got, err, c.want)
		}
	}
	if !IsCast(xsdDate) {
		t.Error("IsCast(xsd:date) is false: the function would be refused as unknown")
	}
}

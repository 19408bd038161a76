package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
)

func sample() *Result {
	return &Result{
		Vars: []string{"s", "o", "n"},
		Rows: [][]rdf.Term{
			{rdf.IRI("http://ex.org/a?x=1&y=<2>"), rdf.LangString("chat \"quoted\"\n<b>", "fr"), rdf.Literal("4", rdf.XSDInteger)},
			{rdf.Blank("b0"), rdf.String("tab\there, comma"), {}},
			{{}, rdf.Literal("5.5", rdf.XSDDecimal), rdf.Literal("1e3", rdf.XSDDouble)},
			{rdf.IRI("http://ex.org/ü"), rdf.Literal("x", "http://ex.org/dt"), rdf.String("")},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, f := range []Format{JSON, XML, TSV} {
		t.Run(f.String(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteAll(&buf, f, sample()); err != nil {
				t.Fatal(err)
			}
			got, err := Read(&buf, f)
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			if ok, why := Equal(got, sample(), true); !ok {
				t.Fatalf("%s\n%s", why, buf.String())
			}
		})
	}
}

func TestBooleanRoundTrip(t *testing.T) {
	for _, f := range []Format{JSON, XML} {
		for _, v := range []bool{true, false} {
			var buf bytes.Buffer
			if err := WriteBoolean(&buf, f, v); err != nil {
				t.Fatal(err)
			}
			got, err := Read(&buf, f)
			if err != nil || got.Boolean == nil || *got.Boolean != v {
				t.Errorf("%s %v: got %+v, %v", f, v, got, err)
			}
		}
	}
}

func TestCSVExact(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAll(&buf, CSV, sample()); err != nil {
		t.Fatal(err)
	}
	want := "s,o,n\r\n" +
		"http://ex.org/a?x=1&y=<2>,\"chat \"\"quoted\"\"\n<b>\",4\r\n" +
		"_:b0,\"tab\there, comma\",\r\n" +
		",5.5,1e3\r\n" +
		"http://ex.org/ü,x,\r\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}

func TestEqual(t *testing.T) {
	x, y := rdf.Blank("x"), rdf.Blank("y")
	a, b := rdf.IRI("http://ex.org/a"), rdf.IRI("http://ex.org/b")
	r := func(rows ...[]rdf.Term) *Result { return &Result{Vars: []string{"u", "v"}, Rows: rows} }
	cases := []struct {
		name    string
		got     *Result
		want    *Result
		ordered bool
		equal   bool
	}{
		{"same", r([]rdf.Term{a, b}), r([]rdf.Term{a, b}), true, true},
		{"order ignored", r([]rdf.Term{a, b}, []rdf.Term{b, a}), r([]rdf.Term{b, a}, []rdf.Term{a, b}), false, true},
		{"order kept", r([]rdf.Term{a, b}, []rdf.Term{b, a}), r([]rdf.Term{b, a}, []rdf.Term{a, b}), true, false},
		{"bnode renamed", r([]rdf.Term{x, a}, []rdf.Term{x, b}), r([]rdf.Term{y, a}, []rdf.Term{y, b}), false, true},
		{"bnode split", r([]rdf.Term{x, a}, []rdf.Term{x, b}), r([]rdf.Term{x, a}, []rdf.Term{y, b}), false, false},
		{"bnode vs iri", r([]rdf.Term{x, a}), r([]rdf.Term{a, a}), false, false},
		{"multiset counts", r([]rdf.Term{a, b}, []rdf.Term{a, b}), r([]rdf.Term{a, b}, []rdf.Term{b, a}), false, false},
		{"unbound differs", r([]rdf.Term{a, {}}), r([]rdf.Term{a, b}), false, false},
		{"lang case", r([]rdf.Term{rdf.LangString("x", "EN"), {}}), r([]rdf.Term{rdf.LangString("x", "en"), {}}), false, true},
		{"vars reordered", &Result{Vars: []string{"v", "u"}, Rows: [][]rdf.Term{{b, a}}}, r([]rdf.Term{a, b}), false, true},
	}
	for _, c := range cases {
		if ok, why := Equal(c.got, c.want, c.ordered); ok != c.equal {
			t.Errorf("%s: Equal = %v (%s), want %v", c.name, ok, why, c.equal)
		}
	}
}

// The W3C result files must read as the terms they describe.
func TestReadW3CFiles(t *testing.T) {
	dir := filepath.Join(conformance.SuitesDir(t), "sparql", "sparql11")
	open := func(p string) *os.File {
		f, err := os.Open(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	tsv, err := Read(open("csv-tsv-res/csvtsv01.tsv"), TSV)
	if err != nil {
		t.Fatal(err)
	}
	if len(tsv.Rows) != 6 || !tsv.Get(3, "o").Equal(rdf.Literal("4", rdf.XSDInteger)) ||
		!tsv.Get(4, "o").Equal(rdf.Literal("5.5", rdf.XSDDecimal)) || tsv.Get(5, "o").Kind != rdf.KindBlank {
		t.Errorf("csvtsv01.tsv read as %+v", tsv)
	}
	js, err := Read(open("json-res/jsonres01.srj"), JSON)
	if err != nil {
		t.Fatal(err)
	}
	if len(js.Rows) != 6 || !js.Get(3, "o").Equal(rdf.Literal("4", rdf.XSDInteger)) {
		t.Errorf("jsonres01.srj read as %+v", js)
	}
	srx, err := Read(open("aggregates/agg01.srx"), XML)
	if err != nil {
		t.Fatal(err)
	}
	if len(srx.Rows) != 1 || !strings.HasSuffix(srx.Get(0, "C").Datatype, "#integer") {
		t.Errorf("agg01.srx read as %+v", srx)
	}
}

func TestForMediaType(t *testing.T) {
	for mt, want := range map[string]Format{"application/json": JSON, "application/sparql-results+json; charset=utf-8": JSON,
		"Application/Sparql-Results+XML": XML, "text/csv": CSV, "text/tab-separated-values": TSV} {
		if f, ok := ForMediaType(mt); !ok || f != want {
			t.Errorf("%q: %v %v", mt, f, ok)
		}
	}
	if _, ok := ForMediaType("text/turtle"); ok {
		t.Error("text/turtle is not a result format")
	}
}

func TestBareNumber(t *testing.T) {
	yes := []rdf.Term{rdf.Literal("4", rdf.XSDInteger), rdf.Literal("-4", rdf.XSDInteger), rdf.Literal(".5", rdf.XSDDecimal),
		rdf.Literal("+1.0", rdf.XSDDecimal), rdf.Literal("1e3", rdf.XSDDouble), rdf.Literal("1.E-3", rdf.XSDDouble), rdf.Literal(".5e1", rdf.XSDDouble)}
	no := []rdf.Term{rdf.Literal("4.", rdf.XSDDecimal), rdf.Literal("1.5", rdf.XSDDouble), rdf.Literal("+-4", rdf.XSDInteger),
		rdf.Literal("", rdf.XSDInteger), rdf.Literal("e3", rdf.XSDDouble), rdf.Literal(".e3", rdf.XSDDouble), rdf.Literal("4", rdf.XSDString)}
	for _, l := range yes {
		if !bareNumber(l) {
			t.Errorf("%v should be written bare", l)
		}
	}
	for _, l := range no {
		if bareNumber(l) {
			t.Errorf("%v must not be written bare", l)
		}
	}
}

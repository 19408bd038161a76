package eval

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// TestDateTimeCastIDMatchesCast: xsd:dateTime(?v), xsd:dateTime(STR(?v)) and xsd:dateTime(xsd:string(?v)) answered
// with ?v's id (dateTimeCastID) give what builtin.Cast gives on the terms, for every kind of value: dateTimes with
// and without timezones, fractions, -00:00, forms that are no dateTime (31 February, hour 24 with minutes, a space
// around), dates, strings holding a dateTime (with spaces the string cast trims), numbers, IRIs and values a BIND
// computed (overlay ids); and the shortcut is taken for the valid dateTimes.
func TestDateTimeCastIDMatchesCast(t *testing.T) {
	xsd := rdf.XSDNS
	dt := xsd + "dateTime"
	pool := []rdf.Term{
		rdf.Literal("2008-06-01T10:20:30Z", dt), rdf.Literal("2008-06-01T10:20:30", dt),
		rdf.Literal("2008-06-01T12:20:30+02:00", dt), rdf.Literal("2008-06-01T10:20:30-00:00", dt),
		rdf.Literal("2008-06-01T10:20:30.250Z", dt), rdf.Literal("2008-02-31T10:20:30Z", dt),
		rdf.Literal("2008-06-01T24:10:00Z", dt), rdf.Literal("2008-06-01T24:00:00Z", dt),
		rdf.Literal(" 2008-06-01T10:20:30Z", dt), rdf.Literal("2008-06-01T10:20:30Z ", dt),
		rdf.Literal("2008-06-01", xsd+"date"), rdf.Literal("2008-06-01Z", xsd+"date"),
		rdf.String("2008-06-01T10:20:30Z"), rdf.String(" 2008-06-01T10:20:30Z\n"), rdf.String("abc"),
		rdf.Literal("7", rdf.XSDInteger), rdf.IRI("http://ex.org/2008-06-01T10:20:30Z"),
		rdf.LangString("2008-06-01T10:20:30Z", "en"),
	}
	b, add := builderAdding(t)
	for i, v := range pool {
		s := rdf.IRI(fmt.Sprintf("http://ex.org/s%d", i))
		add(s, rdf.IRI("http://ex.org/v"), v)
	}
	ds := FromIndex(b.Build())
	strOf := map[string]func(rdf.Term) (rdf.Term, error){
		"?v": func(v rdf.Term) (rdf.Term, error) { return v, nil },
		"STR(?v)": func(v rdf.Term) (rdf.Term, error) {
			if v.Kind != rdf.KindIRI && v.Kind != rdf.KindLiteral {
				return rdf.Term{}, builtin.ErrType
			}
			return rdf.String(v.Value), nil
		},
		"xsd:string(?v)": func(v rdf.Term) (rdf.Term, error) { return builtin.Cast(rdf.XSDString, v) },
		// Another function of one argument: not the lexical form, never answered from ?v's id.
		"LCASE(?v)": func(v rdf.Term) (rdf.Term, error) {
			if v.Kind != rdf.KindLiteral || v.Datatype != rdf.XSDString {
				return rdf.Term{}, builtin.ErrType
			}
			return rdf.String(strings.ToLower(v.Value)), nil
		},
		// A BIND's value: an overlay id where the data lacks the term, never answered from its id.
		"xsd:string(?w)": func(v rdf.Term) (rdf.Term, error) { return builtin.Cast(rdf.XSDString, v) },
	}
	taken := 0
	for arg, ref := range strOf {
		src := `PREFIX xsd: <` + xsd + `> SELECT ?v ?c { ?s <http://ex.org/v> ?v BIND(IF(isLiteral(?v), STRDT(STR(?v), DATATYPE(?v)), ?v) AS ?w) BIND(xsd:dateTime(` + arg + `) AS ?c) }`
		if arg != "xsd:string(?w)" {
			src = `PREFIX xsd: <` + xsd + `> SELECT ?v ?c { ?s <http://ex.org/v> ?v BIND(xsd:dateTime(` + arg + `) AS ?c) }`
		}
		res, e := semiRun(t, ds, src, Options{})
		if len(res.Rows) != len(pool) {
			t.Fatalf("%s: %d solutions, want %d", arg, len(res.Rows), len(pool))
		}
		for _, row := range res.Rows {
			v := row[0]
			want := rdf.Term{}
			if s, err := ref(v); err == nil {
				if w, err := builtin.Cast(dt, s); err == nil {
					want = w
				}
			}
			if got := row[1]; got != want {
				t.Errorf("xsd:dateTime(%s) of %v: %v, want %v", arg, v, got, want)
			}
		}
		if arg == "xsd:string(?w)" || arg == "LCASE(?v)" {
			continue
		}
		// The shortcut itself: taken for the valid dateTimes of the data's blocks, and only for them.
		for _, v := range pool {
			id := e.t.lookup(v)
			if id == 0 {
				t.Fatalf("%v: not in the data", v)
			}
			row := make([]ID, e.nvars)
			row[e.slot("v")] = id
			var inner algebra.Expr = algebra.Var("v")
			switch arg {
			case "STR(?v)":
				inner = &algebra.Call{Func: "STR", Args: []algebra.Expr{inner}}
			case "xsd:string(?v)":
				inner = &algebra.FunctionCall{IRI: rdf.XSDString, Args: []algebra.Expr{inner}}
			}
			got, ok := e.dateTimeCastID(&algebra.FunctionCall{IRI: dt, Args: []algebra.Expr{inner}}, row)
			dv, valid := e.t.dict.DateValue(id)
			if want := valid && dv.Class&2 == 0 && v.Value[0] != ' '; ok != want || (ok && got != id) {
				t.Errorf("xsd:dateTime(%s) of %v: shortcut %v (id %d), want %v", arg, v, ok, got, want)
			}
			if ok {
				taken++
			}
		}
	}
	if taken < 3*5 { // five valid dateTimes (and 24:00:00 if valid) under three forms of the argument
		t.Fatalf("the shortcut was taken %d times, want at least 15", taken)
	}
}

// TestComputedKeyRuns: a computed group key met again in the next solution takes the id kept for it
// (groupState.lastKeys); runs of one key, keys alternating, errors (unbound keys) between runs and values that differ
// only in their datatype give the groups counted here from the terms.
func TestComputedKeyRuns(t *testing.T) {
	xsd := rdf.XSDNS
	pool := []rdf.Term{
		rdf.Literal("2008-06-01T10:20:30Z", xsd+"dateTime"), rdf.Literal("2008-07-01T10:20:30Z", xsd+"dateTime"),
		rdf.Literal("2009-01-01T00:00:00Z", xsd+"dateTime"), rdf.String("2008"), rdf.Literal("2008", rdf.XSDInteger),
		rdf.IRI("http://ex.org/x"), rdf.String("abc"), rdf.Literal("2010-01-01", xsd+"date"),
		rdf.LangString("chat", "en"), rdf.LangString("chat", "fr"), rdf.String("chat"), rdf.Literal("chat", "http://ex.org/t"),
	}
	b, add := builderAdding(t)
	// SUBSTR(STR(?v), 1, 4); SUBSTR(?v, 1, 4), an error but on strings and language strings; COALESCE(?v, 0),
	// the term itself (values differing only in their tag or datatype are other keys).
	want := [3]map[string]int{{}, {}, {}}
	for i := range 600 {
		v := pool[(i/7+i%3)%len(pool)]
		add(exIRI("s%d", i), rdf.IRI("http://ex.org/v"), v)
		k := fmt.Sprintf("%q", v.Value[:min(4, len(v.Value))])
		want[0][k]++
		want[2][v.String()]++
		switch {
		case v.Kind == rdf.KindLiteral && v.Lang != "":
			k += "@" + v.Lang
		case v.Kind != rdf.KindLiteral || v.Datatype != rdf.XSDString:
			k = "-"
		}
		want[1][k]++
	}
	ds := FromIndex(b.Build())
	for i, key := range []string{"SUBSTR(STR(?v), 1, 4)", "SUBSTR(?v, 1, 4)", "COALESCE(?v, 0)"} {
		res, _ := semiRun(t, ds, `SELECT ?k (COUNT(*) AS ?n) { ?s <http://ex.org/v> ?v } GROUP BY (`+key+` AS ?k)`, Options{})
		got := map[string]int{}
		for _, row := range res.Rows {
			k := "-"
			if !row[0].IsZero() {
				k = row[0].String()
			}
			n, err := strconv.Atoi(row[1].Value)
			if err != nil {
				t.Fatal(err)
			}
			got[k] += n
		}
		if !maps.Equal(got, want[i]) {
			t.Fatalf("%s: groups %v, want %v", key, got, want[i])
		}
	}
}

package rdfxml_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/rdfxml"
)

const (
	rdfNS  = `xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"`
	exNS   = `xmlns:ex="http://example.org/"`
	header = `<rdf:RDF ` + rdfNS + ` ` + exNS + `>`
)

func decodeString(src string, o rdf.DecodeOptions) ([]rdf.Quad, error) {
	if o.Blanks == nil {
		o.Blanks = rdf.NewBlankNodes("")
	}
	return readAll(rdfxml.NewDecoder(strings.NewReader(src), o))
}

func mustNTriples(t *testing.T, src string) []rdf.Quad {
	t.Helper()
	qs, err := readAll(ntriples.NewDecoder(strings.NewReader(src), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")}))
	if err != nil {
		t.Fatalf("bad expected N-Triples: %v", err)
	}
	return qs
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, base, src, want string
	}{
		{"typed node, property attributes, language", "", header + `
  <ex:Person rdf:about="http://example.org/alice" ex:name="Alice" xml:lang="en" rdf:type="http://example.org/Agent">
    <ex:age rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">42</ex:age>
    <ex:nick xml:lang="">Al</ex:nick>
  </ex:Person>
</rdf:RDF>`, `
<http://example.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Person> .
<http://example.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Agent> .
<http://example.org/alice> <http://example.org/name> "Alice"@en .
<http://example.org/alice> <http://example.org/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/alice> <http://example.org/nick> "Al" .
`},
		{"rdf:li numbering is per node", "", header + `
  <rdf:Seq rdf:about="http://example.org/s">
    <rdf:li>a</rdf:li>
    <rdf:li><rdf:Bag rdf:about="http://example.org/b"><rdf:li>x</rdf:li></rdf:Bag></rdf:li>
    <rdf:li rdf:resource="http://example.org/c"/>
  </rdf:Seq>
</rdf:RDF>`, `
<http://example.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Seq> .
<http://example.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#_1> "a" .
<http://example.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#_2> <http://example.org/b> .
<http://example.org/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Bag> .
<http://example.org/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#_1> "x" .
<http://example.org/s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#_3> <http://example.org/c> .
`},
		{"parseType Resource and Collection", "", header + `
  <rdf:Description rdf:about="http://example.org/s">
    <ex:addr rdf:parseType="Resource"><ex:city>Paris</ex:city></ex:addr>
    <ex:list rdf:parseType="Collection">
      <rdf:Description rdf:about="http://example.org/a"/>
      <ex:Thing/>
    </ex:list>
    <ex:empty rdf:parseType="Collection"></ex:empty>
  </rdf:Description>
</rdf:RDF>`, `
<http://example.org/s> <http://example.org/addr> _:r .
_:r <http://example.org/city> "Paris" .
<http://example.org/s> <http://example.org/list> _:l1 .
_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> <http://example.org/a> .
_:l1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l2 .
_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> _:t .
_:t <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Thing> .
_:l2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .
<http://example.org/s> <http://example.org/empty> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .
`},
		{"XML literal is exclusive canonical XML with comments", "", `<rdf:RDF ` + rdfNS + ` ` + exNS + ` xmlns="http://www.w3.org/1999/xhtml" xmlns:x="http://x/">
  <rdf:Description rdf:about="http://example.org/s">
    <ex:lit rdf:parseType="Literal" xml:lang="fr"><p z="1" x:b="&quot;" a="&lt;&#10;"><x:br/><!-- c --><?pi  data?><![CDATA[1 < 2 & 3 > 2]]><q xmlns="">&#13;</q></p><q xmlns=""/></ex:lit>
    <ex:other rdf:parseType="Other"><x:y/></ex:other>
  </rdf:Description>
</rdf:RDF>`, `
<http://example.org/s> <http://example.org/lit> "<p xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:x=\"http://x/\" a=\"&lt;&#xA;\" z=\"1\" x:b=\"&quot;\"><x:br></x:br><!-- c --><?pi data?>1 &lt; 2 &amp; 3 &gt; 2<q xmlns=\"\">&#xD;</q></p><q></q>"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .
<http://example.org/s> <http://example.org/other> "<x:y xmlns:x=\"http://x/\"></x:y>"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .
`},
		{"reification, xml:base scoping and rdf:ID", "http://example.org/doc", header + `
  <rdf:Description rdf:ID="a">
    <ex:p rdf:ID="st" rdf:resource="rel"/>
    <ex:q xml:base="http://other.example/dir/"><rdf:Description rdf:ID="a"/></ex:q>
    <ex:r xml:base="http://other.example/dir/doc#frag"><rdf:Description rdf:about=""/></ex:r>
  </rdf:Description>
</rdf:RDF>`, `
<http://example.org/doc#a> <http://example.org/p> <http://example.org/rel> .
<http://example.org/doc#st> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/1999/02/22-rdf-syntax-ns#Statement> .
<http://example.org/doc#st> <http://www.w3.org/1999/02/22-rdf-syntax-ns#subject> <http://example.org/doc#a> .
<http://example.org/doc#st> <http://www.w3.org/1999/02/22-rdf-syntax-ns#predicate> <http://example.org/p> .
<http://example.org/doc#st> <http://www.w3.org/1999/02/22-rdf-syntax-ns#object> <http://example.org/rel> .
<http://example.org/doc#a> <http://example.org/q> <http://other.example/dir/#a> .
<http://example.org/doc#a> <http://example.org/r> <http://other.example/dir/doc> .
`},
		{"empty property elements", "", header + `
  <rdf:Description rdf:nodeID="n1">
    <ex:a/>
    <ex:b xml:lang="de"></ex:b>
    <ex:c ex:x="1" rdf:type="http://example.org/T"/>
    <ex:d rdf:nodeID="n1"/>
    <ex:e rdf:datatype="http://example.org/dt"/>
    <ex:f rdf:resource="http://example.org/o">
    </ex:f>
    <ex:g>  </ex:g>
  </rdf:Description>
</rdf:RDF>`, `
_:n1 <http://example.org/a> "" .
_:n1 <http://example.org/b> ""@de .
_:n1 <http://example.org/c> _:o .
_:o <http://example.org/x> "1" .
_:o <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/T> .
_:n1 <http://example.org/d> _:n1 .
_:n1 <http://example.org/e> ""^^<http://example.org/dt> .
_:n1 <http://example.org/f> <http://example.org/o> .
_:n1 <http://example.org/g> "  " .
`},
		{"internal entities in attributes and text", "", `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
  <!ENTITY rdf "http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <!ENTITY ex "http://example.org/">
  <!ENTITY greeting "hello &amp; &who;&#33;">
  <!ENTITY who "world">
  <!ENTITY ex "ignored: the first declaration binds">
  <!ELEMENT rdf:RDF ANY>
  <!ATTLIST rdf:RDF foo CDATA "x>y">
]>
<rdf:RDF xmlns:rdf="&rdf;" xmlns:ex="&ex;">
  <rdf:Description rdf:about="&ex;s"><ex:p>&greeting;</ex:p></rdf:Description>
</rdf:RDF>`, `
<http://example.org/s> <http://example.org/p> "hello & world!" .
`},
		{"attribute-value normalisation only inside attribute values", "", "<?xml version='1.0'?>\n" + `<!DOCTYPE rdf:RDF [
  <!-- a comment with an apostrophe ' a quote " a bracket ] and > -->
  <?pi "quoted" 'single' ?>
  <!ATTLIST rdf:RDF foo CDATA "it's ] > fine">
  <!ENTITY e 'say "hi"'>
]>` + "\n<rdf:RDF " + rdfNS + " " + exNS + ">\n" +
			"<!-- comment ' \" > -->\n<?pi x='1' > ?>\n" +
			"<rdf:Description rdf:about=\"http://example.org/s\" ex:a=\"x\ty\r\nz\nw\" ex:b='p&#10;q&#9;r&#13;s' ex:c=\"&e;\">\n" +
			"  <ex:t>line1\n\tline2\r\nline3 ' \" ></ex:t>\n" +
			"  <ex:u><![CDATA[a \" ' <x y=\"1\n2\"/> ]] ]>\nb]]></ex:u>\n" +
			"  <ex:v rdf:parseType=\"Literal\"><e f=\"1\n2\" g=\"3&#10;4\"/></ex:v>\n" +
			"</rdf:Description></rdf:RDF>", `
<http://example.org/s> <http://example.org/a> "x y z w" .
<http://example.org/s> <http://example.org/b> "p\nq\tr\rs" .
<http://example.org/s> <http://example.org/c> "say \"hi\"" .
<http://example.org/s> <http://example.org/t> "line1\n\tline2\nline3 ' \" >" .
<http://example.org/s> <http://example.org/u> "a \" ' <x y=\"1\n2\"/> ]] ]>\nb" .
<http://example.org/s> <http://example.org/v> "<e f=\"1 2\" g=\"3&#xA;4\"></e>"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> .
`},
		{"node element as root, no rdf:RDF", "", `<ex:Thing ` + rdfNS + ` ` + exNS + ` rdf:about="http://example.org/t"/>`, `
<http://example.org/t> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Thing> .
`},
		{"ISO-8859-1 encoding and unqualified legacy attributes", "", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" + header +
			"<rdf:Description about=\"http://example.org/s\"><ex:p>caf\xe9</ex:p></rdf:Description></rdf:RDF>", `
<http://example.org/s> <http://example.org/p> "café" .
`},
		{"byte order mark and ignored xml attributes", "", "\xEF\xBB\xBF" + header +
			`<rdf:Description rdf:about="http://example.org/s" xml:space="preserve" xmlfoo="1"><ex:p>x</ex:p></rdf:Description></rdf:RDF>`, `
<http://example.org/s> <http://example.org/p> "x" .
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeString(tc.src, rdf.DecodeOptions{Base: tc.base})
			if err != nil {
				t.Fatal(err)
			}
			if want := mustNTriples(t, tc.want); !iso.Isomorphic(got, want) {
				t.Errorf("graphs differ:\n%s", iso.Diff(got, want))
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name      string
		limits    rdf.Limits
		base      string
		src       string
		msg       string
		line, col int
	}{
		{"mismatched end tag", rdf.Limits{}, "", header + "\n<rdf:Description></ex:x>", "does not match", 2, 18},
		{"column counts runes", rdf.Limits{}, "", header + "\n<!-- ééé --><rdf:li/>", "rdf:li cannot be used as a node element", 2, 13},
		{"text in a node element", rdf.Limits{}, "", header + "\n<rdf:Description>oops</rdf:Description></rdf:RDF>", "unexpected text", 2, 18},
		{"two node elements in one property", rdf.Limits{}, "", header +
			"<rdf:Description><ex:p><rdf:Description/>\n  <rdf:Description/></ex:p></rdf:Description></rdf:RDF>", "only one node element", 2, 3},
		{"text and a node element", rdf.Limits{}, "", header +
			"<rdf:Description><ex:p>x\n <rdf:Description/></ex:p></rdf:Description></rdf:RDF>", "both text and a node element", 2, 2},
		{"resource and text", rdf.Limits{}, "", header +
			`<rdf:Description><ex:p rdf:resource="http://x/">t</ex:p></rdf:Description></rdf:RDF>`, "must be empty", 1, 0},
		{"undeclared prefix", rdf.Limits{}, "", header + "<rdf:Description><foo:p/></rdf:Description></rdf:RDF>", `undeclared namespace prefix "foo"`, 1, 0},
		{"relative namespace name", rdf.Limits{}, "http://example.org/", `<rdf:RDF ` + rdfNS + ` xmlns:r="0">` + "\n <rdf:Description><r:A/></rdf:Description></rdf:RDF>", "not an absolute IRI", 2, 19},
		{"local name that is not an NCName", rdf.Limits{}, "", header + "\n <rdf:Description><ex:0/></rdf:Description></rdf:RDF>", "not a namespace-well-formed element name", 2, 19},
		{"space in an IRI", rdf.Limits{}, "", header + "\n <rdf:Description rdf:about=\"http://example.org/a b\"/></rdf:RDF>", "which IRIs cannot contain", 2, 2},
		{"no white space between attributes", rdf.Limits{}, "", header + "\n<rdf:Description rdf:about=\"http://x/\"ex:p=\"1\"/></rdf:RDF>", "separated by white space", 2, 0},
		{"duplicate attribute", rdf.Limits{}, "", header + "\n<rdf:Description ex:p=\"1\" ex:p=\"2\"/></rdf:RDF>", "more than once", 2, 1},
		{"same expanded attribute name", rdf.Limits{}, "", header + "\n<rdf:Description xmlns:ex2=\"http://example.org/\" ex:p=\"1\" ex2:p=\"2\"/></rdf:RDF>", "more than once", 2, 1},
		{"duplicate attribute in a large tag", rdf.Limits{}, "", header + "\n<rdf:Description" + strings.Repeat(" ex:a=\"1\"", 1) + manyAttrs(20) + " ex:a=\"2\"/></rdf:RDF>", "more than once", 2, 1},
		{"unqualified attribute", rdf.Limits{}, "", header + `<rdf:Description bar="1"/></rdf:RDF>`, "not in a namespace", 1, 0},
		{"relative IRI without base", rdf.Limits{}, "", header + `<rdf:Description rdf:about="x"/></rdf:RDF>`, "cannot resolve IRI", 1, 0},
		{"unclosed element", rdf.Limits{}, "", header + "\n<rdf:Description>", "unexpected EOF|not closed", 2, 0},
		{"empty document", rdf.Limits{}, "", "  ", "no root element", 1, 3},
		{"second root element", rdf.Limits{}, "", header + "</rdf:RDF>\n<rdf:RDF/>", "after the root element", 2, 1},
		{"datatype with resource", rdf.Limits{}, "", header +
			`<rdf:Description><ex:p rdf:datatype="http://x/" rdf:resource="http://y/"/></rdf:Description></rdf:RDF>`, "rdf:datatype cannot be combined", 1, 0},
		{"nesting deeper than the limit", rdf.Limits{MaxDepth: 4}, "", header +
			"<rdf:Description><ex:p><rdf:Description><ex:q><rdf:Description/></ex:q></rdf:Description></ex:p></rdf:Description></rdf:RDF>", "nested deeper than 4", 1, 0},
		{"literal longer than the limit", rdf.Limits{MaxLiteralSize: 10}, "", header +
			"<rdf:Description><ex:p>" + strings.Repeat("x", 11) + "</ex:p></rdf:Description></rdf:RDF>", "longer than 10 bytes", 1, 0},
		{"XML literal longer than the limit", rdf.Limits{MaxLiteralSize: 10}, "", header +
			`<rdf:Description><ex:p rdf:parseType="Literal"><a/><b/><c/></ex:p></rdf:Description></rdf:RDF>`, "XML literal longer than 10", 1, 0},
		{"billion laughs", rdf.Limits{}, "", billionLaughs(), "expands to more than", 0, 0},
		{"many references to a large entity", rdf.Limits{}, "", `<!DOCTYPE rdf:RDF [<!ENTITY big "` + strings.Repeat("x", 100000) + `">]>` + header +
			"<rdf:Description><ex:p>" + strings.Repeat("&big;", 1000) + "</ex:p></rdf:Description></rdf:RDF>", "entity expansion exceeds", 1, 0},
		{"many large entities", rdf.Limits{}, "", manyEntities(), "in total", 0, 0},
		{"external entity is never fetched", rdf.Limits{}, "", `<!DOCTYPE rdf:RDF [<!ENTITY ext SYSTEM "file:///etc/passwd">]>` + header +
			"<rdf:Description><ex:p>&ext;</ex:p></rdf:Description></rdf:RDF>", "external entities are never fetched", 1, 0},
		{"parameter entities are refused", rdf.Limits{}, "", `<!DOCTYPE rdf:RDF [<!ENTITY % p "x"> %p;]>` + header + "</rdf:RDF>", "parameter entity", 1, 1},
		{"recursive entity", rdf.Limits{}, "", `<!DOCTYPE rdf:RDF [<!ENTITY a "&b;"><!ENTITY b "&a;">]>` + header + "</rdf:RDF>", "refers to itself", 1, 1},
		{"entity with markup", rdf.Limits{}, "", `<!DOCTYPE rdf:RDF [<!ENTITY a "<x/>">]>` + header + "</rdf:RDF>", "contains markup", 1, 1},
		{"unsupported encoding", rdf.Limits{}, "", `<?xml version="1.0" encoding="EBCDIC"?>` + header + "</rdf:RDF>", "unsupported character encoding", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := decodeString(tc.src, rdf.DecodeOptions{Base: tc.base, Limits: tc.limits})
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v (%d triples), want a *rdf.SyntaxError", err, len(qs))
			}
			if se.Syntax != "rdf-xml" {
				t.Errorf("Syntax = %q", se.Syntax)
			}
			matched := false
			for _, m := range strings.Split(tc.msg, "|") {
				matched = matched || strings.Contains(se.Msg, m)
			}
			if !matched {
				t.Errorf("message %q does not mention %q", se.Msg, tc.msg)
			}
			if tc.line > 0 && se.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", se.Line, tc.line, se)
			}
			if tc.col > 0 && se.Column != tc.col {
				t.Errorf("column = %d, want %d (%v)", se.Column, tc.col, se)
			}
			if se.Line <= 0 || se.Column <= 0 {
				t.Errorf("no position in %v", se)
			}
		})
	}
}

// TestHugeTokenStopsReading checks that an oversized text token is refused while it is being read, not after
// encoding/xml has buffered all of it.
func TestHugeTokenStopsReading(t *testing.T) {
	const size = 8 << 20
	src := io.MultiReader(strings.NewReader(header+"<rdf:Description><ex:p>"),
		io.LimitReader(repeatReader('x'), size), strings.NewReader("</ex:p></rdf:Description></rdf:RDF>"))
	cr := &countingReader{r: src}
	_, err := readAll(rdfxml.NewDecoder(cr, rdf.DecodeOptions{Limits: rdf.Limits{MaxLiteralSize: 1000}}))
	var se *rdf.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "longer than") {
		t.Fatalf("got %v, want a size error", err)
	}
	if cr.n > 1<<20 {
		t.Errorf("read %d bytes of an %d-byte token before refusing it", cr.n, size)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func manyAttrs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " ex:p%d=\"%d\"", i, i)
	}
	return b.String()
}

// manyEntities declares entities each under the per-entity cap but together far over the total cap.
func manyEntities() string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE rdf:RDF [<!ENTITY x \"" + strings.Repeat("x", 1000) + "\">\n<!ENTITY y \"" + strings.Repeat("&x;", 1000) + "\">\n")
	for i := range 100 {
		fmt.Fprintf(&b, "<!ENTITY z%d \"&y;\">\n", i)
	}
	b.WriteString("]>" + header + "</rdf:RDF>")
	return b.String()
}

// billionLaughs builds the classic exponential entity definition: lol9 would expand to 3 GB.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n<!DOCTYPE rdf:RDF [\n<!ENTITY lol0 \"lol\">\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "<!ENTITY lol%d \"%s\">\n", i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
	}
	b.WriteString("]>\n" + header + "<rdf:Description><ex:p>&lol9;</ex:p></rdf:Description></rdf:RDF>")
	return b.String()
}

func TestPrefixes(t *testing.T) {
	src := `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://default/" xmlns:ex="http://example.org/">
  <rdf:Description rdf:about="http://example.org/s" xmlns:inner="http://inner/"><ex:p>x</ex:p></rdf:Description>
</rdf:RDF>`
	d := rdfxml.NewDecoder(strings.NewReader(src), rdf.DecodeOptions{})
	var _ rdf.PrefixSource = d
	if _, err := readAll(d); err != nil {
		t.Fatal(err)
	}
	want := []rdf.Prefix{{Name: "rdf", IRI: rdf.RDFNS}, {Name: "", IRI: "http://default/"}, {Name: "ex", IRI: "http://example.org/"}}
	got := d.Prefixes()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Prefixes() = %v, want %v", got, want)
	}
}

// TestStreaming checks that triples come out before the document ends: a reader that fails after the first
// description must still let the decoder hand over that description's triples.
func TestStreaming(t *testing.T) {
	src := header + `<rdf:Description rdf:about="http://example.org/s"><ex:p>x</ex:p></rdf:Description>`
	r := io.MultiReader(strings.NewReader(src), errReader{})
	d := rdfxml.NewDecoder(r, rdf.DecodeOptions{})
	q, err := d.Next()
	if err != nil || q.O.Value != "x" {
		t.Fatalf("first triple = %v, %v", q, err)
	}
	_, err = d.Next()
	if !errors.Is(err, errBroken) {
		t.Fatalf("after the stream breaks: %v, want the reader's error", err)
	}
}

var errBroken = errors.New("connection reset")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

func assertIso(t *testing.T, got, want []rdf.Quad) {
	t.Helper()
	if !iso.Isomorphic(got, want) {
		t.Errorf("graphs differ:\n%s", iso.Diff(got, want))
	}
}

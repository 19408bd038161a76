package codec_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// roundTripKnown lists, per encoder, graphs expected not to survive a round trip, with the reason
// (docs/conformance.md). None today.
var roundTripKnown = map[string]map[string]string{}

// rtSource is one manifest whose graphs feed the round trip: the expected results of eval tests, or the inputs of
// positive syntax tests.
type rtSource struct {
	manifest string
	testType string // full IRI of the test type to take
	useInput bool   // the test's action is the graph (syntax tests); otherwise its result
	quads    bool   // the files are N-Quads
}

var rtSources = []rtSource{
	{"rdf/rdf11/rdf-turtle/manifest.ttl", conformance.RDFT + "TestTurtleEval", false, false},
	{"rdf/rdf11/rdf-trig/manifest.ttl", conformance.RDFT + "TestTrigEval", false, true},
	{"rdf/rdf11/rdf-xml/manifest.ttl", conformance.RDFT + "TestXMLEval", false, false},
	{"rdf/rdf11/rdf-n-triples/manifest.ttl", conformance.RDFT + "TestNTriplesPositiveSyntax", true, false},
	{"rdf/rdf11/rdf-n-quads/manifest.ttl", conformance.RDFT + "TestNQuadsPositiveSyntax", true, true},
}

type rtGraph struct {
	name  string // suite-relative path of the file
	quads []rdf.Quad
	named bool // has statements in named graphs
}

// TestW3CRoundTrip writes every expected graph of the RDF suites with each registered encoder and reads it back
// with the matching decoder; the result must be isomorphic to the original. Syntaxes that hold only one graph get
// only the graphs without named graphs.
func TestW3CRoundTrip(t *testing.T) {
	dir := conformance.SuitesDir(t)
	graphs := loadRoundTripGraphs(t, dir)
	if len(graphs) < 400 {
		t.Fatalf("found only %d graphs in the suites", len(graphs))
	}
	for _, syn := range codec.Default().Syntaxes() {
		if !syn.CanEncode() {
			continue
		}
		for _, withPrefixes := range []bool{false, true} {
			suite := "roundtrip-" + syn.Name
			if withPrefixes {
				suite += "-prefixes"
			}
			t.Run(suite, func(t *testing.T) {
				roundTripSuite(t, syn, graphs, suite, withPrefixes)
			})
		}
	}
}

// roundTripSuite round-trips every graph through syn; withPrefixes hands the encoder a prefix for every namespace
// the graph uses (and the default prefix for the commonest), so that abbreviating writers show they write only
// names that read back.
func roundTripSuite(t *testing.T, syn codec.Syntax, graphs []rtGraph, suite string, withPrefixes bool) {
	res := conformance.Result{Suite: suite, Known: roundTripKnown[suite]}
	refused := 0
	for _, g := range graphs {
		if g.named && !syn.Dataset {
			continue
		}
		if why := inexpressible(syn, g.quads); why != "" {
			// Not a round-trip case: the encoder must refuse with an error instead of writing bad output.
			if err := encodeErr(syn, g.quads); err == nil {
				res.Fail(g.name, "encoder accepted a graph it cannot express ("+why+")")
			} else {
				refused++
			}
			continue
		}
		var prefixes []rdf.Prefix
		if withPrefixes {
			prefixes = namespaces(g.quads)
		}
		if why := roundTripWith(syn, g.quads, prefixes); why != "" {
			res.Fail(g.name, why)
		} else {
			res.Passed++
		}
	}
	if refused > 0 {
		t.Logf("%s: %d graphs the syntax cannot express were refused with an error, as they should be", syn.Name, refused)
	}
	conformance.Report(t, res)
}

// inexpressible says why syn cannot hold g at all, or "". XML 1.0 has no way to write most C0 control characters
// (its Char production), so RDF/XML cannot carry literals or IRIs containing them.
func inexpressible(syn codec.Syntax, g []rdf.Quad) string {
	if syn.Name != "rdf-xml" {
		return ""
	}
	for _, q := range g {
		for _, term := range [...]rdf.Term{q.S, q.P, q.O} {
			for _, r := range term.Value {
				if !isXMLChar(r) {
					return fmt.Sprintf("character %U is not allowed in XML 1.0", r)
				}
			}
		}
	}
	return ""
}

func isXMLChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

func encodeErr(syn codec.Syntax, g []rdf.Quad) error {
	enc := syn.NewEncoder(io.Discard, rdf.EncodeOptions{})
	for _, q := range g {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	return enc.Close()
}

// conventional names the well-known namespaces get in namespaces, as publishers write them. Other names for them
// are TestPrefixRenaming's business.
var conventional = map[string]string{rdf.RDFNS: "rdf", rdf.XSDNS: "xsd", "http://www.w3.org/2000/01/rdf-schema#": "rdfs"}

// namespaces returns a prefix for every IRI namespace (up to the last '#' or '/') in qs, in first-seen order; the
// commonest other than the well-known ones gets the default prefix "".
func namespaces(qs []rdf.Quad) []rdf.Prefix {
	count := map[string]int{}
	var order []string
	for _, q := range qs {
		for _, t := range [...]rdf.Term{q.S, q.P, q.O, q.G} {
			v := t.Value
			if t.Kind == rdf.KindLiteral {
				v = t.Datatype
			} else if t.Kind != rdf.KindIRI {
				continue
			}
			i := strings.LastIndexAny(v, "#/")
			if i < 0 {
				continue
			}
			ns := v[:i+1]
			if count[ns] == 0 {
				order = append(order, ns)
			}
			count[ns]++
		}
	}
	best := ""
	for _, ns := range order {
		if _, known := conventional[ns]; !known && count[ns] > count[best] {
			best = ns
		}
	}
	var out []rdf.Prefix
	for i, ns := range order {
		name, known := conventional[ns]
		switch {
		case known:
		case ns == best:
			name = ""
		default:
			name = fmt.Sprintf("ns%d", i)
		}
		out = append(out, rdf.Prefix{Name: name, IRI: ns})
	}
	return out
}

// prefixRenamingKnown lists syntaxes expected to fail TestPrefixRenaming, with the reason (none today).
var prefixRenamingKnown = map[string]string{}

// TestPrefixRenaming: prefixes are the publisher's choice, so any name may be bound to any namespace, including
// the RDF and XSD namespaces and the default prefix; every encoder must still write output that reads back.
func TestPrefixRenaming(t *testing.T) {
	ex := func(s string) rdf.Term { return rdf.IRI("http://example.org/" + s) }
	g := []rdf.Quad{
		rdf.Triple(ex("s"), rdf.IRI(rdf.RDFType), ex("C")),
		rdf.Triple(ex("s"), rdf.IRI(rdf.RDFNS+"value"), rdf.Literal("1", rdf.XSDInteger)),
		rdf.Triple(ex("s"), rdf.IRI(rdf.RDFNS+"_1"), rdf.LangString("x", "en")),
		rdf.Triple(rdf.Blank("b"), ex("p"), rdf.Literal("2.5", rdf.XSDDecimal)),
	}
	prefixSets := [][]rdf.Prefix{
		{{Name: "r", IRI: rdf.RDFNS}, {Name: "", IRI: "http://example.org/"}},
		{{Name: "ns1", IRI: rdf.RDFNS}, {Name: "rdf", IRI: rdf.XSDNS}, {Name: "e", IRI: "http://example.org/"}},
		{{Name: "", IRI: rdf.RDFNS}, {Name: "xsd", IRI: "http://example.org/"}},
	}
	res := conformance.Result{Suite: "prefix-renaming", Known: map[string]string{}}
	for _, syn := range codec.Default().Syntaxes() {
		if !syn.CanEncode() {
			continue
		}
		if why, ok := prefixRenamingKnown[syn.Name]; ok {
			res.Known[syn.Name] = why
		}
		var why string
		for _, ps := range prefixSets {
			if why = roundTripWith(syn, g, ps); why != "" {
				why = fmt.Sprintf("with prefixes %v: %s", ps, why)
				break
			}
		}
		if why != "" {
			res.Fail(syn.Name, why)
		} else {
			res.Passed++
		}
	}
	conformance.Report(t, res)
}

func roundTrip(syn codec.Syntax, in []rdf.Quad) string { return roundTripWith(syn, in, nil) }

func roundTripWith(syn codec.Syntax, in []rdf.Quad, prefixes []rdf.Prefix) string {
	var buf bytes.Buffer
	enc := syn.NewEncoder(&buf, rdf.EncodeOptions{Prefixes: prefixes})
	for _, q := range in {
		if err := enc.Encode(q); err != nil {
			return fmt.Sprintf("encode: %v", err)
		}
	}
	if err := enc.Close(); err != nil {
		return fmt.Sprintf("encode: %v", err)
	}
	text := buf.String()
	out, err := conformance.ReadAll(syn.NewDecoder(&buf, rdf.DecodeOptions{Base: "http://example.invalid/", Blanks: rdf.NewBlankNodes("r")}))
	if err != nil {
		return fmt.Sprintf("decoding own output: %v\n%s", err, text)
	}
	if !iso.Isomorphic(in, out) {
		return "not isomorphic after the round trip:\n" + iso.Diff(in, out) + "\noutput:\n" + text
	}
	return ""
}

func loadRoundTripGraphs(t *testing.T, dir string) []rtGraph {
	var out []rtGraph
	seen := map[string]bool{}
	for _, src := range rtSources {
		m, err := conformance.LoadManifest(filepath.Join(dir, src.manifest))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range m.Tests {
			if !tc.HasType(src.testType) {
				continue
			}
			file := tc.Result
			if src.useInput {
				file = tc.Action
			}
			path := conformance.LocalPath(file)
			if path == "" || seen[path] {
				continue
			}
			seen[path] = true
			qs, err := readFile(path, src.quads)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			rel, _ := filepath.Rel(dir, path)
			g := rtGraph{name: filepath.ToSlash(rel), quads: qs}
			for _, q := range qs {
				if !q.G.IsZero() {
					g.named = true
					break
				}
			}
			out = append(out, g)
		}
	}
	return out
}

func readFile(path string, quads bool) ([]rdf.Quad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := rdf.DecodeOptions{Base: conformance.W3CBase(path), Blanks: rdf.NewBlankNodes("s")}
	if quads {
		return conformance.ReadAll(ntriples.NewQuadDecoder(f, o))
	}
	return conformance.ReadAll(ntriples.NewDecoder(f, o))
}

// dropLast is an encoder that loses the last statement, to show the round trip catches loss.
type dropLast struct {
	rdf.Encoder
	pending *rdf.Quad
}

func (d *dropLast) Encode(q rdf.Quad) error {
	if d.pending != nil {
		if err := d.Encoder.Encode(*d.pending); err != nil {
			return err
		}
	}
	d.pending = &q
	return nil
}

func TestRoundTripDetectsLoss(t *testing.T) {
	nt, _ := codec.Default().ByName("n-triples")
	lossy := nt
	lossy.NewEncoder = func(w io.Writer, o rdf.EncodeOptions) rdf.Encoder { return &dropLast{Encoder: nt.NewEncoder(w, o)} }
	g := []rdf.Quad{
		rdf.Triple(rdf.Blank("a"), rdf.IRI("http://ex/p"), rdf.String("1")),
		rdf.Triple(rdf.Blank("a"), rdf.IRI("http://ex/p"), rdf.String("2")),
	}
	if why := roundTrip(nt, g); why != "" {
		t.Fatalf("faithful encoder failed: %s", why)
	}
	if why := roundTrip(lossy, g); why == "" {
		t.Fatal("lossy encoder passed the round trip")
	}
}

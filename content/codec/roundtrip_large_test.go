package codec_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// largeGraph is the N-Triples file named by $LDHUB_ROUNDTRIP_NT (e.g. a slice of bench/parse.sh's BSBM data), or
// a synthetic graph in its image: many subjects with shared predicates, typed and language-tagged literals,
// escapes, nested blank nodes and lists.
func largeGraph(t *testing.T) []rdf.Quad {
	var src string
	if f := os.Getenv("LDHUB_ROUNDTRIP_NT"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = string(b)
	} else {
		var b strings.Builder
		for i := 0; i < 2000; i++ {
			s := fmt.Sprintf("<http://example.org/bsbm/instances/Product%d>", i)
			fmt.Fprintf(&b, "%s <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/bsbm/vocabulary/Product> .\n", s)
			fmt.Fprintf(&b, "%s <http://www.w3.org/2000/01/rdf-schema#label> \"product \\\"%d\\\"\\n\"@en-GB .\n", s, i)
			fmt.Fprintf(&b, "%s <http://example.org/bsbm/vocabulary/price> \"%d.5\"^^<http://www.w3.org/2001/XMLSchema#decimal> .\n", s, i)
			fmt.Fprintf(&b, "%s <http://example.org/bsbm/vocabulary/dimensions> _:d%d .\n", s, i)
			fmt.Fprintf(&b, "_:d%d <http://example.org/bsbm/vocabulary/width> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n", i, i%7)
			fmt.Fprintf(&b, "_:d%d <http://example.org/bsbm/vocabulary/unit> _:u%d .\n", i, i%3)
			if i%10 == 0 {
				fmt.Fprintf(&b, "%s <http://example.org/bsbm/vocabulary/features> _:l%da .\n", s, i)
				fmt.Fprintf(&b, "_:l%da <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> \"a\" .\n_:l%da <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l%db .\n", i, i, i)
				fmt.Fprintf(&b, "_:l%db <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> \"b\" .\n_:l%db <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .\n", i, i)
			}
		}
		src = b.String()
	}
	qs, err := conformance.ReadAll(ntriples.NewDecoder(strings.NewReader(src), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("g")}))
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// TestRoundTripLarge sends one graph of thousands of statements through every encoder, with and without prefixes:
// grouping, nesting and list detection in the pretty writers only show on graphs of some size.
func TestRoundTripLarge(t *testing.T) {
	g := largeGraph(t)
	res := conformance.Result{Suite: "roundtrip-large"}
	for _, syn := range codec.Default().Syntaxes() {
		if !syn.CanEncode() {
			continue
		}
		for _, ps := range [][]rdf.Prefix{nil, namespaces(g)} {
			name := syn.Name
			if ps != nil {
				name += "-prefixes"
			}
			if why := roundTripWith(syn, g, ps); why != "" {
				res.Fail(name, why)
			} else {
				res.Passed++
			}
		}
	}
	conformance.Report(t, res)
}

package codec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
)

// Convert narrows a dataset to the graph asked for, refuses to drop named graphs silently when the output holds
// one graph, keeps every graph for a dataset output, and gives abbreviating outputs the input's prefixes and the
// well-known ones in use.
func TestConvert(t *testing.T) {
	reg := codec.Default()
	syn := func(name string) codec.Syntax {
		s, ok := reg.Lookup(name)
		if !ok {
			t.Fatalf("no syntax %s", name)
		}
		return s
	}
	const trig = `@prefix ex: <http://example.org/def/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
ex:a skos:prefLabel "in the default graph" .
ex:g { ex:b skos:prefLabel "in ex:g" . }
`
	run := func(to, graph string) (string, int64, error) {
		var out strings.Builder
		n, err := codec.Convert(context.Background(), syn("trig"), syn(to), strings.NewReader(trig), &out,
			codec.ConvertOptions{Graph: graph, Size: int64(len(trig))})
		return out.String(), n, err
	}
	var ng *rdf.NamedGraphError
	if _, _, err := run("turtle", ""); !errors.As(err, &ng) || ng.Graph.Value != "http://example.org/def/g" {
		t.Errorf("TriG with a named graph to Turtle without --graph: %v, want a NamedGraphError naming ex:g", err)
	}
	for _, tc := range []struct {
		to, graph string
		n         int64
		has, not  []string
	}{
		{"turtle", "default", 1, []string{"@prefix ex:", "@prefix skos:", "ex:a", "in the default graph"}, []string{"in ex:g"}},
		{"turtle", "http://example.org/def/g", 1, []string{"ex:b", "in ex:g"}, []string{"in the default graph"}},
		{"n-triples", "union", 2, []string{"in ex:g", "in the default graph"}, []string{"@prefix"}},
		{"n-quads", "", 2, []string{`"in ex:g" <http://example.org/def/g> .`, `"in the default graph" .`}, nil},
		{"trig", "", 2, []string{"ex:g {", "@prefix skos:"}, nil},
	} {
		out, n, err := run(tc.to, tc.graph)
		if err != nil {
			t.Errorf("%s --graph %q: %v", tc.to, tc.graph, err)
			continue
		}
		for _, s := range tc.has {
			if !strings.Contains(out, s) {
				t.Errorf("%s --graph %q: output lacks %q:\n%s", tc.to, tc.graph, s, out)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(out, s) {
				t.Errorf("%s --graph %q: output has %q:\n%s", tc.to, tc.graph, s, out)
			}
		}
		if n != tc.n {
			t.Errorf("%s --graph %q: %d statements written, want %d", tc.to, tc.graph, n, tc.n)
		}
	}
	// A cancelled conversion stops with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := codec.Convert(ctx, syn("trig"), syn("turtle"), strings.NewReader(trig), &strings.Builder{}, codec.ConvertOptions{Graph: "union"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

package rdf

import "fmt"

// Graph selections for writing a dataset to a syntax that holds one graph (Turtle, N-Triples, RDF/XML).
const (
	GraphDefault = "default" // the default graph only
	GraphUnion   = "union"   // every graph merged into one
)

// NamedGraphError is returned by a SelectGraph decoder with no selection at the input's first named graph.
type NamedGraphError struct{ Graph Term }

func (e *NamedGraphError) Error() string {
	return fmt.Sprintf("the input has statements in the named graph %s", e.Graph)
}

// SelectGraph narrows a dataset to one graph: GraphDefault keeps the default graph, GraphUnion merges every graph,
// any other non-empty value is the IRI of the one named graph to keep (its statements come out in the default
// graph). With sel "" the statements pass unchanged until the first one in a named graph, which is a
// *NamedGraphError naming that graph, so a caller can tell the user which selection to make.
func SelectGraph(dec Decoder, sel string) Decoder {
	return &graphSelector{dec: dec, sel: sel}
}

type graphSelector struct {
	dec Decoder
	sel string
}

func (g *graphSelector) Next() (Quad, error) {
	for {
		q, err := g.dec.Next()
		if err != nil {
			return q, err
		}
		switch {
		case g.sel == "":
			if !q.G.IsZero() {
				return Quad{}, &NamedGraphError{Graph: q.G}
			}
			return q, nil
		case g.sel == GraphDefault:
			if q.G.IsZero() {
				return q, nil
			}
		case g.sel == GraphUnion:
			q.G = Term{}
			return q, nil
		case q.G.Kind == KindIRI && q.G.Value == g.sel:
			q.G = Term{}
			return q, nil
		}
	}
}

// Prefixes passes on the wrapped decoder's prefixes, so that selecting a graph keeps the input's declarations.
func (g *graphSelector) Prefixes() []Prefix {
	if ps, ok := g.dec.(PrefixSource); ok {
		return ps.Prefixes()
	}
	return nil
}

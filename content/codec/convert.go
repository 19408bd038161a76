package codec

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/prefixes"
)

// ConvertOptions tune Convert.
type ConvertOptions struct {
	// Decode is handed to the input's decoder (base IRI, blank nodes, limits).
	Decode rdf.DecodeOptions
	// Graph narrows a dataset to one graph (see rdf.SelectGraph: "default", "union" or a graph IRI); "" keeps
	// every graph when the output holds a dataset, and is an *rdf.NamedGraphError on a named graph otherwise.
	Graph string
	// Size is the input's length in bytes, -1 when unknown (a stream); above StreamAbove the output is written as
	// statements come.
	Size int64
}

// Convert decodes r with src and encodes to w with dst (`ldhub convert`), narrowed to o.Graph when dst holds one
// graph or a graph is given. Outputs that abbreviate IRIs get the prefixes of prefixes.Counter: the input's own,
// the well-known ones in use and the frequent namespaces. An input of more than StreamAbove bytes is written with
// dst's streaming encoder, when it has one, with the prefixes of the first statements; otherwise the pretty
// encoder holds the graph until the end. It returns how many statements were read.
func Convert(ctx context.Context, src, dst Syntax, r io.Reader, w io.Writer, o ConvertOptions) (int64, error) {
	raw := src.NewDecoder(r, o.Decode)
	dec := raw
	if o.Graph != "" || (src.Dataset && !dst.Dataset) {
		dec = rdf.SelectGraph(raw, o.Graph)
	}
	if dst.Streaming {
		// N-Triples and N-Quads spell every IRI in full: nothing to wait for.
		enc := dst.NewEncoder(w, rdf.EncodeOptions{})
		n, err := Copy(ctx, enc, dec)
		if err != nil {
			return n, err
		}
		return n, enc.Close()
	}
	stream := dst.NewStreamEncoder != nil && o.Size > StreamAbove
	// The encoder would buffer everything anyway; reading first lets it use every prefix that fits the data. A
	// streaming encoder gets the prefixes of a sample.
	var quads []rdf.Quad
	counter := prefixes.NewCounter()
	for {
		if len(quads)%1024 == 0 && ctx.Err() != nil {
			return int64(len(quads)), ctx.Err()
		}
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return int64(len(quads)), err
		}
		counter.Add(q)
		quads = append(quads, q)
		if stream && len(quads) == prefixSample {
			break
		}
	}
	var own []rdf.Prefix
	if ps, ok := raw.(rdf.PrefixSource); ok {
		own = ps.Prefixes()
	}
	newEnc := dst.NewEncoder
	if stream {
		newEnc = dst.NewStreamEncoder
	}
	enc := newEnc(w, rdf.EncodeOptions{Prefixes: counter.Prefixes(own)})
	for i, q := range quads {
		if err := enc.Encode(q); err != nil {
			return int64(i), fmt.Errorf("writing %s: %w", dst.Name, err)
		}
	}
	n := int64(len(quads))
	if stream {
		m, err := Copy(ctx, enc, dec)
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, enc.Close()
}

// prefixSample is how many statements a streaming conversion reads to choose its prefixes.
const prefixSample = 10000

// Redump writes the statements of an N-Triples or N-Quads dump (src, read from r) to w with dst's streaming
// encoder, as a large version's dumps are written: blank nodes labelled by rdf.NewBlankNodes(blanks), IRIs
// abbreviated with prefixes. Read back from a dump written with the same labels, in the same order, the
// statements are those the dump was written from, so the output is byte for byte what the same encoder wrote
// from the original parse: the pipeline writes a large version's RDF/XML and JSON-LD this way after the version is
// live, and the direct-URL handler answers them this way until it has.
func Redump(ctx context.Context, src, dst Syntax, r io.Reader, w io.Writer, blanks string, prefixes []rdf.Prefix) error {
	if src.Name != "n-triples" && src.Name != "n-quads" {
		return fmt.Errorf("codec: a dump is redumped from N-Triples or N-Quads, not %s", src.Name)
	}
	if dst.NewStreamEncoder == nil {
		return fmt.Errorf("codec: %s has no streaming encoder", dst.Name)
	}
	dec := src.NewDecoder(r, rdf.DecodeOptions{Blanks: rdf.NewBlankNodes(blanks)})
	enc := dst.NewStreamEncoder(w, rdf.EncodeOptions{Prefixes: prefixes})
	if _, err := Copy(ctx, enc, dec); err != nil {
		return err
	}
	return enc.Close()
}

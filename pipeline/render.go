package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/prefixes"
	"github.com/ldhub/ldhub/content/vocab"
	"github.com/ldhub/ldhub/pipeline/stream"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// blankPrefix labels every blank node of a rendering. A fixed prefix (instead of the decoders' random one) is what
// makes the same commit render to byte-identical dumps.
const blankPrefix = "b"

var wellKnown = tree.WellKnownPrefixes

// Dump syntaxes, in the order they are offered for content negotiation (the first is the default).
var (
	graphSyntaxes   = []string{"turtle", "n-triples", "rdf-xml", "json-ld"}
	datasetSyntaxes = []string{"trig", "n-quads", "json-ld"}
	displayNames    = map[string]string{"turtle": "Turtle", "n-triples": "N-Triples", "rdf-xml": "RDF/XML",
		"json-ld": "JSON-LD", "trig": "TriG", "n-quads": "N-Quads"}
)

// source is one version's content as stored, with what is needed to read it.
type source struct {
	data   []byte
	syntax codec.Syntax
	base   string
}

func (s source) decoder() rdf.Decoder {
	return s.syntax.NewDecoder(bytes.NewReader(s.data), rdf.DecodeOptions{Base: s.base, Blanks: rdf.NewBlankNodes(blankPrefix)})
}

// rendering is what renderVersion leaves in its folder.
type rendering struct {
	formats []tree.Format
	stats   tree.Stats
	skipped []error // dumps that could not be written, and why
	// unzipped are the dumps written without their .gz sibling (those of a large version), by file name: the
	// sibling is written after the version is live (gzip.go).
	unzipped []string
	// termsLater: terms.json is written after the version is live (terms.go); the folder has its marker instead.
	termsLater bool
	// late are the dumps written after the version is live (dumps.go), by syntax name, in the order they are
	// written; the folder has their marker (tree.LateDumps) instead, and formats lists them with size 0.
	late []string
}

// renderVersion writes the dumps, the SPARQL index and the statistics of one version into dir, which must exist
// and be private to the caller. The content is parsed once and its statements fanned out to one goroutine per dump
// and one for the index, so the streaming encoders need no copy of the graph.
//
// The dumps of a small version get their .gz siblings at once. Those of a large one (above codec.StreamAbove) do
// not: compressing every dump was about a fifth of the CPU between a 1 M-triple upload's answer and its version
// being live (1.9 of ~10 CPU-s), and a dump is served uncompressed, from the same version, until its sibling is
// there. The names are in rendering.unzipped; gzip.go writes the siblings after the switch.
//
// With termsLater, what the version defines (terms.json) is not collected here but after the switch, from the
// N-Triples or N-Quads dump (terms.go): the folder gets its marker, with the prefixes the collection needs.
func renderVersion(ctx context.Context, reg *codec.Registry, dir string, src source, mtime time.Time, termsLater bool) (rendering, error) {
	prefixes, dataset, err := scan(src)
	if err != nil {
		return rendering{}, err
	}
	if termsLater {
		if err := writeTermsMarker(dir, prefixes); err != nil {
			return rendering{}, err
		}
	}
	names := graphSyntaxes
	if dataset {
		names = datasetSyntaxes
	}
	// Statements of an N-Triples or N-Quads upload can be written back without the encoder's checks.
	fromNTriples := src.syntax.Name == "n-triples" || src.syntax.Name == "n-quads"
	var late []string
	if termsLater && fromNTriples {
		if late, err = writeLateMarker(dir, names, prefixes); err != nil {
			return rendering{}, err
		}
	}
	isLate := func(name string) bool { return slices.Contains(late, name) }
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		errs    []error
		out     rendering
		sizes   = make([]int64, len(names))
		skipped = make([]error, len(names))
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Readers: one per dump written now, then the index's, then the collector's (unless termsLater). A dump
	// written later has none.
	nReaders := len(names) - len(late) + 2
	if termsLater {
		nReaders--
	}
	readers := fanOut(ctx, src.decoder(), nReaders)
	zipNow := len(src.data) <= codec.StreamAbove
	next := 0
	for i, name := range names {
		syn, ok := reg.ByName(name)
		if !ok || !syn.CanEncode() {
			return rendering{}, fmt.Errorf("pipeline: no encoder for %s", name)
		}
		if isLate(name) {
			continue
		}
		rd := readers[next]
		next++
		wg.Add(1)
		go func() {
			defer wg.Done()
			file := filepath.Join(dir, tree.DataBase+syn.Extensions[0])
			n, err := writeDump(ctx, file, syn, rd, len(src.data), prefixes, fromNTriples, zipNow)
			if err != nil {
				// Some data cannot be written in some syntaxes (RDF/XML needs predicates that split into a
				// QName). If the source itself read fine (the index says so), the version goes live without this
				// dump rather than not at all; keep reading so the other readers are not held up.
				for {
					if _, derr := rd.Next(); derr != nil {
						break
					}
				}
				os.Remove(file)
				os.Remove(file + ".gz")
				mu.Lock()
				skipped[i] = fmt.Errorf("%s dump: %w", syn.Name, err)
				mu.Unlock()
				return
			}
			sizes[i] = n
		}()
	}
	if !termsLater {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := writeTerms(filepath.Join(dir, tree.Terms), readers[next+1], prefixes); err != nil {
				cancel()
				fail(fmt.Errorf("documentation: %w", err))
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		ds, err := index.BuildFrom(ctx, readers[next])
		if err != nil {
			cancel()
			fail(fmt.Errorf("SPARQL index: %w", err))
			return
		}
		// The statistics read the dataset while it is written and synced (both only read it): the two are the
		// last work of the rendering, and the save mostly waits for the disk.
		saved := make(chan error, 1)
		go func() { saved <- ds.Save(filepath.Join(dir, tree.Index)) }()
		out.stats = statistics(ds)
		if err := <-saved; err != nil {
			fail(fmt.Errorf("SPARQL index: %w", err))
		}
	}()
	wg.Wait()
	if len(errs) > 0 {
		// Every reader of a bad document fails the same way, and a failure cancels the rest: the first says why.
		return rendering{}, errs[0]
	}
	for i, name := range names {
		if skipped[i] != nil {
			out.skipped = append(out.skipped, skipped[i])
			continue
		}
		syn, _ := reg.ByName(name)
		f := tree.Format{Ext: syn.Extensions[0], MediaType: syn.MediaTypes[0], Name: displayNames[name], Size: sizes[i]}
		out.formats = append(out.formats, f)
		if !zipNow && !isLate(name) {
			out.unzipped = append(out.unzipped, f.File())
		}
	}
	out.termsLater = termsLater
	out.late = late
	return out, touchAll(dir, mtime)
}

// writeTerms collects what the version defines (content/vocab) for its documentation page. A document that does
// not read fails the index too, which says why; only writing the file is this reader's own error.
func writeTerms(file string, dec rdf.Decoder, prefixes []rdf.Prefix) error {
	c := vocab.NewCollector()
	for {
		q, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil
		}
		c.Add(q)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	return encodeTerms(f, c, prefixes)
}

// encodeTerms writes the collected documentation into f and closes it.
func encodeTerms(f *os.File, c *vocab.Collector, prefixes []rdf.Prefix) error {
	w := bufio.NewWriterSize(f, 1<<16)
	if err := c.Doc(prefixes).Encode(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// scan reads the source when its syntax declares prefixes (the pretty encoders need them before the first
// statement) and tells whether it has named graphs. Sources without declarations (N-Triples, N-Quads) get the
// prefixes of prefixes.Counter over their first prefixSample statements: the well-known ones in use and the
// namespaces many IRIs share, as `ldhub convert` gives them. They are read to the end only when they can hold
// named graphs.
func scan(src source) ([]rdf.Prefix, bool, error) {
	dec := src.decoder()
	ps, declares := dec.(rdf.PrefixSource)
	var counter *prefixes.Counter
	if !declares {
		counter = prefixes.NewCounter()
	}
	dataset := false
	for n := 0; ; n++ {
		if !declares && !src.syntax.Dataset && n == prefixSample {
			break
		}
		q, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, fmt.Errorf("reading %s: %w", src.syntax.Name, err)
		}
		if !q.G.IsZero() {
			dataset = true
		}
		if counter != nil && n < prefixSample {
			counter.Add(q)
		}
	}
	if counter != nil {
		return counter.Prefixes(nil), dataset, nil
	}
	return mergePrefixes(ps.Prefixes()), dataset, nil
}

// prefixSample bounds the statements whose IRIs choose the prefixes of a source without declarations: enough to
// see a dataset's own namespaces, cheap next to the dumps of a large upload.
const prefixSample = 1 << 16

func mergePrefixes(own []rdf.Prefix) []rdf.Prefix {
	out := append([]rdf.Prefix(nil), own...)
	seen := map[string]bool{}
	for _, p := range own {
		seen[p.Name] = true
		seen["\x00"+p.IRI] = true
	}
	for _, p := range wellKnown {
		if !seen[p.Name] && !seen["\x00"+p.IRI] {
			out = append(out, p)
		}
	}
	return out
}

// writeDump encodes src into path (and path.gz at once when zip) and returns the size of the uncompressed dump.
func writeDump(ctx context.Context, path string, syn codec.Syntax, dec rdf.Decoder, size int, prefixes []rdf.Prefix, fromNTriples, zip bool) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<16)
	cw := &countWriter{w: buf}
	var gz *gzipSibling
	if zip {
		if gz, err = newGzipSibling(path + ".gz"); err != nil {
			return 0, err
		}
		defer gz.f.Close()
		cw.w = io.MultiWriter(buf, gz.zw)
	}
	var enc rdf.Encoder
	switch {
	case syn.NewStreamEncoder != nil && size > codec.StreamAbove:
		// Large versions are written as statements come instead of pretty-printed from the whole graph.
		enc = syn.NewStreamEncoder(cw, rdf.EncodeOptions{Prefixes: prefixes})
	case (syn.Name == "n-triples" || syn.Name == "n-quads") && fromNTriples && size > codec.StreamAbove:
		enc = stream.NewNTriples(cw)
	default:
		enc = syn.NewEncoder(cw, rdf.EncodeOptions{Prefixes: prefixes})
	}
	if _, err := codec.Copy(ctx, enc, dec); err != nil {
		return 0, err
	}
	if err := enc.Close(); err != nil {
		return 0, err
	}
	if err := buf.Flush(); err != nil {
		return 0, err
	}
	if gz != nil {
		if err := gz.close(); err != nil {
			return 0, err
		}
	}
	return cw.n, f.Close()
}

// gzipSibling is a dump's .gz file being written.
type gzipSibling struct {
	f   *os.File
	buf *bufio.Writer
	zw  *gzip.Writer
}

func newGzipSibling(path string) (*gzipSibling, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return newGzipWriter(f), nil
}

func newGzipWriter(f *os.File) *gzipSibling {
	buf := bufio.NewWriterSize(f, 1<<16)
	// BestSpeed: the .gz siblings must not dominate the time to publish a large version; level 1 still shrinks
	// RDF dumps about eightfold. klauspost's level 1 is about three times as fast as compress/gzip's. A zero
	// header time keeps the bytes deterministic.
	zw, _ := gzip.NewWriterLevel(buf, gzip.BestSpeed)
	return &gzipSibling{f: f, buf: buf, zw: zw}
}

// close finishes the compressed stream and closes the file.
func (g *gzipSibling) close() error {
	if err := g.zw.Close(); err != nil {
		return err
	}
	if err := g.buf.Flush(); err != nil {
		return err
	}
	return g.f.Close()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// touchAll gives every file of dir the version's commit time, which is what Last-Modified then says, from the Go
// handler and from nginx alike.
func touchAll(dir string, t time.Time) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.Chtimes(filepath.Join(dir, e.Name()), t, t); err != nil {
			return err
		}
	}
	return nil
}

const (
	rdfsLabel = "http://www.w3.org/2000/01/rdf-schema#label"
	skosPref  = "http://www.w3.org/2004/02/skos/core#prefLabel"
	maxListed = 200 // classes and properties listed on a page
)

// statistics counts from the index, whose sorted permutations make each figure one pass over ids.
func statistics(ds *index.Dataset) tree.Stats {
	graphs := []*index.Graph{ds.Default}
	for _, n := range ds.GraphNames() {
		graphs = append(graphs, ds.Graph(n))
	}
	st := tree.Stats{Graphs: len(ds.GraphNames())}
	classes, props, langs := map[index.ID]int{}, map[index.ID]int{}, map[string]int{}
	subjects := map[index.ID]struct{}{}
	typ := ds.Dict.Lookup(rdf.IRI(rdf.RDFType))
	for _, g := range graphs {
		if g == nil {
			continue
		}
		st.Triples += g.Len()
		var last index.ID
		for _, r := range g.Rows(index.SPO) {
			if r[0] != last {
				subjects[r[0]] = struct{}{}
				last = r[0]
			}
		}
		for _, r := range g.Rows(index.POS) { // (p, o, s)
			props[r[0]]++
			if r[0] == typ && typ != 0 {
				classes[r[1]]++
			}
		}
	}
	st.Subjects = len(subjects)
	for id := index.ID(1); int(id) <= ds.Dict.Len(); id++ {
		t := ds.Dict.Term(id)
		if t.Lang == "" {
			continue
		}
		for _, g := range graphs {
			if g != nil {
				langs[t.Lang] += g.Match(0, 0, id).Len()
			}
		}
	}
	st.Classes = counts(ds, graphs, classes)
	st.Properties = counts(ds, graphs, props)
	for l, n := range langs {
		if n > 0 {
			st.Languages = append(st.Languages, tree.Count{Value: l, N: n})
		}
	}
	sortCounts(st.Languages)
	return st
}

func counts(ds *index.Dataset, graphs []*index.Graph, m map[index.ID]int) []tree.Count {
	out := make([]tree.Count, 0, len(m))
	for id, n := range m {
		t := ds.Dict.Term(id)
		if !t.IsIRI() { // a blank node or literal as a class has no name to list
			continue
		}
		out = append(out, tree.Count{Value: t.Value, N: n, Label: label(ds, graphs, id)})
	}
	sortCounts(out)
	if len(out) > maxListed {
		out = out[:maxListed]
	}
	return out
}

func sortCounts(c []tree.Count) {
	sort.Slice(c, func(i, j int) bool {
		if c[i].N != c[j].N {
			return c[i].N > c[j].N
		}
		return c[i].Value < c[j].Value
	})
}

// label picks a display label from the data: rdfs:label or skos:prefLabel, English or untagged first, then the
// smallest by value so that the choice is deterministic.
func label(ds *index.Dataset, graphs []*index.Graph, id index.ID) string {
	best, bestRank := "", 3
	for _, piri := range []string{rdfsLabel, skosPref} {
		p := ds.Dict.Lookup(rdf.IRI(piri))
		if p == 0 {
			continue
		}
		for _, g := range graphs {
			if g == nil {
				continue
			}
			m := g.Match(id, p, 0)
			for i := 0; i < m.Len(); i++ {
				_, _, o := m.At(i)
				t := ds.Dict.Term(o)
				if !t.IsLiteral() {
					continue
				}
				rank := 2
				if t.Lang == "" || t.Lang == "en" || len(t.Lang) > 2 && t.Lang[:3] == "en-" {
					rank = 1
				}
				if rank < bestRank || rank == bestRank && t.Value < best {
					best, bestRank = string([]byte(t.Value)), rank
				}
			}
		}
	}
	return best
}

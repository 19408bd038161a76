// Package turtleenc writes RDF as pretty, always-valid Turtle and TriG: the form a person reads at a publication
// URL. Statements are buffered until Close because grouping and nesting need the whole graph.
//
// Output order is deterministic for a given input sequence, not for a given set: graphs, subjects, predicates and
// objects appear in the order they were first seen (with rdf:type first among predicates). Keeping the publisher's
// order reads better than sorting, and the same upload always renders to the same bytes.
package turtleenc

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// Encoder buffers quads and writes them as Turtle or TriG on Close.
type Encoder struct {
	w      io.Writer
	opts   rdf.EncodeOptions
	trig   bool
	closed bool

	// Terms are interned so that grouping, de-duplication and blank-node analysis work on small integers. Id 0 is
	// the zero term, which names the default graph.
	terms []rdf.Term
	ids   map[rdf.Term]int32
	seen  map[[4]int32]struct{}

	graphOrder []int32 // graph ids in first-seen order
	graphs     map[int32]*graph
}

type graph struct {
	subjects []int32 // first-seen order
	subj     map[int32]*subject
}

type subject struct {
	id    int32
	preds []pred
	// byPred indexes preds once a subject has many of them, so hostile fan-out stays linear.
	byPred map[int32]int
}

type pred struct {
	p    int32
	objs []int32
}

// manyPreds is where a subject switches from scanning its predicates to a map.
const manyPreds = 16

// NewEncoder returns a Turtle encoder. A quad in a named graph is an error: Turtle has no graphs.
func NewEncoder(w io.Writer, o rdf.EncodeOptions) *Encoder { return newEncoder(w, o, false) }

// NewTriGEncoder returns a TriG encoder: the default graph first, then one block per named graph.
func NewTriGEncoder(w io.Writer, o rdf.EncodeOptions) *Encoder { return newEncoder(w, o, true) }

func newEncoder(w io.Writer, o rdf.EncodeOptions, trig bool) *Encoder {
	return &Encoder{
		w:      w,
		opts:   o,
		trig:   trig,
		terms:  []rdf.Term{{}},
		ids:    map[rdf.Term]int32{{}: 0},
		seen:   make(map[[4]int32]struct{}),
		graphs: make(map[int32]*graph),
	}
}

// ErrClosed is returned by Encode after Close.
var ErrClosed = errors.New("turtleenc: encoder is closed")

// Encode buffers q. It rejects, without buffering it, any quad that Turtle/TriG cannot express, so that Close can
// never be left holding something it would have to write invalidly.
func (e *Encoder) Encode(q rdf.Quad) error {
	if e.closed {
		return ErrClosed
	}
	if err := e.check(q); err != nil {
		return fmt.Errorf("turtleenc: cannot encode %s: %w", q, err)
	}
	var k [4]int32
	for i, t := range [...]rdf.Term{q.S, q.P, q.O, q.G} {
		id, err := e.intern(t)
		if err != nil {
			return fmt.Errorf("turtleenc: cannot encode %s: %w", q, err)
		}
		k[i] = id
	}
	if _, dup := e.seen[k]; dup {
		return nil
	}
	e.seen[k] = struct{}{}
	g := e.graphs[k[3]]
	if g == nil {
		g = &graph{subj: make(map[int32]*subject)}
		e.graphs[k[3]] = g
		e.graphOrder = append(e.graphOrder, k[3])
	}
	s := g.subj[k[0]]
	if s == nil {
		s = &subject{id: k[0]}
		g.subj[k[0]] = s
		g.subjects = append(g.subjects, k[0])
	}
	s.add(k[1], k[2])
	return nil
}

func (s *subject) add(p, o int32) {
	if s.byPred != nil {
		if i, ok := s.byPred[p]; ok {
			s.preds[i].objs = append(s.preds[i].objs, o)
			return
		}
	} else {
		for i := range s.preds {
			if s.preds[i].p == p {
				s.preds[i].objs = append(s.preds[i].objs, o)
				return
			}
		}
	}
	s.preds = append(s.preds, pred{p: p, objs: []int32{o}})
	if s.byPred != nil {
		s.byPred[p] = len(s.preds) - 1
	} else if len(s.preds) > manyPreds {
		s.byPred = make(map[int32]int, 2*len(s.preds))
		for i, pr := range s.preds {
			s.byPred[pr.p] = i
		}
	}
}

// intern returns the id of t, checking that Turtle can write it the first time it is seen (terms repeat a lot, so
// validating once per distinct term keeps the UTF-8 and character scans off the per-quad path).
func (e *Encoder) intern(t rdf.Term) (int32, error) {
	if id, ok := e.ids[t]; ok {
		return id, nil
	}
	if err := checkTerm(t); err != nil {
		return 0, err
	}
	if len(e.terms) == math.MaxInt32 {
		return 0, errors.New("too many distinct terms for one document")
	}
	id := int32(len(e.terms))
	e.terms = append(e.terms, t)
	e.ids[t] = id
	return id, nil
}

// check reports why the shape of q cannot be written, or nil; intern checks the terms themselves.
func (e *Encoder) check(q rdf.Quad) error {
	switch q.S.Kind {
	case rdf.KindIRI, rdf.KindBlank:
	default:
		return errors.New("subject must be an IRI or a blank node")
	}
	if q.P.Kind != rdf.KindIRI {
		return errors.New("predicate must be an IRI")
	}
	if q.O.Kind == rdf.KindNone {
		return errors.New("object is missing")
	}
	switch q.G.Kind {
	case rdf.KindNone:
	case rdf.KindIRI, rdf.KindBlank:
		if !e.trig {
			return errors.New("Turtle cannot hold a named graph (use TriG)")
		}
	default:
		return errors.New("graph name must be an IRI or a blank node")
	}
	return nil
}

func checkTerm(t rdf.Term) error {
	switch t.Kind {
	case rdf.KindIRI:
		return checkIRI(t.Value)
	case rdf.KindLiteral:
		if !utf8.ValidString(t.Value) {
			return errors.New("literal is not valid UTF-8")
		}
		if t.Datatype != "" {
			if err := checkIRI(t.Datatype); err != nil {
				return fmt.Errorf("datatype: %w", err)
			}
		}
		if t.Lang != "" && !validLangTag(t.Lang, t.Datatype == rdf.RDFDirLangString) {
			return fmt.Errorf("invalid language tag %q", t.Lang)
		}
		if t.Lang == "" && (t.Datatype == rdf.RDFLangString || t.Datatype == rdf.RDFDirLangString) {
			return errors.New("language-tagged literal without a language tag")
		}
	}
	return nil
}

// checkIRI rejects IRIs that no Turtle document can carry. Escaping does not help: \u0020 and the like inside <…>
// are syntax errors (W3C turtle-syntax-bad-uri-escape-*). Such strings are not IRIs (RFC 3987) in the first place,
// and rewriting them (say, percent-encoding) would silently publish a different IRI.
func checkIRI(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("IRI is not valid UTF-8")
	}
	if c := unwritableIRIChar(s); c >= 0 {
		return fmt.Errorf("IRI contains %U, which Turtle cannot write, escaped or not", c)
	}
	return nil
}

// Close writes everything buffered. It does not close the underlying writer.
func (e *Encoder) Close() error {
	if e.closed {
		return ErrClosed
	}
	e.closed = true
	if err := e.write(); err != nil {
		return fmt.Errorf("turtleenc: %w", err)
	}
	return nil
}

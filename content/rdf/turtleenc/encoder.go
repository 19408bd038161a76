// Package turtleenc writes RDF as pretty, always-valid Turtle and TriG: the form a person reads at a publication
// URL. Statements are buffered until Close because grouping and nesting need the whole graph.
//
// Output order is deterministic for a given input sequence, not for a given set: graphs (the default graph first),
// subjects, predicates and objects appear in the order they were first seen, with rdf:type first among predicates.
// Keeping the publisher's order reads better than sorting, and the same upload always renders to the same bytes.
//
// What "valid" means here is that every document reads back, with a conforming reader, as exactly the dataset that
// was encoded. Anything that cannot be written that way (a literal subject, an IRI with a space or a '>', invalid
// UTF-8, a malformed language tag) is refused by Encode with an error instead of being written approximately.
// Abbreviations are used only where they are exact: prefixed names whose local part is a valid PN_LOCAL (with
// backslash escapes), IRIs relative to the base that resolve back to themselves, bare numbers and booleans whose
// lexical form is the grammar's, [ ] for blank nodes referenced once (within one graph, not in a cycle, at most 32
// levels deep), ( ) for well-formed lists. Blank-node labels are kept when Turtle can carry them, else replaced by
// fresh ones.
package turtleenc

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
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
	terms    []rdf.Term
	iris     map[string]int32
	blanks   map[string]int32
	literals map[string]int32 // lexical form -> latest literal with it; litNext chains the others
	litNext  []int32
	arena    []int32

	last         *subject // where the previous quad went
	lastS, lastG rdf.Term

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
	// set indexes objs once there are many, so de-duplicating hostile fan-out stays linear.
	set map[int32]struct{}
}

// manyPreds and manyObjs are where scanning for a predicate or a duplicate object gives way to a map.
const (
	manyPreds = 16
	manyObjs  = 16
)

// NewEncoder returns a Turtle encoder. A quad in a named graph is an error: Turtle has no graphs.
func NewEncoder(w io.Writer, o rdf.EncodeOptions) *Encoder { return newEncoder(w, o, false) }

// NewTriGEncoder returns a TriG encoder: the default graph first, then one block per named graph.
func NewTriGEncoder(w io.Writer, o rdf.EncodeOptions) *Encoder { return newEncoder(w, o, true) }

func newEncoder(w io.Writer, o rdf.EncodeOptions, trig bool) *Encoder {
	return &Encoder{
		w:        w,
		opts:     o,
		trig:     trig,
		terms:    []rdf.Term{{}},
		litNext:  []int32{0},
		iris:     make(map[string]int32),
		blanks:   make(map[string]int32),
		literals: make(map[string]int32),
		graphs:   make(map[int32]*graph),
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
		return reject(q, err)
	}
	// Statements usually come grouped by subject, so the subject of the previous quad is tried first. Every term is
	// accepted before anything joins the graph, so a rejected quad leaves no partial statement behind.
	same := e.last != nil && q.S == e.lastS && q.G == e.lastG
	var sid, gid int32
	if !same {
		var err error
		if sid, err = e.intern(q.S); err != nil {
			return reject(q, err)
		}
		if gid, err = e.intern(q.G); err != nil {
			return reject(q, err)
		}
	}
	pid, err := e.intern(q.P)
	if err != nil {
		return reject(q, err)
	}
	oid, err := e.intern(q.O)
	if err != nil {
		return reject(q, err)
	}
	if !same {
		g := e.graphs[gid]
		if g == nil {
			g = &graph{subj: make(map[int32]*subject)}
			e.graphs[gid] = g
			e.graphOrder = append(e.graphOrder, gid)
		}
		s := g.subj[sid]
		if s == nil {
			s = &subject{id: sid}
			g.subj[sid] = s
			g.subjects = append(g.subjects, sid)
		}
		e.last, e.lastS, e.lastG = s, q.S, q.G
	}
	e.add(e.last, pid, oid)
	return nil
}

// reject wraps why q cannot be encoded, showing at most the start of the quad: a hostile literal can be megabytes.
func reject(q rdf.Quad, err error) error {
	s := q.String()
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return fmt.Errorf("turtleenc: cannot encode %s: %w", s, err)
}

// add records p o on s unless it is already there (a graph is a set).
func (e *Encoder) add(s *subject, p, o int32) {
	i := -1
	if s.byPred != nil {
		if j, ok := s.byPred[p]; ok {
			i = j
		}
	} else {
		for j := range s.preds {
			if s.preds[j].p == p {
				i = j
				break
			}
		}
	}
	if i < 0 {
		s.preds = append(s.preds, pred{p: p, objs: e.alloc(o)})
		if s.byPred != nil {
			s.byPred[p] = len(s.preds) - 1
		} else if len(s.preds) > manyPreds {
			s.byPred = make(map[int32]int, 2*len(s.preds))
			for j, pr := range s.preds {
				s.byPred[pr.p] = j
			}
		}
		return
	}
	pr := &s.preds[i]
	if pr.set != nil {
		if _, dup := pr.set[o]; dup {
			return
		}
		pr.set[o] = struct{}{}
	} else {
		for _, x := range pr.objs {
			if x == o {
				return
			}
		}
		if len(pr.objs) >= manyObjs {
			pr.set = make(map[int32]struct{}, 2*len(pr.objs))
			for _, x := range pr.objs {
				pr.set[x] = struct{}{}
			}
			pr.set[o] = struct{}{}
		}
	}
	pr.objs = append(pr.objs, o)
}

// alloc returns a one-element object list carved from a shared block: most predicates have one object, and a heap
// allocation each would dominate buffering. Appending past it moves the list to the heap as usual.
func (e *Encoder) alloc(o int32) []int32 {
	if len(e.arena) == cap(e.arena) {
		e.arena = make([]int32, 0, 4096)
	}
	n := len(e.arena)
	e.arena = append(e.arena, o)
	return e.arena[n : n+1 : n+1]
}

// intern returns the id of t, checking that Turtle can write it the first time it is seen (terms repeat a lot, so
// validating once per distinct term keeps the UTF-8 and character scans off the per-quad path).
//
// Every kind is keyed by its value string alone, because hashing one string costs much less than hashing a Term.
// Literals that share a lexical form but differ in datatype or language are chained through litNext.
func (e *Encoder) intern(t rdf.Term) (int32, error) {
	var byValue map[string]int32
	switch t.Kind {
	case rdf.KindNone:
		return 0, nil
	case rdf.KindIRI:
		byValue = e.iris
	case rdf.KindBlank:
		byValue = e.blanks
	default:
		byValue = e.literals
	}
	head, found := byValue[t.Value]
	if found {
		if t.Kind != rdf.KindLiteral {
			return head, nil
		}
		for id := head; id > 0; id = e.litNext[id] {
			if e.terms[id] == t {
				return id, nil
			}
		}
	}
	if err := checkTerm(t); err != nil {
		return 0, err
	}
	if len(e.terms) == math.MaxInt32 {
		return 0, errors.New("too many distinct terms for one document")
	}
	id := int32(len(e.terms))
	e.terms = append(e.terms, t)
	var next int32 // 0 ends a chain: id 0 is the zero term, never a literal
	if found {
		next = head
	}
	e.litNext = append(e.litNext, next)
	byValue[t.Value] = id
	return id, nil
}

// check reports why the shape of q cannot be written, or nil; intern checks the terms themselves.
func (e *Encoder) check(q rdf.Quad) error { return checkShape(q, e.trig) }

func checkShape(q rdf.Quad, trig bool) error {
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
		if !trig {
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
		if t.Lang != "" && t.Datatype != "" && t.Datatype != rdf.RDFLangString && t.Datatype != rdf.RDFDirLangString {
			return fmt.Errorf("language tag on a literal of datatype <%s>", t.Datatype)
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
	// One pass over the bytes, with UTF-8 validated only when a byte above ASCII shows up: this runs for every
	// IRI written. Invalid UTF-8 is still the error reported first.
	ascii := true
	bad := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
		} else if bad < 0 && unwritableIRI[c] {
			bad = int(c)
		}
	}
	if !ascii && !utf8.ValidString(s) {
		return errors.New("IRI is not valid UTF-8")
	}
	if bad >= 0 {
		return fmt.Errorf("IRI contains %U, which Turtle cannot write, escaped or not", bad)
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

package turtleenc

import (
	"bufio"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// maxNest bounds how deep [ ] and ( ) are nested in the output. Deeper blank nodes are written with labels as
// statements of their own, so hostile chains never produce output that readers with a depth limit refuse (our own
// decoder stops at rdf.DefaultMaxDepth) and never recurse without bound here.
const maxNest = 32

// indentStep is the width of one indentation level.
const indentStep = 4

// lineWidth is where an object list wraps onto a new line (in bytes, a readability aim rather than a limit: a single
// long term still goes on one line).
const lineWidth = 100

// blankInfo is what the writer needs to know about one blank node to decide how to write it.
type blankInfo struct {
	refs       int32 // times used as an object, over all graphs
	graph      int32 // graph of the first occurrence
	seen       bool
	multiGraph bool // occurs in more than one graph: only a label keeps the occurrences the same node
	graphName  bool
	root       bool // written as a statement of its own even though it could have been nested
	reached    bool // some statement that will be written nests it
	done       bool // its statement was written early, after the statement it was too deep to nest in
}

type writer struct {
	e   *Encoder
	n   *namer
	out *bufio.Writer

	texts  []string // cached spelling of IRIs and literals, by term id
	labels []string // blank node labels as written, by term id
	info   []blankInfo
	used   map[string]bool // blank labels kept from the source, so minted ones never collide
	next   int

	typ, first, rest, nilID int32 // interned ids of the rdf: terms the layout treats specially, -1 if absent

	g        *graph
	indent   int  // indentation of the current graph's statements
	started  bool // something has been written at the top level, so the next block is set off by a blank line
	deferred []int32
	scratch  strings.Builder
	col      int // bytes written since the last line break
}

func (e *Encoder) write() error {
	w := &writer{
		e:      e,
		n:      newNamer(e.opts.Prefixes, e.opts.Base),
		out:    bufio.NewWriterSize(e.w, 64<<10),
		texts:  make([]string, len(e.terms)),
		labels: make([]string, len(e.terms)),
		info:   make([]blankInfo, len(e.terms)),
		used:   make(map[string]bool),
	}
	w.typ = e.lookup(rdf.IRI(rdf.RDFType))
	w.first = e.lookup(rdf.IRI(rdf.RDFFirst))
	w.rest = e.lookup(rdf.IRI(rdf.RDFRest))
	w.nilID = e.lookup(rdf.IRI(rdf.RDFNil))
	for _, t := range e.terms {
		if t.Kind == rdf.KindBlank && validBlankLabel(t.Value) {
			w.used[t.Value] = true
		}
	}
	w.analyse()
	w.header()
	// The default graph comes first so that a TriG document opens with its unnamed triples.
	order := make([]int32, 0, len(e.graphOrder))
	if e.graphs[0] != nil {
		order = append(order, 0)
	}
	for _, gid := range e.graphOrder {
		if gid != 0 {
			order = append(order, gid)
		}
	}
	for _, gid := range order {
		w.g = e.graphs[gid]
		if gid == 0 {
			w.indent = 0
			w.writeGraph()
			continue
		}
		w.indent = indentStep
		if w.started {
			w.byte('\n')
		}
		w.started = true
		w.writeTerm(gid)
		w.str(" {\n")
		w.writeGraph()
		w.str("}\n")
	}
	return w.out.Flush()
}

func (e *Encoder) lookup(t rdf.Term) int32 {
	if id, ok := e.iris[t.Value]; ok && t.Kind == rdf.KindIRI {
		return id
	}
	return -1
}

func (w *writer) isBlank(id int32) bool { return w.e.terms[id].Kind == rdf.KindBlank }

// nestable reports whether the blank node id is written inside the one statement that refers to it.
func (w *writer) nestable(id int32) bool {
	if !w.isBlank(id) {
		return false
	}
	in := &w.info[id]
	return in.refs == 1 && !in.graphName && !in.multiGraph && !in.root
}

// anonymous reports whether the blank node id is a subject nothing refers to, written as [ … ] or ( … ) without a
// label.
func (w *writer) anonymous(id int32) bool {
	if !w.isBlank(id) {
		return false
	}
	in := &w.info[id]
	return in.refs == 0 && !in.graphName && !in.multiGraph
}

// analyse counts blank-node references and decides which nodes are nested. A node referenced once could be nested
// in its referrer, but where the referrers form a cycle nothing outside reaches it; one node of each such cycle,
// the first seen as a subject, becomes a labelled statement so that the rest nest under it.
func (w *writer) analyse() {
	touch := func(id, gid int32) {
		if !w.isBlank(id) {
			return
		}
		in := &w.info[id]
		if !in.seen {
			in.seen, in.graph = true, gid
		} else if in.graph != gid {
			in.multiGraph = true
		}
	}
	for _, gid := range w.e.graphOrder {
		if w.isBlank(gid) {
			w.info[gid].graphName = true
		}
		g := w.e.graphs[gid]
		for _, sid := range g.subjects {
			touch(sid, gid)
			for _, p := range g.subj[sid].preds {
				for _, o := range p.objs {
					if w.isBlank(o) {
						w.info[o].refs++
						touch(o, gid)
					}
				}
			}
		}
	}
	for _, gid := range w.e.graphOrder {
		g := w.e.graphs[gid]
		for _, sid := range g.subjects {
			if !w.nestable(sid) {
				w.reach(g, sid)
			}
		}
		for _, sid := range g.subjects {
			if w.nestable(sid) && !w.info[sid].reached {
				w.info[sid].root = true
				w.reach(g, sid)
			}
		}
	}
}

// reach marks every node nested (transitively) under the statement of root.
func (w *writer) reach(g *graph, root int32) {
	stack := []int32{root}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		s := g.subj[id]
		if s == nil {
			continue
		}
		for _, p := range s.preds {
			for _, o := range p.objs {
				if w.nestable(o) && !w.info[o].reached {
					w.info[o].reached = true
					stack = append(stack, o)
				}
			}
		}
	}
}

func (w *writer) header() {
	if w.n.base != "" {
		w.scratch.Reset()
		w.scratch.WriteString("@base ")
		appendIRIRef(&w.scratch, w.n.base)
		w.scratch.WriteString(" .\n")
		w.str(w.scratch.String())
		w.started = true
	}
	for _, p := range w.n.prefixes {
		w.scratch.Reset()
		w.scratch.WriteString("@prefix ")
		w.scratch.WriteString(p.Name)
		w.scratch.WriteString(": ")
		appendIRIRef(&w.scratch, p.IRI)
		w.scratch.WriteString(" .\n")
		w.str(w.scratch.String())
		w.started = true
	}
}

// writeGraph writes the statements of w.g: one per subject that is not nested elsewhere, in first-seen order,
// each followed by the statements that nesting too deep pushed out of it. Statements are set off by blank lines.
func (w *writer) writeGraph() {
	first := true
	sep := func() {
		if w.indent == 0 && w.started || w.indent > 0 && !first {
			w.byte('\n')
		}
		first = false
		if w.indent == 0 {
			w.started = true
		}
	}
	for _, sid := range w.g.subjects {
		if w.nestable(sid) || w.info[sid].done {
			continue
		}
		sep()
		w.statement(sid)
		for len(w.deferred) > 0 {
			d := w.deferred[0]
			w.deferred = w.deferred[1:]
			// Only nodes of this graph are deferred (a node in several graphs is never nested), so done never
			// hides a statement another graph needs.
			w.info[d].done = true
			sep()
			w.statement(d)
		}
	}
}

// statement writes the subject id with all its properties, ending with " .".
func (w *writer) statement(id int32) {
	s := w.g.subj[id]
	w.pad(w.indent)
	if w.anonymous(id) {
		if items, ok := w.list(id, true); ok {
			w.collection(items, w.indent+indentStep, 1)
			w.byte(' ')
			w.predicateObjects(s, w.indent+indentStep, 0, true)
		} else {
			w.propertyList(s, w.indent, 0)
		}
		w.str(" .\n")
		return
	}
	w.writeTerm(id)
	w.byte(' ')
	w.predicateObjects(s, w.indent+indentStep, 0, false)
	w.str(" .\n")
}

// predicateObjects writes "p o, o ;\n<indent>p o" for s, rdf:type first. The first predicate goes on the current
// line; later ones start a line at indent. skipList leaves out rdf:first/rdf:rest, already written as ( … ).
func (w *writer) predicateObjects(s *subject, indent, depth int, skipList bool) {
	firstPred := true
	write := func(p pred) {
		if skipList && (p.p == w.first || p.p == w.rest) {
			return
		}
		if !firstPred {
			w.str(" ;\n")
			w.pad(indent)
		}
		firstPred = false
		if p.p == w.typ {
			w.byte('a')
		} else {
			w.writeTerm(p.p)
		}
		for i, o := range p.objs {
			switch {
			case i == 0:
				w.byte(' ')
			case w.col+2+w.width(o) > lineWidth:
				// A long object list continues on the next line, one step in from its predicate.
				w.str(",\n")
				w.pad(indent + indentStep)
			default:
				w.str(", ")
			}
			w.object(o, indent, depth)
		}
	}
	for _, p := range s.preds {
		if p.p == w.typ {
			write(p)
		}
	}
	for _, p := range s.preds {
		if p.p != w.typ {
			write(p)
		}
	}
}

// object writes o on a line indented by indent, nesting it when it is a blank node referenced only here.
func (w *writer) object(o int32, indent, depth int) {
	if o == w.nilID {
		w.str("()")
		return
	}
	if !w.nestable(o) {
		w.writeTerm(o)
		return
	}
	s := w.g.subj[o]
	if s == nil {
		w.str("[]")
		return
	}
	if depth >= maxNest {
		// Too deep to nest: refer to it by label and write it as a statement of its own after this one.
		w.info[o].root = true
		w.deferred = append(w.deferred, o)
		w.writeTerm(o)
		return
	}
	if items, ok := w.list(o, false); ok {
		w.collection(items, indent, depth+1)
		return
	}
	w.propertyList(s, indent, depth+1)
}

// propertyList writes [ … ] for s: on one line when it holds a single plain statement, else one predicate per line
// indented one step beyond indent, with the closing bracket back at indent.
func (w *writer) propertyList(s *subject, indent, depth int) {
	if len(s.preds) == 1 && len(s.preds[0].objs) == 1 && !w.nestsContent(s.preds[0].objs[0]) {
		w.str("[ ")
		w.predicateObjects(s, indent+indentStep, depth, false)
		w.str(" ]")
		return
	}
	w.str("[\n")
	w.pad(indent + indentStep)
	w.predicateObjects(s, indent+indentStep, depth, false)
	w.byte('\n')
	w.pad(indent)
	w.byte(']')
}

// nestsContent reports whether writing o would open a bracket with statements inside, which then go on lines of
// their own. A collection of plain items stays on one line; only a few levels of lists are looked into, as a
// readability call that must stay cheap on hostile nesting.
func (w *writer) nestsContent(o int32) bool { return w.nestsWithin(o, 3) }

func (w *writer) nestsWithin(o int32, levels int) bool {
	if !w.nestable(o) || w.g.subj[o] == nil {
		return false
	}
	if levels == 0 {
		return true
	}
	items, ok := w.list(o, false)
	if !ok {
		return true
	}
	for _, it := range items {
		if w.nestsWithin(it, levels-1) {
			return true
		}
	}
	return false
}

// collection writes ( … ) on the current line.
func (w *writer) collection(items []int32, indent, depth int) {
	w.byte('(')
	for _, it := range items {
		w.byte(' ')
		w.object(it, indent, depth)
	}
	w.str(" )")
}

// list returns the members of the RDF list whose first node is id, when it is well formed and can be written as
// ( … ): every node a blank node nested nowhere else with exactly one rdf:first and one rdf:rest and nothing more,
// the chain ending at rdf:nil. When asSubject is set, the first node must also carry other properties, written
// after the collection; a bare list cannot be a statement on its own in Turtle.
func (w *writer) list(id int32, asSubject bool) ([]int32, bool) {
	if w.first < 0 || w.rest < 0 || w.nilID < 0 {
		return nil, false
	}
	var items []int32
	for cur := id; ; {
		s := w.g.subj[cur]
		if s == nil {
			return nil, false
		}
		head := cur == id
		switch {
		case head && asSubject:
			if len(s.preds) < 3 {
				return nil, false
			}
		case len(s.preds) != 2:
			return nil, false
		}
		var first, rest int32 = -1, -1
		for _, p := range s.preds {
			switch p.p {
			case w.first:
				if len(p.objs) != 1 {
					return nil, false
				}
				first = p.objs[0]
			case w.rest:
				if len(p.objs) != 1 {
					return nil, false
				}
				rest = p.objs[0]
			}
		}
		if first < 0 || rest < 0 {
			return nil, false
		}
		items = append(items, first)
		if rest == w.nilID {
			return items, true
		}
		// Each later node is referenced once, by its predecessor, so the chain cannot loop back; the length check
		// is a guard, not a case that occurs.
		if !w.nestable(rest) || len(items) > len(w.e.terms) {
			return nil, false
		}
		cur = rest
	}
}

const spaces = "                                                                "

func (w *writer) pad(n int) {
	for n > len(spaces) {
		w.str(spaces)
		n -= len(spaces)
	}
	w.str(spaces[:n])
}

// str and byte write through to out and keep track of the column, which decides where object lists wrap.
func (w *writer) str(s string) {
	w.out.WriteString(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		w.col = len(s) - i - 1
	} else {
		w.col += len(s)
	}
}

func (w *writer) byte(c byte) {
	w.out.WriteByte(c)
	if c == '\n' {
		w.col = 0
	} else {
		w.col++
	}
}

// width estimates how many bytes writing o as an object takes on the current line.
func (w *writer) width(o int32) int {
	t := w.e.terms[o]
	switch {
	case o == w.nilID:
		return 2
	case t.Kind == rdf.KindBlank && w.nestable(o):
		return 1 // [ or ( opens, and the rest follows on its own lines or is short
	case t.Kind == rdf.KindBlank:
		return 2 + len(w.label(o))
	}
	return len(w.text(o))
}

// writeTerm writes an IRI, literal or labelled blank node.
func (w *writer) writeTerm(id int32) {
	t := w.e.terms[id]
	if t.Kind == rdf.KindBlank {
		w.str("_:")
		w.str(w.label(id))
		return
	}
	w.str(w.text(id))
}

// text returns the spelling of an IRI or literal, computed once per term.
func (w *writer) text(id int32) string {
	if s := w.texts[id]; s != "" {
		return s
	}
	t := w.e.terms[id]
	w.scratch.Reset()
	if t.Kind == rdf.KindIRI {
		w.n.appendIRI(&w.scratch, t.Value)
	} else {
		w.n.appendLiteral(&w.scratch, t)
	}
	w.texts[id] = w.scratch.String()
	return w.texts[id]
}

// label returns the blank node's source label when Turtle can carry it, else a fresh one no source label uses.
func (w *writer) label(id int32) string {
	if l := w.labels[id]; l != "" {
		return l
	}
	l := w.e.terms[id].Value
	if !validBlankLabel(l) {
		for {
			w.next++
			l = "b" + strconv.Itoa(w.next)
			if !w.used[l] {
				break
			}
		}
		w.used[l] = true
	}
	w.labels[id] = l
	return l
}

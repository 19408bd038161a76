// Package eval evaluates SPARQL algebra (sparqlsvc/algebra) over dictionary-encoded graphs (sparqlsvc/index).
//
// Solutions are rows of term ids, one slot per query variable (0 = unbound), so joins, DISTINCT and grouping compare
// integers. Ids come from the dataset's dictionary; terms a query computes (BIND, aggregates, constants absent
// from the data) get ids from a per-query overlay above the dictionary's range, interned so that one term always
// has one id. Numbers and dates that fit are held in the id itself (index.IsInline), and a value computed for one
// solution only may take a scratch id that a later solution reuses (isScratch): neither is interned. Operators
// push solutions to a callback that can stop them early (LIMIT, ASK, EXISTS).
//
// Joins are bind joins: the right operand runs once per left solution with that solution's bindings substituted,
// which turns triple patterns into index range lookups. Where SPARQL's bottom-up semantics would differ from
// substitution (a FILTER, OPTIONAL or sub-query that mentions a variable the input binds but the operand itself
// does not bind), the operand is evaluated on its own once and joined, so answers stay exactly the standard's.
// A BGP of two stars that share only variables no subject is may be a hash join instead (hashjoin.go), where the
// planner prices it at under half of the bind join.
package eval

import (
	"context"
	"hash/maphash"
	"strings"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// Dataset is what a query runs against: one dictionary, the graphs whose RDF merge is the default graph, and
// named graphs by the dictionary id of their name.
type Dataset struct {
	Dict    *index.Dict
	Default []*index.Graph
	Named   map[index.ID]*index.Graph
	// Extra graphs join the default graph (RDF merge) without being copied: each keeps its own dictionary, and
	// ids are translated where the query touches it. This is how default-graph-uri adds other publications.
	Extra []Source
}

// Stream evaluates a query over the dataset with the built-in engine (see the package function Stream); with it a
// *Dataset is one of the SPARQL backends the protocol handler runs queries on.
func (ds *Dataset) Stream(ctx context.Context, q *algebra.Query, opt Options, sink Sink) error {
	return Stream(ctx, ds, q, opt, sink)
}

// Source is a graph with the dictionary its ids belong to.
type Source struct {
	Dict  *index.Dict
	Graph *index.Graph
}

// foreign translates between the query's ids and a source graph's own dictionary, caching both directions.
type foreign struct {
	dict    *index.Dict
	toLocal map[ID]ID
	toQuery map[ID]ID
}

func (f *foreign) local(t *terms, id ID) ID {
	if id == 0 || index.IsInline(id) {
		return id
	}
	if l, ok := f.toLocal[id]; ok {
		return l
	}
	l := f.dict.Lookup(t.term(id))
	f.toLocal[id] = l
	return l
}

func (f *foreign) query(t *terms, l ID) ID {
	if index.IsInline(l) {
		return l
	}
	if id, ok := f.toQuery[l]; ok {
		return id
	}
	id := t.id(f.dict.Term(l))
	f.toQuery[l] = id
	return id
}

// FromIndex returns the dataset of one index: its default graph and its named graphs.
func FromIndex(d *index.Dataset) *Dataset {
	ds := &Dataset{Dict: d.Dict, Default: []*index.Graph{d.Default}, Named: map[index.ID]*index.Graph{}}
	for _, n := range d.GraphNames() {
		ds.Named[n] = d.Graph(n)
	}
	return ds
}

// ID is a term id of a query: a dictionary id, an inline id (a small number or date held in the id, the same in
// every dictionary; index.IsInline), or an overlay id above the dictionary's range. 0 is unbound. Overlay ids stay
// below the inline range: the query's memory budget ends it long before 2^30 computed terms.
type ID = uint32

// terms is the query's id space.
type terms struct {
	dict   *index.Dict
	base   ID
	extra  []rdf.Term
	byHash map[uint64]ID // ids of computed terms by the hash of their key: no key string to build or keep per term
	byKey  map[string]ID // the rare terms whose hash an earlier, different term took
	hash   func([]byte) uint64
	keyBuf []byte
	bytes  int64 // what the overlay holds, charged against the query's memory budget
	// lastID's term was the last one read from the dictionary or an inline id: a solution's value is often read
	// several times in a row (YEAR(?d), MONTH(?d), MIN(?d), MAX(?d)).
	lastID   ID
	lastTerm rdf.Term
	// arena holds the lexical forms of the inline ids whose terms the query asked for: one allocation per 64 KiB
	// instead of one per term. What was written is never changed, so the strings made from it stay valid.
	arena []byte
	// scratch holds the values of a SELECT's top-level expressions (see evaluator.markDirect) while their solution
	// travels to the sink; their ids count down from the top of the id range.
	scratch []scratchValue
	// values holds the Values of overlay terms value read (overlayValue); lastValID's was the last one.
	values    map[ID]overlayNum
	lastValID ID
	lastVal   overlayNum
	// dates holds the date values of overlay terms a date comparison read (overlayDate), by id − base − 1.
	dates []overlayDateValue
	// loads counts the terms read from the dictionary: counted work (evaluator.effort), a read of the dictionary's
	// pages costing as much as several rows of a scan.
	loads int
}

// scratchValue is a scratch id's value: a term, or a number whose term is written only if asked for.
type scratchValue struct {
	t   rdf.Term
	n   builtin.Number
	num bool
}

// scratchID gives x an id valid until the scratch list is emptied, without interning it.
func (t *terms) scratchID(x rdf.Term) ID {
	if x.IsZero() {
		return 0
	}
	t.scratch = append(t.scratch, scratchValue{t: x})
	return ^ID(0) - ID(len(t.scratch)-1)
}

// scratchNumber is scratchID for a number: its term is written when term asks for it, and an arithmetic
// expression reading it takes the number (scratchNumberOf) instead of parsing a term.
func (t *terms) scratchNumber(n builtin.Number) ID {
	t.scratch = append(t.scratch, scratchValue{n: n, num: true})
	return ^ID(0) - ID(len(t.scratch)-1)
}

// scratchNumberOf is the number a scratch id holds (scratchNumber); ok is false for other ids.
func (t *terms) scratchNumberOf(id ID) (builtin.Number, bool) {
	if n := ID(len(t.scratch)); n > 0 && id > ^ID(0)-n {
		if v := &t.scratch[^ID(0)-id]; v.num {
			return v.n, true
		}
	}
	return builtin.Number{}, false
}

func newTerms(d *index.Dict) *terms {
	t := &terms{dict: d, byHash: map[uint64]ID{}, byKey: map[string]ID{}}
	seed := maphash.MakeSeed()
	t.hash = func(k []byte) uint64 { return maphash.Bytes(seed, k) }
	if d != nil {
		t.base = ID(d.Len())
	}
	return t
}

func (t *terms) term(id ID) rdf.Term {
	if id == 0 {
		return rdf.Term{}
	}
	if n := ID(len(t.scratch)); n > 0 && id > ^ID(0)-n {
		v := &t.scratch[^ID(0)-id]
		if v.num && v.t.IsZero() {
			v.t = v.n.Term()
		}
		return v.t
	}
	if id == t.lastID {
		return t.lastTerm
	}
	var x rdf.Term
	switch {
	case index.IsInline(id):
		x = t.inline(id)
	case id <= t.base:
		t.loads++
		x = t.dict.Term(id)
	default:
		return t.extra[id-t.base-1]
	}
	t.lastID, t.lastTerm = id, x
	return x
}

// inline is the term of an inline id, its lexical form written into the arena.
func (t *terms) inline(id ID) rdf.Term {
	if cap(t.arena)-len(t.arena) < 32 { // the longest form, a 9-digit negative integer, is 10 bytes
		t.arena = make([]byte, 0, 64<<10)
	}
	start := len(t.arena)
	var dt string
	t.arena, dt = index.AppendInline(t.arena, id)
	lex := t.arena[start:]
	return rdf.Term{Kind: rdf.KindLiteral, Value: unsafe.String(&lex[0], len(lex)), Datatype: dt}
}

// lookup returns the dictionary id of a term, or 0 when the data does not contain it.
func (t *terms) lookup(x rdf.Term) ID {
	if t.dict == nil || x.IsZero() {
		return 0
	}
	return t.dict.Lookup(x)
}

// lookupComputed is lookup for a computed value (index.Dict.LookupComputed: the data most often lacks it).
func (t *terms) lookupComputed(x rdf.Term) ID {
	if t.dict == nil {
		return 0
	}
	return t.dict.LookupComputed(x)
}

// id interns a term: its dictionary id when the data has it, an overlay id otherwise. The overlay's hash table is
// asked first: it holds the terms the data lacks and the dictionary ids of computed terms the data has, and
// computed values repeat (BIND buckets, group keys), so a hit there saves the dictionary's probes.
func (t *terms) id(x rdf.Term) ID {
	if x.IsZero() {
		return 0
	}
	if id, ok := index.InlineID(x); ok {
		return id
	}
	// A computed value is often the term just read (xsd:dateTime(xsd:string(?t)), a cast to the type it has):
	// that term's id, without a key, a hash or the dictionary's probes.
	if y := t.lastTerm; t.lastID != 0 && x.Value == y.Value && x.Kind == y.Kind && x.Datatype == y.Datatype && x.Lang == y.Lang {
		return t.lastID
	}
	k := appendTermKey(t.keyBuf[:0], x)
	t.keyBuf = k
	h := t.hash(k)
	id, hashed := t.byHash[h]
	if hashed {
		if y := t.term(id); y.Kind == x.Kind && y.Value == x.Value && y.Datatype == x.Datatype &&
			strings.EqualFold(y.Lang, x.Lang) {
			return id
		}
		if id, ok := t.byKey[string(k)]; ok {
			return id
		}
	}
	if id := t.lookupComputed(x); id != 0 {
		if !hashed {
			// Remembered by hash too, so the next equal value (a group key such as YEAR(?date), per solution)
			// skips the dictionary's two probes (datatype, then term).
			t.byHash[h] = id
			t.bytes += 16
		}
		return id
	}
	t.extra = append(t.extra, x)
	t.bytes += int64(len(x.Value)+len(x.Datatype)+len(x.Lang)) + 96
	id = t.base + ID(len(t.extra))
	if hashed {
		t.byKey[string(k)] = id
		t.bytes += int64(len(k))
	} else {
		t.byHash[h] = id
	}
	return id
}

// appendTermKey appends a key of x equal to another term's exactly when id gives the two one id: kind, lexical
// form, datatype and the language tag in lower case (tags compare case-insensitively).
func appendTermKey(k []byte, x rdf.Term) []byte {
	k = append(k, byte(x.Kind))
	k = append(k, x.Value...)
	k = append(k, 0)
	k = append(k, x.Datatype...)
	k = append(k, 0)
	for i := 0; i < len(x.Lang); i++ {
		c := x.Lang[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		k = append(k, c)
	}
	return k
}

// inData reports whether id can occur in the graphs (overlay and scratch ids cannot).
func (t *terms) inData(id ID) bool { return id != 0 && (id <= t.base || index.IsInline(id)) }

// isOverlay reports whether id is one the query interned itself.
func (t *terms) isOverlay(id ID) bool { return id > t.base && id < 1<<31 }

// Package index is the storage of the SPARQL engine: the terms of one publication version dictionary-encoded as
// dense uint32 ids, and each graph's triples in three sorted permutations (SPO, POS, OSP) so that any triple
// pattern is a binary search plus a contiguous range. An index is built once by the pipeline, written to one file
// and opened with mmap, so the service neither re-parses RDF nor pays for memory it does not touch.
package index

import (
	"encoding/binary"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
)

// ID is a dictionary id. 0 is never assigned: in patterns it means "any".
type ID = uint32

// Dict maps terms to ids and back. Term keys live in one byte heap; lookups go through an open-addressing hash
// table of ids, so the whole dictionary is three flat arrays that can be mapped from a file.
type Dict struct {
	heap    []byte   // concatenated term keys
	offsets []uint32 // key of id i is heap[offsets[i-1]:offsets[i]] (offsets[0] = 0 is the empty key of id 0)
	table   []uint32 // hash slots holding ids; len is a power of two; 0 = empty
	// A dictionary fresh from a Builder keeps its keys in the builder's chunks instead of heap: copying tens of
	// megabytes into one slice cost more in page faults than the parse. The chunks concatenated are the heap
	// (Save writes them in order); starts[id] is chunk<<32 | position of id's key.
	chunks [][]byte
	starts []uint64
	// heapChunks, when the dictionary has dateTimes in value order (datetime.go), is how many of the chunks hold
	// the keys of the ids before them, in id order; the dateTimes' keys are in the chunks after, in the order they
	// were read, and Save writes them one by one in id order.
	heapChunks int
	dateFrom   ID // the first of those ids
	// dateBlocks are the ids of xsd:dateTime and xsd:date literals in value order, and dateFields each one's
	// YEAR … MINUTES (packFields), from dateBlocks[0].Lo on (datetime.go).
	dateBlocks []DateBlock
	dateFields []uint64
	fieldRuns  [2]atomic.Pointer[FieldRuns] // the column's runs of YEAR and MONTH, and of YEAR … DAY (fieldruns.go)
	miss       missState                    // the filter that answers most misses of computed values (missfilter.go)
}

// Term key layout: kind byte, then for IRIs and blank nodes the value; for literals the datatype id (4 bytes,
// little endian), a language-tag length byte and tag, then the lexical form. Datatype ids keep repeated datatype
// IRIs out of every literal's key.
const (
	keyIRI     = 'I'
	keyBlank   = 'B'
	keyLiteral = 'L'
)

// Len returns the number of terms.
func (d *Dict) Len() int { return len(d.offsets) - 1 }

func (d *Dict) key(id ID) []byte {
	if d.chunks != nil {
		st := d.starts[id]
		c, p := st>>32, st&0xffffffff
		return d.chunks[c][p : p+uint64(d.offsets[id]-d.offsets[id-1])]
	}
	return d.heap[d.offsets[id-1]:d.offsets[id]]
}

// Term returns the term of id. Strings point into the dictionary's memory (no copy), which stays valid as long as
// the Dataset is open; an inline id's are made afresh.
func (d *Dict) Term(id ID) rdf.Term {
	if IsInline(id) {
		return inlineTerm(id)
	}
	if id == 0 || int(id) > d.Len() {
		return rdf.Term{}
	}
	k := d.key(id)
	switch k[0] {
	case keyIRI:
		return rdf.Term{Kind: rdf.KindIRI, Value: bytesString(k[1:])}
	case keyBlank:
		return rdf.Term{Kind: rdf.KindBlank, Value: bytesString(k[1:])}
	default:
		dt := binary.LittleEndian.Uint32(k[1:5])
		n := int(k[5])
		t := rdf.Term{Kind: rdf.KindLiteral, Lang: bytesString(k[6 : 6+n]), Value: bytesString(k[6+n:])}
		if dt != 0 {
			t.Datatype = bytesString(d.key(dt)[1:])
		}
		return t
	}
}

// Lexical returns the lexical form of the literal of id (a dictionary id), without resolving its datatype as Term
// does: a date block's forms read per row (SECONDS). It is "" for other terms.
func (d *Dict) Lexical(id ID) string {
	if IsInline(id) || id == 0 || int(id) > d.Len() {
		return ""
	}
	k := d.key(id)
	if k[0] != keyLiteral {
		return ""
	}
	return bytesString(k[6+int(k[5]):])
}

// StringLength returns the number of characters (Unicode code points) in the lexical form of the string literal of
// id (a dictionary id of an xsd:string or rdf:langString literal), what STRLEN returns, read from its key: ok is
// false for any other term. MIN(STRLEN(?title)) over every review made each title's term, datatype and all, to count
// its characters.
func (d *Dict) StringLength(id ID) (n int, ok bool) {
	if d == nil || IsInline(id) || id == 0 || int(id) > d.Len() { // nil: a dataset without a dictionary
		return 0, false
	}
	k := d.key(id)
	if k[0] != keyLiteral {
		return 0, false
	}
	dt := binary.LittleEndian.Uint32(k[1:5])
	if dt == 0 || int(dt) > d.Len() {
		return 0, false
	}
	if dk := d.key(dt); len(dk) < 1 || !isStringDatatype(dk[1:]) {
		return 0, false
	}
	return utf8.RuneCount(k[6+int(k[5]):]), true
}

// isStringDatatype reports whether the IRI dt is xsd:string or rdf:langString, the datatypes of the literals the
// string functions take.
func isStringDatatype(dt []byte) bool {
	return string(dt) == rdf.XSDString || string(dt) == rdf.RDFLangString
}

// Lang returns the language tag of the literal of id (a dictionary id; "" for a literal without one) from its
// key, without making its term: ok is false for other terms. LANG over every review's title read the whole term,
// its datatype's key too.
func (d *Dict) Lang(id ID) (tag string, ok bool) {
	if IsInline(id) || id == 0 || int(id) > d.Len() {
		return "", false
	}
	k := d.key(id)
	if k[0] != keyLiteral {
		return "", false
	}
	return bytesString(k[6 : 6+int(k[5])]), true
}

// Lookup returns the id of t, or 0 when the dictionary does not hold it.
func (d *Dict) Lookup(t rdf.Term) ID { return d.lookup(t, false) }

// LookupComputed is Lookup for a value a query computed (a function's result, a group key), which the data most
// often lacks: its misses are counted and, once many, answered by the miss filter (missfilter.go) without reading
// the dictionary's keys. Constants of the query text stay with Lookup: they are few and mostly present.
func (d *Dict) LookupComputed(t rdf.Term) ID { return d.lookup(t, true) }

func (d *Dict) lookup(t rdf.Term, computed bool) ID {
	if id, ok := InlineID(t); ok {
		return id
	}
	var buf [128]byte
	k, ok := d.appendKey(buf[:0], t)
	if !ok {
		return 0
	}
	if computed {
		return d.findMissing(k)
	}
	return d.find(k)
}

func (d *Dict) find(k []byte) ID {
	if len(d.table) == 0 {
		return 0
	}
	mask := uint64(len(d.table) - 1)
	for i := hashKey(k) & mask; ; i = (i + 1) & mask {
		id := d.table[i]
		if id == 0 {
			return 0
		}
		if string(d.key(id)) == string(k) {
			return id
		}
	}
}

// appendKey encodes t; ok is false when t is a literal whose datatype is not in the dictionary (then t cannot be).
func (d *Dict) appendKey(b []byte, t rdf.Term) ([]byte, bool) {
	switch t.Kind {
	case rdf.KindIRI:
		return append(append(b, keyIRI), t.Value...), true
	case rdf.KindBlank:
		return append(append(b, keyBlank), t.Value...), true
	case rdf.KindLiteral:
		var dt ID
		if t.Datatype != "" {
			var kb [96]byte
			dt = d.find(append(append(kb[:0], keyIRI), t.Datatype...))
			if dt == 0 {
				return b, false
			}
		}
		return appendLiteralKey(b, dt, t), true
	}
	return b, false
}

func appendLiteralKey(b []byte, dt ID, t rdf.Term) []byte {
	b = append(b, keyLiteral)
	b = binary.LittleEndian.AppendUint32(b, dt)
	lang := strings.ToLower(t.Lang) // RDF 1.1: tags compare case-insensitively
	b = append(b, byte(len(lang)))
	b = append(b, lang...)
	return append(b, t.Value...)
}

// hashKey is FNV-1a over 8-byte words, then mixed: stable across processes (the table is persisted), and fast
// enough for the build, which hashes every distinct term once.
func hashKey(k []byte) uint64 {
	h := uint64(14695981039346656037)
	for len(k) >= 8 {
		h ^= binary.LittleEndian.Uint64(k)
		h *= 1099511628211
		h ^= h >> 29
		k = k[8:]
	}
	for _, c := range k {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

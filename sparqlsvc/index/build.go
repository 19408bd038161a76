package index

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
)

// Dataset is the default graph and the named graphs of one publication version over one dictionary.
type Dataset struct {
	Dict    *Dict
	Default *Graph
	names   []ID // named graphs in ascending id order
	named   map[ID]*Graph
	close   func() error
	mapped  []byte  // the file's mapping, for Warm
	warm    warming // a Warm in progress
}

// Graph returns the named graph with the given id, or nil.
func (d *Dataset) Graph(name ID) *Graph { return d.named[name] }

// GraphNames returns the ids of the named graphs, ascending.
func (d *Dataset) GraphNames() []ID { return d.names }

// Close releases the file mapping of an opened dataset; terms taken from it must not be used afterwards.
func (d *Dataset) Close() error {
	d.stopWarm()
	if d.close == nil {
		return nil
	}
	c := d.close
	d.close = nil
	return c()
}

// Builder collects quads and turns them into a Dataset. It is not safe for concurrent use.
type Builder struct {
	// Terms are interned in an open-addressing table whose slots hold id | low 32 bits of the key's hash << 32:
	// a probe rejects a different key without reading it (a cache miss into the key chunks), growing needs no
	// other record of the hashes, and Build keeps the low halves as the Dict's table (slot = hash & mask in both).
	table []uint64
	// Keys are appended to chunks that never move, and the Dict keeps them: growing a single slice re-copies (and
	// page-faults in) tens of megabytes again and again, which dominated the build.
	chunks  [][]byte
	starts  []uint64 // id -> chunk<<32 | position
	offsets []uint32 // id -> end of its key in the chunks concatenated (the Dict's offsets)
	deflt   rowBlocks
	named   map[ID]*rowBlocks
	maxCol  [3]ID // largest id seen in each position: how many radix passes each column needs
	buf     []byte
	// Datatype IRIs repeat on almost every literal; remembering the last one avoids a map probe each time.
	lastDT    string
	lastDTKey []byte
	lastDTID  ID
	// Consecutive quads usually share a graph.
	lastG    ID
	lastRows *rowBlocks
	// Consecutive quads usually share a subject too, and a few predicates recur on every quad. Both are remembered
	// with their string, which decoders share between statements (a subject within its line's run, an interned
	// predicate), so recognising one is mostly a pointer comparison instead of a key built, hashed and probed.
	lastS   rdf.Term
	lastSID ID
	preds   [64]predicateSlot
	// xsd:dateTime and xsd:date literals not held in ids, by provisional id (datetime.go): their keys, whether
	// each is a date, and the bytes of all.
	dateChunks [][]byte
	dateStarts []uint64
	dateLens   []uint32
	dateIsDate []bool
	dateBytes  uint64
	dateFrom   ID  // the first final id of a dateTime
	heapChunks int // once the dateTimes are numbered: the chunks that hold the other terms' keys (Dict.heapChunks)
}

// predicateSlot is an entry of Builder.preds, a cache indexed by the address of the predicate's string.
type predicateSlot struct {
	iri string
	id  ID
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{table: make([]uint64, 1<<16), starts: []uint64{0}, offsets: []uint32{0},
		named: make(map[ID]*rowBlocks)}
}

// Add adds one quad; duplicates are removed by Build.
func (b *Builder) Add(q rdf.Quad) error {
	s := b.lastSID
	if s == 0 || q.S != b.lastS {
		var err error
		if s, err = b.intern(q.S); err != nil {
			return err
		}
		b.lastS, b.lastSID = q.S, s
	}
	p, err := b.internPredicate(q.P)
	if err != nil {
		return err
	}
	o, err := b.intern(q.O)
	if err != nil {
		return err
	}
	var g ID
	if !q.G.IsZero() {
		if g, err = b.intern(q.G); err != nil {
			return err
		}
	}
	b.addRow(g, Row{s, p, o})
	return nil
}

// addRow files a triple under graph g (0: the default graph).
func (b *Builder) addRow(g ID, r Row) {
	b.maxCol[0] = max(b.maxCol[0], r[0])
	b.maxCol[1] = max(b.maxCol[1], r[1])
	b.maxCol[2] = max(b.maxCol[2], r[2])
	if g == 0 {
		b.deflt.add(r)
		return
	}
	if g != b.lastG || b.lastRows == nil {
		rb := b.named[g]
		if rb == nil {
			rb = &rowBlocks{}
			b.named[g] = rb
		}
		b.lastG, b.lastRows = g, rb
	}
	b.lastRows.add(r)
}

// internPredicate is intern for the predicate position, through the cache of recent predicate IRIs.
func (b *Builder) internPredicate(t rdf.Term) (ID, error) {
	if t.Kind != rdf.KindIRI {
		return b.intern(t)
	}
	slot := &b.preds[uintptr(unsafe.Pointer(unsafe.StringData(t.Value)))>>4%uintptr(len(b.preds))]
	if slot.id != 0 && slot.iri == t.Value {
		return slot.id, nil
	}
	id, err := b.intern(t)
	if err == nil {
		*slot = predicateSlot{iri: t.Value, id: id}
	}
	return id, err
}

func (b *Builder) intern(t rdf.Term) (ID, error) {
	k := b.buf[:0]
	date := 0
	switch t.Kind {
	case rdf.KindIRI:
		k = append(append(k, keyIRI), t.Value...)
	case rdf.KindBlank:
		k = append(append(k, keyBlank), t.Value...)
	case rdf.KindLiteral:
		if t.Lang == "" {
			if id, ok := inlineID(t.Datatype, t.Value); ok {
				return id, nil
			}
		}
		if len(t.Lang) > 255 {
			return 0, fmt.Errorf("index: language tag of %d bytes is too long", len(t.Lang))
		}
		if t.Lang == "" && isDateType(t.Datatype) {
			date = 1
			if t.Datatype == XSDDate {
				date = 2
			}
		}
		var dt ID
		if t.Datatype != "" {
			if t.Datatype == b.lastDT {
				dt = b.lastDTID
			} else {
				var err error
				if dt, err = b.intern(rdf.IRI(t.Datatype)); err != nil {
					return 0, err
				}
				b.lastDT, b.lastDTID, b.lastDTKey = t.Datatype, dt, nil
			}
		}
		k = appendLiteralKey(k, dt, t)
	default:
		return 0, fmt.Errorf("index: empty term in a triple position")
	}
	b.buf = k
	return b.internKey(k, hashKey(k), date)
}

// internKey returns the id of key k with hash h, assigning the next id to a new key; date is 1 for an xsd:dateTime
// literal and 2 for an xsd:date, which get a provisional id (datetime.go).
func (b *Builder) internKey(k []byte, h uint64, date int) (ID, error) {
	mask := uint64(len(b.table) - 1)
	tag := h & 0xffffffff
	i := h & mask
	for {
		e := b.table[i]
		if e == 0 {
			break
		}
		if e>>32 == tag && string(b.keyOf(ID(e))) == string(k) {
			return ID(e), nil
		}
		i = (i + 1) & mask
	}
	if uint64(b.offsets[len(b.offsets)-1])+b.dateBytes+uint64(len(k)) > 1<<32-1 ||
		len(b.starts)+len(b.dateStarts) > MaxDictID {
		return 0, fmt.Errorf("index: dictionary over 4 GiB or 1 G terms")
	}
	var id ID
	if date > 0 {
		id = b.storeDate(k, date == 2)
	} else {
		b.store(k)
		id = ID(len(b.starts) - 1)
	}
	b.table[i] = tag<<32 | uint64(id)
	if 2*(len(b.starts)+len(b.dateStarts)) > len(b.table) { // keep the load factor under 1/2 so probes stay short
		b.grow()
	}
	return id, nil
}

// chunkSize is a multiple of the 2 MiB huge page, so most of a chunk can be backed by huge pages.
const chunkSize = 16 << 20

// store appends a key to the current chunk, starting a new chunk when it does not fit (a key larger than a chunk
// gets a chunk of its own). The first chunk starts small so that tiny datasets (tests, uploads of a few triples)
// do not pay for 16 MiB.
func (b *Builder) store(k []byte) {
	n := len(b.chunks)
	if n == 0 || len(b.chunks[n-1])+len(k) > cap(b.chunks[n-1]) {
		size := chunkSize
		if n == 0 {
			size = 64 << 10
		} else if c := cap(b.chunks[n-1]); c < chunkSize {
			size = 4 * c
		}
		c := make([]byte, 0, max(size, len(k)))
		adviseHuge(c[:cap(c)])
		b.chunks = append(b.chunks, c)
		n++
	}
	c := b.chunks[n-1]
	b.starts = appendDoubling(b.starts, uint64(n-1)<<32|uint64(len(c)))
	b.offsets = appendDoubling(b.offsets, b.offsets[len(b.offsets)-1]+uint32(len(k)))
	b.chunks[n-1] = append(c, k...)
}

func (b *Builder) keyOf(id ID) []byte {
	if id >= provisional {
		return b.dateKeyOf(id)
	}
	st := b.starts[id]
	c, p := st>>32, st&0xffffffff
	return b.chunks[c][p : p+uint64(b.offsets[id]-b.offsets[id-1])]
}

func (b *Builder) grow() {
	t := make([]uint64, 2*len(b.table))
	adviseHuge(u64Bytes(t))
	mask := uint64(len(t) - 1)
	for _, e := range b.table {
		if e == 0 {
			continue
		}
		i := (e >> 32) & mask
		for t[i] != 0 {
			i = (i + 1) & mask
		}
		t[i] = e
	}
	b.table = t
}

// Build sorts and deduplicates every graph and returns the dataset. The builder must not be used afterwards.
func (b *Builder) Build() *Dataset {
	blocks, fields := b.finishDates()
	table := make([]uint32, len(b.table))
	adviseHuge(u32Bytes(table))
	for i, e := range b.table {
		table[i] = uint32(e)
	}
	d := &Dataset{
		Dict: &Dict{chunks: b.chunks, starts: b.starts, offsets: b.offsets, table: table, dateBlocks: blocks,
			dateFields: fields, heapChunks: b.heapChunks, dateFrom: b.dateFrom},
		Default: buildGraph(&b.deflt, b.maxCol),
		named:   make(map[ID]*Graph, len(b.named)),
	}
	for g, rows := range b.named {
		d.named[g] = buildGraph(rows, b.maxCol)
		d.names = append(d.names, g)
	}
	slices.Sort(d.names)
	*b = Builder{}
	return d
}

// rowBlocks collects a graph's rows in blocks that are never copied when more arrive (a single slice doubling
// to millions of rows re-copies and page-faults in several times the final size); the sort reads them in its
// first pass. Blocks grow geometrically up to blockRows, so a small graph stays small.
type rowBlocks struct {
	blocks [][]Row
	count  int
}

const blockRows = 1 << 18 // 3 MiB

func (rb *rowBlocks) add(r Row) {
	last := len(rb.blocks) - 1
	if last < 0 || len(rb.blocks[last]) == cap(rb.blocks[last]) {
		size := 256
		if last >= 0 {
			size = min(blockRows, 4*cap(rb.blocks[last]))
		}
		blk := make([]Row, 0, size)
		if size == blockRows {
			adviseHuge(rowBytes(blk[:size]))
		}
		rb.blocks = append(rb.blocks, blk)
		last++
	}
	rb.blocks[last] = append(rb.blocks[last], r)
	rb.count++
}

// radix describes the LSD radix passes over one column: digits of width bits, passes of them.
type radix struct {
	width, passes uint
}

func columnRadix(maxID ID) radix {
	n := uint(bits.Len32(maxID))
	if n == 0 {
		return radix{}
	}
	// Digits of at most 11 bits keep the bucket counters in L1 while scattering.
	passes := (n + 10) / 11
	return radix{width: (n + passes - 1) / passes, passes: passes}
}

// permCols[p] lists which triple position (0 s, 1 p, 2 o) each column of permutation p holds.
var permCols = [3][3]int{SPO: {0, 1, 2}, POS: {1, 2, 0}, OSP: {2, 0, 1}}

// digit is one LSD radix pass: bits shift.. of triple position pos, with the bucket counts of the rows sorted.
type digit struct {
	pos   int
	shift uint
	mask  ID
	count []int
}

// digits returns the passes over position pos, least significant first, with their counts zeroed.
func (r radix) digits(pos int) []digit {
	ds := make([]digit, r.passes)
	for k := range ds {
		ds[k] = digit{pos: pos, shift: uint(k) * r.width, mask: ID(1)<<r.width - 1, count: make([]int, 1<<r.width)}
	}
	return ds
}

// countDigits adds the digits of every row (rows hold triple positions in SPO order) to the digits' counts.
func countDigits(src [][]Row, ds []digit) {
	for _, blk := range src {
		for _, d := range ds {
			c := d.count
			for i := range blk {
				c[(blk[i][d.pos]>>d.shift)&d.mask]++
			}
		}
	}
}

// buildGraph sorts a graph's rows into the three permutations and removes duplicates. SPO is radix-sorted from
// the blocks (five passes for BSBM's ids: two for subjects, one for predicates, two for objects); POS and OSP are
// then stable sorts of the deduplicated SPO by (p, o) and by o alone, which leave the remaining positions in SPO's
// order: three and two passes instead of five each, run in parallel on the machine's two cores.
func buildGraph(rb *rowBlocks, maxCol [3]ID) *Graph {
	g := &Graph{}
	n := rb.count
	if n == 0 {
		return g
	}
	if n < 256 {
		for p := range g.perms {
			rows := make([]Row, 0, n)
			c := permCols[p]
			for _, blk := range rb.blocks {
				for _, r := range blk {
					rows = append(rows, Row{r[c[0]], r[c[1]], r[c[2]]})
				}
			}
			slices.SortFunc(rows, cmpRow)
			g.perms[p] = dedup(rows)
		}
		return g
	}
	var rx [3]radix
	for c := range rx {
		rx[c] = columnRadix(maxCol[c])
	}
	newRows := func(n int) []Row {
		rows := make([]Row, n)
		adviseHuge(rowBytes(rows))
		return rows
	}
	all := append(append(rx[2].digits(2), rx[1].digits(1)...), rx[0].digits(0)...)
	countDigits(rb.blocks, all)
	spo, spare := radixSort(rb.blocks, n, permCols[SPO], all, newRows(n), newRows(n))
	spo = dedup(spo)
	g.perms[SPO] = spo
	m := len(spo)
	byO, byP := rx[2].digits(2), rx[1].digits(1)
	countDigits([][]Row{spo}, append(slices.Clone(byO), byP...))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		g.perms[OSP], _ = radixSort([][]Row{spo}, m, permCols[OSP], byO, newRows(m), newRows(m))
	}()
	g.perms[POS], _ = radixSort([][]Row{spo}, m, permCols[POS], append(byO, byP...), spare[:m], newRows(m))
	wg.Wait()
	return g
}

// radixSort writes the n rows of src (triple positions in SPO order) in the column order cols, stably sorted by
// the digits (least significant first), into a or b and returns that one and the other. Passes whose digit is the
// same in every row are skipped; the first pass that runs reads src and reorders the columns.
func radixSort(src [][]Row, n int, cols [3]int, ds []digit, a, b []Row) (sorted, spare []Row) {
	var at [3]int // at[pos]: the column holding triple position pos
	for j, pos := range cols {
		at[pos] = j
	}
	var off []int
	first := true
	cur, next := a, b
	for _, d := range ds {
		if slices.Contains(d.count, n) {
			continue // every row has this digit: the pass would not move anything
		}
		off = append(off[:0], d.count...)
		sum := 0
		for i, v := range off {
			off[i] = sum
			sum += v
		}
		if first {
			for _, blk := range src {
				for _, t := range blk {
					k := (t[d.pos] >> d.shift) & d.mask
					cur[off[k]] = Row{t[cols[0]], t[cols[1]], t[cols[2]]}
					off[k]++
				}
			}
			first = false
			continue
		}
		j := at[d.pos]
		for _, row := range cur {
			k := (row[j] >> d.shift) & d.mask
			next[off[k]] = row
			off[k]++
		}
		cur, next = next, cur
	}
	if first { // no pass moved anything: every row is the same
		i := 0
		for _, blk := range src {
			for _, t := range blk {
				cur[i] = Row{t[cols[0]], t[cols[1]], t[cols[2]]}
				i++
			}
		}
	}
	return cur, next
}

func dedup(rows []Row) []Row {
	if len(rows) < 2 {
		return rows
	}
	w := 1
	for i := 1; i < len(rows); i++ {
		if rows[i] != rows[w-1] {
			rows[w] = rows[i]
			w++
		}
	}
	return rows[:w]
}

func cmpRow(a, b Row) int {
	for i := 0; i < 3; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// appendRawLiteralKey is appendLiteralKey for raw bytes, with the datatype id left for the caller to fill in at
// k[1:5] (the reader does not know ids); lang is lower-cased as appendLiteralKey does (tags are ASCII).
func appendRawLiteralKey(k []byte, lang, value []byte) ([]byte, error) {
	if len(lang) > 255 {
		return k, fmt.Errorf("index: language tag of %d bytes is too long", len(lang))
	}
	k = append(k, keyLiteral, 0, 0, 0, 0, byte(len(lang)))
	for _, c := range lang {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		k = append(k, c)
	}
	return append(k, value...), nil
}

// internDatatype returns the id of the datatype IRI whose key ('I' + IRI) is k.
func (b *Builder) internDatatype(k []byte) (ID, error) {
	if len(b.lastDTKey) > 0 && string(k) == string(b.lastDTKey) {
		return b.lastDTID, nil
	}
	id, err := b.internKey(k, hashKey(k), 0)
	if err != nil {
		return 0, err
	}
	b.lastDTKey, b.lastDTID, b.lastDT = append(b.lastDTKey[:0], k...), id, ""
	return id, nil
}

// setLiteralDatatype writes dt into a key made by appendRawLiteralKey.
func setLiteralDatatype(k []byte, dt ID) { binary.LittleEndian.PutUint32(k[1:5], dt) }

// appendDoubling is append that doubles capacity when full: append's 1.25× growth of a slice of millions of
// entries copies (and page-faults in) about five times its final size, doubling about twice.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		grown := make([]T, len(s), max(1024, 2*cap(s)))
		var zero T
		adviseHuge(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(grown))), cap(grown)*int(unsafe.Sizeof(zero))))
		copy(grown, s)
		s = grown
	}
	return append(s, v)
}

func u64Bytes(v []uint64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8)
}

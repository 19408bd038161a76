package index

import (
	"fmt"
	"slices"
	"sync"

	"github.com/ldhub/ldhub/content/rdf"
)

// Dataset is the default graph and the named graphs of one publication version over one dictionary.
type Dataset struct {
	Dict    *Dict
	Default *Graph
	names   []ID // named graphs in ascending id order
	named   map[ID]*Graph
	close   func() error
}

// Graph returns the named graph with the given id, or nil.
func (d *Dataset) Graph(name ID) *Graph { return d.named[name] }

// GraphNames returns the ids of the named graphs, ascending.
func (d *Dataset) GraphNames() []ID { return d.names }

// Close releases the file mapping of an opened dataset; terms taken from it must not be used afterwards.
func (d *Dataset) Close() error {
	if d.close == nil {
		return nil
	}
	c := d.close
	d.close = nil
	return c()
}

// Builder collects quads and turns them into a Dataset. It is not safe for concurrent use.
type Builder struct {
	// Terms are interned in an open-addressing table of ids whose keys live in heap, so a new term costs one
	// append and no allocation of its own; the table is the one Build persists.
	table  []uint32
	hashes []uint64 // hash of each id's key, kept for rehashing when the table grows
	// Keys are appended to fixed-size chunks while building and copied into one heap by Build: growing a single
	// slice re-copies (and page-faults in) tens of megabytes again and again, which dominated the build.
	chunks [][]byte
	starts []uint64 // id -> chunk<<32 | position
	lens   []uint32
	size   uint64 // total key bytes
	deflt  []Row
	named  map[ID][]Row
	buf    []byte
	// Datatype IRIs repeat on almost every literal; remembering the last one avoids a map probe each time.
	lastDT   string
	lastDTID ID
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{table: make([]uint32, 1<<16), hashes: []uint64{0}, starts: []uint64{0}, lens: []uint32{0},
		named: make(map[ID][]Row)}
}

// Add adds one quad; duplicates are removed by Build.
func (b *Builder) Add(q rdf.Quad) error {
	s, err := b.intern(q.S)
	if err != nil {
		return err
	}
	p, err := b.intern(q.P)
	if err != nil {
		return err
	}
	o, err := b.intern(q.O)
	if err != nil {
		return err
	}
	if q.G.IsZero() {
		b.deflt = appendRow(b.deflt, Row{s, p, o})
		return nil
	}
	g, err := b.intern(q.G)
	if err != nil {
		return err
	}
	b.named[g] = appendRow(b.named[g], Row{s, p, o})
	return nil
}

// appendRow doubles capacity when full: append's 1.25× growth of a slice of millions of rows re-copies (and
// page-faults in) several times the final size.
func appendRow(rows []Row, r Row) []Row {
	if len(rows) == cap(rows) {
		grown := make([]Row, len(rows), max(1024, 2*cap(rows)))
		copy(grown, rows)
		rows = grown
	}
	return append(rows, r)
}

func (b *Builder) intern(t rdf.Term) (ID, error) {
	k := b.buf[:0]
	switch t.Kind {
	case rdf.KindIRI:
		k = append(append(k, keyIRI), t.Value...)
	case rdf.KindBlank:
		k = append(append(k, keyBlank), t.Value...)
	case rdf.KindLiteral:
		if len(t.Lang) > 255 {
			return 0, fmt.Errorf("index: language tag of %d bytes is too long", len(t.Lang))
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
				b.lastDT, b.lastDTID = t.Datatype, dt
			}
		}
		k = appendLiteralKey(k, dt, t)
	default:
		return 0, fmt.Errorf("index: empty term in a triple position")
	}
	b.buf = k
	h := hashKey(k)
	mask := uint64(len(b.table) - 1)
	i := h & mask
	for {
		id := b.table[i]
		if id == 0 {
			break
		}
		if b.hashes[id] == h && string(b.keyOf(id)) == string(k) {
			return id, nil
		}
		i = (i + 1) & mask
	}
	if b.size+uint64(len(k)) > 1<<32-1 || len(b.starts) >= 1<<31 {
		return 0, fmt.Errorf("index: dictionary over 4 GiB or 2 G terms")
	}
	b.store(k)
	b.hashes = append(b.hashes, h)
	id := ID(len(b.starts) - 1)
	b.table[i] = id
	if 2*int(id) > len(b.table) { // keep the load factor under 1/2 so probes stay short
		b.grow()
	}
	return id, nil
}

const chunkSize = 4 << 20

// store appends a key to the current chunk, starting a new chunk when it does not fit (a key larger than a chunk
// gets a chunk of its own).
func (b *Builder) store(k []byte) {
	n := len(b.chunks)
	if n == 0 || len(b.chunks[n-1])+len(k) > cap(b.chunks[n-1]) {
		b.chunks = append(b.chunks, make([]byte, 0, max(chunkSize, len(k))))
		n++
	}
	c := b.chunks[n-1]
	b.starts = append(b.starts, uint64(n-1)<<32|uint64(len(c)))
	b.lens = append(b.lens, uint32(len(k)))
	b.chunks[n-1] = append(c, k...)
	b.size += uint64(len(k))
}

func (b *Builder) keyOf(id ID) []byte {
	st := b.starts[id]
	c, p := st>>32, st&0xffffffff
	return b.chunks[c][p : p+uint64(b.lens[id])]
}

// heap copies the chunks into one contiguous heap with end offsets, the Dict layout.
func (b *Builder) heap() ([]byte, []uint32) {
	heap := make([]byte, 0, b.size)
	offsets := make([]uint32, len(b.starts))
	for id := 1; id < len(b.starts); id++ {
		heap = append(heap, b.keyOf(ID(id))...)
		offsets[id] = uint32(len(heap))
	}
	return heap, offsets
}

func (b *Builder) grow() {
	t := make([]uint32, 2*len(b.table))
	mask := uint64(len(t) - 1)
	for id := 1; id < len(b.hashes); id++ {
		i := b.hashes[id] & mask
		for t[i] != 0 {
			i = (i + 1) & mask
		}
		t[i] = ID(id)
	}
	b.table = t
}

// Build sorts and deduplicates every graph and returns the dataset. The builder must not be used afterwards.
func (b *Builder) Build() *Dataset {
	heap, offsets := b.heap()
	d := &Dataset{
		Dict:    &Dict{heap: heap, offsets: offsets, table: b.table},
		Default: buildGraph(b.deflt),
		named:   make(map[ID]*Graph, len(b.named)),
	}
	for g, rows := range b.named {
		d.named[g] = buildGraph(rows)
		d.names = append(d.names, g)
	}
	slices.Sort(d.names)
	b.table, b.hashes, b.deflt, b.named, b.chunks, b.starts, b.lens = nil, nil, nil, nil, nil, nil, nil
	return d
}

// buildGraph sorts rows (taking ownership) into the three permutations, in parallel: the machine has two cores
// and the permutations are independent once SPO is deduplicated.
func buildGraph(rows []Row) *Graph {
	g := &Graph{}
	tmp := make([]Row, len(rows))
	radixSort(rows, tmp)
	rows = dedup(rows)
	g.perms[SPO] = rows
	pos := tmp[:len(rows)]
	osp := make([]Row, len(rows))
	for i, r := range rows {
		pos[i] = Row{r[1], r[2], r[0]}
		osp[i] = Row{r[2], r[0], r[1]}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		radixSort(pos, make([]Row, len(pos)))
	}()
	radixSort(osp, make([]Row, len(osp)))
	wg.Wait()
	g.perms[POS], g.perms[OSP] = pos, osp
	return g
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

// radixSort sorts rows lexicographically with an LSD radix sort on 16-bit digits, skipping digits that are the same
// in every row (ids rarely use their high bits). tmp must be as long as rows.
func radixSort(rows, tmp []Row) {
	if len(rows) < 64 {
		slices.SortFunc(rows, cmpRow)
		return
	}
	src, dst := rows, tmp
	var count [1 << 16]int
	for col := 2; col >= 0; col-- {
		for shift := 0; shift < 32; shift += 16 {
			clear(count[:])
			for i := range src {
				count[(src[i][col]>>shift)&0xffff]++
			}
			if count[(src[0][col]>>shift)&0xffff] == len(src) {
				continue // every row has this digit: the pass would not move anything
			}
			sum := 0
			for i, c := range count {
				count[i] = sum
				sum += c
			}
			for i := range src {
				dg := (src[i][col] >> shift) & 0xffff
				dst[count[dg]] = src[i]
				count[dg]++
			}
			src, dst = dst, src
		}
	}
	if &src[0] != &rows[0] {
		copy(rows, src)
	}
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

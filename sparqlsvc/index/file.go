package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"github.com/ldhub/ldhub/atomicfile"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// File layout (little endian, every section 8-byte aligned so it can be used in place after mmap):
//
//	magic "LDHIDX03" | u64 heap bytes | u64 terms | u64 table slots | u64 named graphs | u64 default rows
//	per named graph: u64 name id | u64 rows
//	heap | offsets (terms+1 × u32) | table (slots × u32)
//	u64 date blocks | per block: u64 first id | u64 last id | u64 class (| 1<<8 if distinct) | date fields (one u64
//	per block id)
//	default SPO, POS, OSP | each named graph's SPO, POS, OSP
//
// Format 02 holds small numbers and dates in their ids (inline.go) where 01 held every term in the dictionary, and
// 03 numbers dateTimes in value order with a column of their fields (datetime.go): the ids of the same data differ,
// so a file of an earlier format is refused (the pipeline and the API build the index again).
const magic = "LDHIDX03"

// Format names the file format Save writes.
const Format = magic

// Stale reports whether path holds an index file of an earlier format, which Open refuses: building the index
// again is then the remedy, where any other error (a missing or damaged file) is the caller's to report.
func Stale(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [len(magic)]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return false
	}
	return olderMagic(b[:])
}

// olderMagic says whether m, a file's first 8 bytes, is the magic of an earlier index format.
func olderMagic(m []byte) bool { return string(m[:6]) == magic[:6] && string(m[:8]) < magic }

// ErrOldFormat is returned by Open for an index file of an earlier format; building the index again replaces it.
var ErrOldFormat = errors.New("index file of an earlier format (before numbers held in ids, or dateTimes in value order): rebuild the index")

// Save writes the dataset to path atomically (atomicfile: a temporary file in the same folder, synced, renamed,
// then the folder synced), so a reader opens either the old index or the new one, never half of one. It goes to
// the disk without a copy in the page cache (atomicfile.WriteDirect): the file is synced before the rename anyway,
// and that copy was most of the save of a 1 M-triple index (94 MB), the last step before a version goes live.
func (d *Dataset) Save(path string) error {
	if err := atomicfile.WriteDirect(path, 0o600, d.write); err != nil {
		return fmt.Errorf("index: save %s: %w", path, err)
	}
	return nil
}

// write writes the file layout above to out.
func (d *Dataset) write(out io.Writer) (err error) {
	w := bufio.NewWriterSize(out, 1<<20)
	var off int64
	put := func(b []byte) {
		if err == nil {
			_, err = w.Write(b)
			off += int64(len(b))
		}
	}
	u64 := func(v uint64) { put(binary.LittleEndian.AppendUint64(nil, v)) }
	pad := func() { put(make([]byte, (8-off%8)%8)) }
	put([]byte(magic))
	u64(uint64(d.Dict.offsets[len(d.Dict.offsets)-1]))
	u64(uint64(d.Dict.Len()))
	u64(uint64(len(d.Dict.table)))
	u64(uint64(len(d.names)))
	u64(uint64(d.Default.Len()))
	for _, n := range d.names {
		u64(uint64(n))
		u64(uint64(d.named[n].Len()))
	}
	put(d.Dict.heap)
	if d.Dict.dateFrom == 0 {
		for _, c := range d.Dict.chunks {
			put(c)
		}
	} else {
		for _, c := range d.Dict.chunks[:d.Dict.heapChunks] {
			put(c)
		}
		for id := d.Dict.dateFrom; id <= ID(d.Dict.Len()); id++ {
			put(d.Dict.key(id))
		}
	}
	pad()
	put(u32Bytes(d.Dict.offsets))
	pad()
	put(u32Bytes(d.Dict.table))
	pad()
	u64(uint64(len(d.Dict.dateBlocks)))
	for _, b := range d.Dict.dateBlocks {
		u64(uint64(b.Lo))
		u64(uint64(b.Hi))
		flags := uint64(b.Class)
		if b.Distinct {
			flags |= 1 << 8
		}
		u64(flags)
	}
	put(u64Bytes(d.Dict.dateFields))
	graphs := append([]*Graph{d.Default}, make([]*Graph, 0, len(d.names))...)
	for _, n := range d.names {
		graphs = append(graphs, d.named[n])
	}
	for _, g := range graphs {
		for p := range g.perms {
			put(rowBytes(g.perms[p]))
			pad()
		}
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// Open maps an index file read-only. The dataset's memory is the page cache's: pages are read on first touch and
// shared between processes, so an idle publication costs almost no resident memory.
func Open(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("index: open: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("index: open: %w", err)
	}
	size := st.Size()
	if size < 48 || size > 1<<40 {
		return nil, fmt.Errorf("index: open %s: not an index file", path)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("index: mmap %s: %w", path, err)
	}
	d, err := parse(data)
	if err != nil {
		syscall.Munmap(data)
		return nil, fmt.Errorf("index: open %s: %w", path, err)
	}
	d.close = func() error { return syscall.Munmap(data) }
	d.mapped = data
	return d, nil
}

var errCorrupt = errors.New("corrupt or truncated index file")

func parse(data []byte) (*Dataset, error) {
	if string(data[:8]) != magic {
		if olderMagic(data) {
			return nil, ErrOldFormat
		}
		return nil, errors.New("not an index file (bad magic)")
	}
	pos := 8
	u64 := func() (uint64, bool) {
		if pos+8 > len(data) {
			return 0, false
		}
		v := binary.LittleEndian.Uint64(data[pos:])
		pos += 8
		return v, true
	}
	var hdr [5]uint64
	for i := range hdr {
		v, ok := u64()
		if !ok {
			return nil, errCorrupt
		}
		hdr[i] = v
	}
	heapLen, nTerms, slots, nNamed, nDefault := hdr[0], hdr[1], hdr[2], hdr[3], hdr[4]
	if nNamed > uint64(len(data))/16 {
		return nil, errCorrupt
	}
	type gi struct{ name, rows uint64 }
	infos := []gi{{0, nDefault}}
	for i := uint64(0); i < nNamed; i++ {
		n, ok1 := u64()
		r, ok2 := u64()
		if !ok1 || !ok2 {
			return nil, errCorrupt
		}
		infos = append(infos, gi{n, r})
	}
	take := func(n uint64) ([]byte, bool) {
		if n > uint64(len(data)-pos) {
			return nil, false
		}
		b := data[pos : pos+int(n)]
		pos += int(n)
		pos += (8 - pos%8) % 8
		return b, true
	}
	heap, ok := take(heapLen)
	if !ok {
		return nil, errCorrupt
	}
	offB, ok := take((nTerms + 1) * 4)
	if !ok {
		return nil, errCorrupt
	}
	tabB, ok := take(slots * 4)
	if !ok || slots&(slots-1) != 0 {
		return nil, errCorrupt
	}
	dict := &Dict{heap: heap, offsets: bytesU32(offB), table: bytesU32(tabB)}
	for i := uint64(1); i <= nTerms; i++ { // a key() slice out of order would panic later
		if dict.offsets[i] <= dict.offsets[i-1] {
			return nil, errCorrupt
		}
	}
	if dict.offsets[0] != 0 || uint64(dict.offsets[nTerms]) != heapLen {
		return nil, errCorrupt
	}
	if err := parseDates(dict, nTerms, u64, take); err != nil {
		return nil, err
	}
	d := &Dataset{Dict: dict, named: make(map[ID]*Graph, nNamed)}
	for i, inf := range infos {
		g := &Graph{}
		for p := range g.perms {
			b, ok := take(inf.rows * 12)
			if !ok {
				return nil, errCorrupt
			}
			g.perms[p] = bytesRows(b)
		}
		if i == 0 {
			d.Default = g
			continue
		}
		d.named[ID(inf.name)] = g
		d.names = append(d.names, ID(inf.name))
	}
	return d, nil
}

// parseDates reads the date blocks and their column (see datetime.go) into dict, checking that the blocks are
// contiguous ids of the dictionary in ascending order, so DateValue's index stays in its column.
func parseDates(dict *Dict, nTerms uint64, u64 func() (uint64, bool), take func(uint64) ([]byte, bool)) error {
	n, ok := u64()
	if !ok || n > 4 {
		return errCorrupt
	}
	var ids uint64
	for i := uint64(0); i < n; i++ {
		lo, ok1 := u64()
		hi, ok2 := u64()
		flags, ok3 := u64()
		class := flags & 0xff
		if !ok1 || !ok2 || !ok3 || lo == 0 || lo > hi || hi > nTerms || class > 3 || flags>>8 > 1 {
			return errCorrupt
		}
		if i > 0 {
			if prev := dict.dateBlocks[i-1]; uint64(prev.Hi)+1 != lo || uint64(prev.Class) >= class {
				return errCorrupt
			}
		}
		dict.dateBlocks = append(dict.dateBlocks, DateBlock{Lo: ID(lo), Hi: ID(hi), Class: builtin.DateClass(class),
			Distinct: flags>>8 == 1})
		ids += hi - lo + 1
	}
	col, ok := take(ids * 8)
	if !ok {
		return errCorrupt
	}
	dict.dateFields = bytesU64(col)
	return nil
}

func u32Bytes(v []uint32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4)
}

func rowBytes(v []Row) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*12)
}

// bytesU32 and bytesRows reinterpret mapped memory in place. Sections start 8-byte aligned (see Save) and the
// format is little endian like every platform ldhub ships on.
func bytesU32(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func bytesRows(b []byte) []Row {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*Row)(unsafe.Pointer(&b[0])), len(b)/12)
}

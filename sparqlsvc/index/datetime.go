package index

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/builtin"
)

// An xsd:dateTime does not fit an id the way small numbers and xsd:date do (inline.go), so dateTimes stay in the
// dictionary; but the dictionary gives them ids in value order, in a block of their own at the end of the id
// range, one block per builtin.DateClass (dateTimes with and without a timezone, and dates that are not inline).
// A FILTER comparing a dateTime with a constant then holds on a range of ids, and POS holds each predicate's
// dateTimes sorted by value, so the rows that can pass are found by binary search instead of fetching and parsing
// every row's term; MIN and MAX within a block compare ids. Beside the block, a column holds each dateTime's
// YEAR … MINUTES, so those need no term either.
//
// Within a block ids ascend as OrderCompare orders the terms: by value, and equal values (the same instant
// written in two timezones) by lexical form. Two different terms therefore never tie, and comparing their ids is
// comparing them. Invalid forms and years beyond builtin.DateYearLimit follow the blocks, in no order.
//
// The builder gives a dateTime a provisional id (provisional + n) while it reads, and its final id in Build, once
// all are known and sorted; only the object column of the rows is renumbered.

// provisional is the first provisional id: above every dictionary id, below the inline ids.
const provisional = MaxDictID + 1

// DateBlock is the ids of one class of dateTimes: Lo … Hi ascending in value order. Distinct says that no two of
// them have the same value (no instant written two ways), so that comparing two ids is comparing their values.
type DateBlock struct {
	Lo, Hi   ID
	Class    builtin.DateClass
	Distinct bool
}

// XSDDateTime is the datatype IRI of xsd:dateTime.
const XSDDateTime = rdf.XSDNS + "dateTime"

// isDateType reports whether a datatype IRI is xsd:dateTime or xsd:date.
func isDateType[S string | []byte](dt S) bool {
	return string(dt) == XSDDateTime || string(dt) == XSDDate
}

// DateBlocks returns the blocks of dateTimes in value order, ascending by id.
func (d *Dict) DateBlocks() []DateBlock { return d.dateBlocks }

// DateValue returns the fields of the date or dateTime of id: a dateTime from its block's column, an inline
// xsd:date from the id. ok is false for any other id.
func (d *Dict) DateValue(id ID) (v builtin.DateValue, ok bool) {
	if IsInline(id) {
		if id>>kindShift&3 != inlineDate {
			return v, false
		}
		p := id &^ (inlineMask | 3<<kindShift)
		y, m, day := int32(p>>9), uint8(p>>5&15), uint8(p&31)
		if day > 28 && day > daysIn(y, m) { // inlined as written, but not a date: 31 February
			return v, false
		}
		return builtin.DateValue{Class: 2, Year: y, Month: m, Day: day}, true
	}
	if len(d.dateBlocks) == 0 || id < d.dateBlocks[0].Lo || id > d.dateBlocks[len(d.dateBlocks)-1].Hi {
		return v, false
	}
	f := d.dateFields[id-d.dateBlocks[0].Lo]
	v = builtin.DateValue{Year: int32(f >> 32), Month: uint8(f >> 24), Day: uint8(f >> 16), Hour: uint8(f >> 8),
		Minute: uint8(f)}
	for _, b := range d.dateBlocks {
		if id <= b.Hi {
			v.Class = b.Class
			break
		}
	}
	return v, true
}

// DateColumn returns the column DateValue reads: entry i holds YEAR … MINUTES of the id DateBlocks()[0].Lo + i,
// the year in the high 32 bits, then month, day, hour and minute a byte each (the wall clock as written). It is
// shared: the caller must not change it.
func (d *Dict) DateColumn() []uint64 { return d.dateFields }

// daysIn is the length of month m of year y (proleptic Gregorian, as time.Date reads it).
func daysIn(y int32, m uint8) uint8 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DateBlockOf returns the index in DateBlocks of the block holding id, or -1.
func (d *Dict) DateBlockOf(id ID) int {
	for i, b := range d.dateBlocks {
		if id >= b.Lo && id <= b.Hi {
			return i
		}
	}
	return -1
}

// packFields is a column entry: the year in the high 32 bits, then month, day, hour and minute a byte each.
func packFields(v builtin.DateValue) uint64 {
	return uint64(uint32(v.Year))<<32 | uint64(v.Month)<<24 | uint64(v.Day)<<16 | uint64(v.Hour)<<8 | uint64(v.Minute)
}

// dateKey is one provisional dateTime while Build sorts them: hi is its class and seconds, lo its nanoseconds (the
// order of builtin.DateValue within a class); invalid forms have the class dateInvalid and sort last.
type dateKey struct {
	hi    uint64
	lo, j uint32 // j: the provisional number
}

const (
	dateInvalid = 7
	secBias     = 1 << 48 // above the seconds of any year within builtin.DateYearLimit
)

// finishDates gives the provisional dateTimes their final ids after the other terms, in blocks of value order,
// renumbers the table and the rows, and returns the blocks and the column of fields. The keys stay where
// they are: the Dict reaches them through starts, and Save writes them in their final order (heapChunks).
func (b *Builder) finishDates() ([]DateBlock, []uint64) {
	n := len(b.dateStarts)
	if n == 0 {
		return nil, nil
	}
	keys := make([]dateKey, n)
	packed := make([]uint64, n)
	for j := range keys {
		k := b.keyOf(provisional + ID(j))
		v, ok := builtin.DateValueOf(bytesString(k[6+int(k[5]):]), b.dateIsDate[j])
		keys[j] = dateKey{hi: dateInvalid << 56, j: uint32(j)}
		if ok {
			keys[j] = dateKey{hi: uint64(v.Class)<<56 | uint64(v.Sec+secBias), lo: uint32(v.Nsec), j: uint32(j)}
			packed[j] = packFields(v)
		}
	}
	slices.SortFunc(keys, func(a, c dateKey) int {
		if a.hi != c.hi {
			return cmp.Compare(a.hi, c.hi)
		}
		if a.lo != c.lo {
			return cmp.Compare(a.lo, c.lo)
		}
		if a.hi>>56 == dateInvalid {
			return cmp.Compare(a.j, c.j)
		}
		// The same value in two forms: OrderCompare orders them by lexical form.
		ka, kc := b.keyOf(provisional+ID(a.j)), b.keyOf(provisional+ID(c.j))
		return cmp.Compare(string(ka[6+int(ka[5]):]), string(kc[6+int(kc[5]):]))
	})
	first := ID(len(b.starts)) // the first final id
	final := make([]ID, n)
	var blocks []DateBlock
	fields := make([]uint64, 0, n)
	b.heapChunks, b.dateFrom = len(b.chunks), first
	for r, k := range keys {
		id := first + ID(r)
		final[k.j] = id
		st := b.dateStarts[k.j]
		b.starts = appendDoubling(b.starts, (st>>32+uint64(b.heapChunks))<<32|st&0xffffffff)
		b.offsets = appendDoubling(b.offsets, b.offsets[len(b.offsets)-1]+b.dateLens[k.j])
		if class := builtin.DateClass(k.hi >> 56); class != dateInvalid {
			if len(blocks) == 0 || blocks[len(blocks)-1].Class != class {
				blocks = append(blocks, DateBlock{Lo: id, Class: class, Distinct: true})
			} else if prev := keys[r-1]; prev.hi == k.hi && prev.lo == k.lo {
				blocks[len(blocks)-1].Distinct = false
			}
			blocks[len(blocks)-1].Hi = id
			fields = append(fields, packed[k.j])
		}
	}
	b.chunks = append(b.chunks, b.dateChunks...)
	for i, e := range b.table {
		if id := ID(e); id >= provisional && id < inlineTag {
			b.table[i] = e&^0xffffffff | uint64(final[id-provisional])
		}
	}
	// Literals are objects in RDF, but the Builder takes any term anywhere (generalized RDF): every position and
	// the graph names are renumbered.
	b.maxCol = [3]ID{}
	renumber := func(rb *rowBlocks) {
		for _, blk := range rb.blocks {
			for i := range blk {
				for c, v := range blk[i] {
					if v >= provisional && v < inlineTag {
						v = final[v-provisional]
						blk[i][c] = v
					}
					b.maxCol[c] = max(b.maxCol[c], v)
				}
			}
		}
	}
	renumber(&b.deflt)
	named := make(map[ID]*rowBlocks, len(b.named))
	for g, rb := range b.named {
		renumber(rb)
		if g >= provisional && g < inlineTag {
			g = final[g-provisional]
		}
		named[g] = rb
	}
	b.named, b.lastG, b.lastRows = named, 0, nil
	b.dateChunks, b.dateStarts, b.dateLens, b.dateIsDate = nil, nil, nil, nil
	return blocks, fields
}

// storeDate keeps the key of a new dateTime literal apart from the others and returns its provisional id.
func (b *Builder) storeDate(k []byte, isDate bool) ID {
	n := len(b.dateChunks)
	if n == 0 || len(b.dateChunks[n-1])+len(k) > cap(b.dateChunks[n-1]) {
		size := 64 << 10
		if n > 0 {
			size = min(chunkSize, 4*cap(b.dateChunks[n-1]))
		}
		c := make([]byte, 0, max(size, len(k)))
		adviseHuge(c[:cap(c)])
		b.dateChunks = append(b.dateChunks, c)
		n++
	}
	c := b.dateChunks[n-1]
	b.dateStarts = appendDoubling(b.dateStarts, uint64(n-1)<<32|uint64(len(c)))
	b.dateLens = appendDoubling(b.dateLens, uint32(len(k)))
	b.dateIsDate = appendDoubling(b.dateIsDate, isDate)
	b.dateChunks[n-1] = append(c, k...)
	b.dateBytes += uint64(len(k))
	return provisional + ID(len(b.dateStarts)-1)
}

// dateKeyOf is keyOf for a provisional id.
func (b *Builder) dateKeyOf(id ID) []byte {
	j := id - provisional
	st := b.dateStarts[j]
	c, p := st>>32, st&0xffffffff
	return b.dateChunks[c][p : p+uint64(b.dateLens[j])]
}

func bytesU64(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}

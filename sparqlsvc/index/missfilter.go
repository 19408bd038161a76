package index

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"
)

// A value a query computes (a SHA256 as a group key, a REPLACE turned into an IRI, a STR of a tagged label) is
// looked up in the dictionary to get an id, and is most often not there. A miss walks the probe chain to an empty
// slot, reading each occupied slot's key bounds (offsets, starts) and often its key: two to four cache misses in a
// dictionary of hundreds of megabytes (h143: a sixth of the query, two misses per label). The miss filter is a
// blocked Bloom filter over every key of the dictionary, in memory only: one word read answers "not here" for all
// but about one in a hundred absent keys.
//
// It holds the keys of at most filterKeyMax bytes only, and a longer key is always probed: computed values are
// mostly short (hashes, names, IRIs), while the long keys (descriptions, review texts) are most of the heap's
// bytes (at 10 M, 130 of 510 MB are in keys of at most 128 bytes), and a key's length is read from the offsets
// without touching the heap. It is made on first need, not at open: making it reads and hashes those keys, ~0.3 s
// of CPU for the 10 M dictionary when its pages are not yet mapped, which a query that misses a few constants must
// not pay. The dictionary counts its misses,
// and the lookup that takes the count past missFilterAfter makes the filter (one caller; the others go on
// probing meanwhile). Its size is bounded by the dictionary's: 16 bits a term rounded up to a power of two words.

// missFilter is the filter: words[h>>shift] holds, for each key whose hash is h, the four bits keyBits(h).
type missFilter struct {
	seed  maphash.Seed
	words []uint64
	shift uint
}

// filterKeyMax is the longest key the filter holds.
const filterKeyMax = 128

// missFilterAfter is how many misses make the filter: a 64th of the terms (60 000 for the 10 M dictionary), at
// least 4 096, so a query whose misses are few never pays its making.
func missFilterAfter(terms int) int64 { return max(4096, int64(terms)/64) }

// keyBits are the four bits of a word a key's hash sets: the word is chosen by the hash's top bits, the bits by
// its low 24.
func keyBits(h uint64) uint64 {
	return 1<<(h&63) | 1<<(h>>6&63) | 1<<(h>>12&63) | 1<<(h>>18&63)
}

func newMissFilter(d *Dict) *missFilter {
	n := d.Len()
	words := max(1, n/4) // 16 bits a term
	logW := bits.Len(uint(words - 1))
	f := &missFilter{seed: maphash.MakeSeed(), words: make([]uint64, 1<<logW), shift: uint(64 - logW)}
	if logW == 0 {
		f.shift = 63 // h>>63 is 0 or 1: a one-word filter needs index 0 only
		f.words = make([]uint64, 2)
	}
	for id := ID(1); int(id) <= n; id++ {
		if d.offsets[id]-d.offsets[id-1] > filterKeyMax {
			continue
		}
		h := maphash.Bytes(f.seed, d.key(id))
		f.words[h>>f.shift] |= keyBits(h)
	}
	return f
}

// mayHold reports whether the key k can be in the dictionary; false is certain.
func (f *missFilter) mayHold(k []byte) bool {
	h := maphash.Bytes(f.seed, k)
	b := keyBits(h)
	return f.words[h>>f.shift]&b == b
}

// missState is the dictionary's part of the filter: the misses counted, and the filter once made.
type missState struct {
	misses atomic.Int64
	making atomic.Bool
	filter atomic.Pointer[missFilter]
}

// findMissing is find for a key that is likely absent: it asks the filter first once there is one, and counts the
// misses until there is.
func (d *Dict) findMissing(k []byte) ID {
	if len(k) > filterKeyMax {
		return d.find(k)
	}
	if f := d.miss.filter.Load(); f != nil {
		if !f.mayHold(k) {
			return 0
		}
		return d.find(k)
	}
	id := d.find(k)
	if id == 0 && d.miss.misses.Add(1) >= missFilterAfter(d.Len()) {
		d.MakeMissFilter()
	}
	return id
}

// MakeMissFilter makes the miss filter now unless it is made or being made (Dataset.Warm, so that no query of a
// served index pays for it).
func (d *Dict) MakeMissFilter() {
	if d.miss.making.CompareAndSwap(false, true) {
		d.miss.filter.Store(newMissFilter(d))
	}
}

// MissFilterBytes is the memory the miss filter holds (0 before it is made).
func (d *Dict) MissFilterBytes() int64 {
	if f := d.miss.filter.Load(); f != nil {
		return int64(len(f.words)) * 8
	}
	return 0
}

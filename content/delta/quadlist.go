package delta

import "github.com/ldhub/ldhub/content/rdf"

// A million quads are about 220 MB of rdf.Quad values; growing one slice to that size copies it repeatedly (with
// GC write barriers, since quads hold pointers), which cost more than the whole diff. Quads read from a decoder are
// therefore kept in fixed-size chunks, and a caller's slice is viewed as chunks without copying.
const (
	chunkShift = 13
	chunkSize  = 1 << chunkShift
	chunkMask  = chunkSize - 1
)

// quadList is a read-only list of quads stored in chunks of chunkSize (the last may be shorter).
type quadList struct {
	chunks [][]rdf.Quad
	n      int
}

func (l *quadList) at(i int32) *rdf.Quad { return &l.chunks[i>>chunkShift][i&chunkMask] }

// flat views qs as a quadList; the chunks are subslices of qs.
func flat(qs []rdf.Quad) quadList {
	l := quadList{n: len(qs)}
	for len(qs) > chunkSize {
		l.chunks = append(l.chunks, qs[:chunkSize:chunkSize])
		qs = qs[chunkSize:]
	}
	if len(qs) > 0 {
		l.chunks = append(l.chunks, qs)
	}
	return l
}

// add appends q, starting a new chunk when the last one is full.
func (l *quadList) add(q rdf.Quad) {
	if l.n&chunkMask == 0 {
		l.chunks = append(l.chunks, make([]rdf.Quad, 0, chunkSize))
	}
	last := len(l.chunks) - 1
	l.chunks[last] = append(l.chunks[last], q)
	l.n++
}

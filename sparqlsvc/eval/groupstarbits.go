package eval

import (
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// When a star's GROUP BY reads one mandatory pattern's object alone (h38: per dc:publisher, COUNT(*) and COUNT of
// an OPTIONAL rating4 over every review's reviewFor), optStarRows still goes through every subject: a seek in each
// pattern's rows and a solution into the cache, ~50 ns a review, 290 000 reviews at 10 M. But when each of the other
// patterns has at most one passing row per subject, a subject's solutions are one per row of the pattern read, or
// none: whether it has the mandatory patterns' rows, and which OPTIONALs it has, is a bit per pattern. starBits
// sets those bits from the patterns' rows (subject order, read once), then reads the read pattern's rows in POS
// order, where each object's subjects are adjacent: per object, the count of subjects in every mandatory bitmap, by
// which OPTIONALs they have, goes to the group at the end of the object's run. A pattern found with two passing
// rows for a subject, a read pattern with conditions of its own, or more OPTIONALs than starBitsOpts leave the star
// to optStarRows. Only COUNTs are taken (the solutions come in another order than the join's, which GROUP_CONCAT or
// SAMPLE would show); a COUNT of an OPTIONAL's object reads whether it is bound, which the bit says.

// starBitsOpts is how many OPTIONALs starBits takes: a run keeps a count for each combination of them.
const starBitsOpts = 4

// starBitsRows is how many more rows the read pattern may have than the lead (the mandatory pattern with the
// fewest): it is read whole, where optStarRows seeks only the lead's subjects in it.
const starBitsRows = 4

// subjectBits is the set of subjects a pattern's passing rows have, over the span of its rows' subjects.
type subjectBits struct {
	lo    ID
	words []uint64
	first ID // the first passing object (what the row holds for a pattern the group does not read)
}

func (b *subjectBits) has(s ID) bool {
	if s < b.lo {
		return false
	}
	i := (s - b.lo) / 64
	return int(i) < len(b.words) && b.words[i]&(1<<((s-b.lo)%64)) != 0
}

// starBits hands gs st's solutions as described above; handled is false when the shape or the data leaves them to
// optStarRows (ms: st's members with their rows; readS: the group reads the subject; row: the input solution).
func (e *evaluator) starBits(st *optStar, readS bool, ms []starMember, row []ID, gs *groupState, errp *error) (handled, ok bool) {
	if readS || st.only != nil || len(st.late) > 0 || row[st.ss] != 0 {
		return false, false
	}
	for _, a := range gs.x.Aggregates {
		if a.Aggregate.Name != "COUNT" {
			return false, false
		}
	}
	read, present := -1, 0 // present: a bit for each OPTIONAL with rows
	for i := range ms {
		m := &ms[i]
		if row[m.p.os] != 0 {
			return false, false
		}
		switch {
		case m.read && (m.group >= 0 || read >= 0 || m.p.memo != nil || m.p.member != nil || i >= len(st.must)):
			return false, false
		case m.read:
			read = i
		case m.group >= starBitsOpts:
			return false, false
		case m.group >= 0:
			present |= 1 << m.group
		}
	}
	if read < 0 {
		return false, false
	}
	pid := e.constID(st.must[read].p)
	g := e.active[0].g
	pos := g.Match(0, pid, 0) // (p, o, s): each object's subjects in a run
	if pos.Perm != index.POS || pos.Len() > starBitsRows*len(ms[leadMember(ms)].p.rows) {
		return false, false
	}
	var held int64
	defer func() { e.bytes -= held }()
	bits := make([]*subjectBits, len(ms))
	for i := range ms {
		if i == read {
			continue
		}
		if bits[i] = e.memberBits(ms[i].p, row, &held, errp); bits[i] == nil {
			return *errp != nil, false // two rows of a subject, or no room: optStarRows'
		}
	}
	// Per object: its subjects counted by which OPTIONALs they have (bit gi of the index).
	counts := make([]int64, 1<<starBitsOpts)
	emit := func(o ID) bool {
		row[ms[read].p.os] = o
		for c, n := range counts {
			if n == 0 {
				continue
			}
			counts[c] = 0
			for i := range ms {
				switch m := &ms[i]; {
				case i == read:
				case m.group < 0 || c&(1<<m.group) != 0:
					row[m.p.os] = bits[i].first
				default:
					row[m.p.os] = 0
				}
			}
			if !gs.add(row, n, errp) {
				return false
			}
		}
		return true
	}
	rows := pos.Rows
	if len(rows) > 0 {
		row[st.ss] = rows[0][2] // bound in every solution (COUNT(?s)), its value not read
	}
	var cur ID
	for from := 0; from < len(rows); from += starScanRows {
		if !e.starCheck(1, errp) {
			return true, false
		}
	next:
		for _, r := range rows[from:min(from+starScanRows, len(rows))] {
			if r[1] != cur {
				if cur != 0 && !emit(cur) {
					return true, false
				}
				cur = r[1]
			}
			s, c := r[2], present
			for i := range ms {
				if i == read || bits[i].has(s) {
					continue
				}
				if ms[i].group < 0 {
					continue next // a mandatory pattern without the subject: no solution
				}
				c &^= 1 << ms[i].group // an OPTIONAL with a pattern without it: absent
			}
			counts[c]++
		}
	}
	e.bitStars++
	return true, cur == 0 || emit(cur)
}

// memberBits sets the subjects of p's passing rows (subject order) in a bitmap over their span, charged to the query
// (held, released by the caller). It returns nil when a subject has two passing rows, when the bitmap does not fit
// the budget, or when the query was interrupted (*errp set).
func (e *evaluator) memberBits(p *patRows, row []ID, held *int64, errp *error) *subjectBits {
	rows := p.rows
	if len(rows) == 0 {
		return &subjectBits{}
	}
	lo, hi := rows[0][0], rows[len(rows)-1][0]
	words := int64(hi-lo)/64 + 1
	if !e.charge(words * 8) {
		return nil
	}
	*held += words * 8
	b := &subjectBits{lo: lo, words: make([]uint64, words)}
	var last ID
	for from := 0; from < len(rows); from += starScanRows {
		if !e.starCheck(1, errp) {
			return nil
		}
		for _, r := range rows[from:min(from+starScanRows, len(rows))] {
			s := r[0]
			if !e.passes(p, r[2], row, errp) {
				if *errp != nil {
					return nil
				}
				continue
			}
			if s == last {
				return nil // two rows of one subject: its solutions multiply
			}
			last = s
			if b.first == 0 {
				b.first = r[2]
			}
			b.words[(s-lo)/64] |= 1 << ((s - lo) % 64)
		}
	}
	return b
}

package rdf

// UTF8Stream checks UTF-8 one byte at a time across reads, for decoders that must refuse bad bytes at their
// position while the bytes go to a tokenizer that does not check (encoding/json, encoding/xml). Ranges follow
// RFC 3629: after E0, ED, F0 and F4 the next byte is narrower, which refuses overlong forms, surrogates and code
// points above U+10FFFF.
type UTF8Stream struct {
	need   int  // continuation bytes still expected
	lo, hi byte // range of the next one
}

// Byte consumes b. start reports that b begins a new sequence (callers record its position there: an error is
// reported at the start of the sequence it spoils); ok is false when b makes the input invalid.
func (u *UTF8Stream) Byte(b byte) (start, ok bool) {
	if u.need > 0 {
		if b < u.lo || b > u.hi {
			return false, false
		}
		u.need--
		u.lo, u.hi = 0x80, 0xBF
		return false, true
	}
	if b < 0x80 {
		return false, true
	}
	u.lo, u.hi = 0x80, 0xBF
	switch {
	case b >= 0xC2 && b <= 0xDF:
		u.need = 1
	case b == 0xE0:
		u.need, u.lo = 2, 0xA0
	case b == 0xED:
		u.need, u.hi = 2, 0x9F
	case b >= 0xE1 && b <= 0xEF:
		u.need = 2
	case b == 0xF0:
		u.need, u.lo = 3, 0x90
	case b == 0xF4:
		u.need, u.hi = 3, 0x8F
	case b >= 0xF1 && b <= 0xF3:
		u.need = 3
	default: // a continuation byte with no lead, C0/C1 (always overlong) or F5 and above (beyond U+10FFFF)
		return true, false
	}
	return true, true
}

// Pending reports whether a sequence is unfinished: at the end of the input, its start is not UTF-8.
func (u *UTF8Stream) Pending() bool { return u.need > 0 }

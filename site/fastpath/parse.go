package fastpath

import (
	"bytes"
	"net/textproto"
	"strings"
)

// request is what the fast path reads of a request it may answer; the slices point into the read buffer.
type request struct {
	head                                     bool
	path                                     []byte
	accept, language, encoding               []byte
	inm, ims                                 []byte
	hasINM, hasIMS                           bool
	close                                    bool
	hasAccept, hasLang, hasEncoding, hasConn bool
	hosts                                    int
	hasLength                                bool
}

// scan checks p[from:] (p[:from] was checked before) and finds the end of the header block. ok is false as soon as
// the bytes cannot start a request the fast path answers (net/http then reads them: it may wait for more, answer
// 400 or serve another method); end is 0 while the block is incomplete.
func scan(p []byte, from int) (end int, ok bool) {
	if !plausibleStart(p) {
		return 0, false
	}
	for i := from; i < len(p); i++ {
		b := p[i]
		if i > 0 && p[i-1] == '\r' && b != '\n' {
			return 0, false // a CR inside a line
		}
		switch {
		case b == '\n':
			if i == 0 || p[i-1] != '\r' {
				return 0, false // a bare LF, which net/http accepts and the fast path does not
			}
			if i >= 3 && p[i-3] == '\r' && p[i-2] == '\n' {
				return i + 1, true
			}
		case b == '\r' || b == '\t':
		case b < 0x20 || b >= 0x7f:
			return 0, false
		}
	}
	return 0, true
}

// plausibleStart reports whether p can be the start of "GET /" or "HEAD /".
func plausibleStart(p []byte) bool {
	for _, m := range [...]string{"GET /", "HEAD /"} {
		n := min(len(p), len(m))
		if string(p[:n]) == m[:n] {
			return true
		}
	}
	return false
}

// parse reads a complete header block (ending in CRLF CRLF, checked by scan). ok is false for anything the fast
// path leaves to net/http.
func parse(p []byte) (r request, ok bool) {
	line, rest, _ := bytes.Cut(p, crlf)
	switch {
	case bytes.HasPrefix(line, []byte("GET ")):
		line = line[4:]
	case bytes.HasPrefix(line, []byte("HEAD ")):
		line, r.head = line[5:], true
	default:
		return r, false
	}
	target, proto, found := bytes.Cut(line, []byte(" "))
	if !found || string(proto) != "HTTP/1.1" || !validPath(target) {
		return r, false
	}
	r.path = target
	for {
		line, rest, _ = bytes.Cut(rest, crlf)
		if len(line) == 0 {
			break
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found || !validName(name) {
			return r, false
		}
		// The line holds no CR or LF (scan), so TrimBytes trims exactly the spaces and tabs around the value.
		value = textproto.TrimBytes(value)
		switch {
		case eqFold(name, "host"):
			if r.hosts++; !validHost(value) {
				return r, false
			}
		case eqFold(name, "accept"):
			if r.hasAccept {
				return r, false
			}
			r.accept, r.hasAccept = value, true
		case eqFold(name, "accept-language"):
			if r.hasLang {
				return r, false
			}
			r.language, r.hasLang = value, true
		case eqFold(name, "accept-encoding"):
			if r.hasEncoding {
				return r, false
			}
			r.encoding, r.hasEncoding = value, true
		case eqFold(name, "if-none-match"):
			if r.hasINM {
				return r, false
			}
			r.inm, r.hasINM = value, true
		case eqFold(name, "if-modified-since"):
			if r.hasIMS {
				return r, false
			}
			r.ims, r.hasIMS = value, true
		case eqFold(name, "connection"):
			if r.hasConn {
				return r, false
			}
			r.hasConn = true
			switch {
			case eqFold(value, "close"):
				r.close = true
			case eqFold(value, "keep-alive"):
			default:
				return r, false
			}
		case eqFold(name, "content-length"):
			if r.hasLength || string(value) != "0" {
				return r, false
			}
			r.hasLength = true
		case handedOver(name):
			return r, false
		}
	}
	return r, r.hosts == 1
}

var crlf = []byte("\r\n")

// handedOver lists the fields that change what net/http or the handler does beyond what the fast path knows:
// credentials, bodies, protocol switches, ranges and the preconditions it does not evaluate.
func handedOver(name []byte) bool {
	for _, n := range [...]string{"authorization", "proxy-authorization", "expect", "upgrade", "transfer-encoding",
		"te", "trailer", "range", "if-range", "if-match", "if-unmodified-since", "http2-settings"} {
		if eqFold(name, n) {
			return true
		}
	}
	return false
}

// eqFold compares b with a lower-case ASCII string, ignoring case.
func eqFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// validName: a field name made of token characters (RFC 9110 tchar).
func validName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isAlnum(c) && strings.IndexByte("!#$%&'*+-.^_`|~", c) < 0 {
			return false
		}
	}
	return true
}

// validPath admits an origin-form path whose bytes url.ParseRequestURI keeps as they are in URL.Path: unreserved
// characters, sub-delims, ':' '@' and '/'. No query, no fragment, no percent-escape.
func validPath(b []byte) bool {
	if len(b) == 0 || b[0] != '/' {
		return false
	}
	for _, c := range b {
		if !isAlnum(c) && strings.IndexByte("-._~/!$&'()*+,;=:@", c) < 0 {
			return false
		}
	}
	return true
}

// validHost admits a host name, IPv4 or bracketed IPv6 address and port: a subset of what net/http accepts.
func validHost(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isAlnum(c) && strings.IndexByte("-._:[]", c) < 0 {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

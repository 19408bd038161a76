package rdfxml

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// charsetReader lets encoding/xml read the two non-UTF-8 encodings that RDF/XML files in the wild still declare.
// Anything else is refused with a clear error rather than decoded wrongly.
func charsetReader(label string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return r, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso_8859-1":
		if p, ok := r.(*posReader); ok {
			p.notUTF8 = true // every byte is a Latin-1 character; the transcoded stream is UTF-8 by construction
		}
		br, ok := r.(io.ByteReader)
		if !ok {
			br = bufio.NewReader(r)
		}
		return &latin1Reader{r: br}, nil
	}
	return nil, &inputError{msg: fmt.Sprintf("unsupported character encoding %q", label)}
}

// latin1Reader transcodes ISO-8859-1 to UTF-8 byte by byte.
type latin1Reader struct {
	r       io.ByteReader
	pending int // second byte of a two-byte sequence plus one; zero means none
}

func (l *latin1Reader) ReadByte() (byte, error) {
	if l.pending != 0 {
		b := byte(l.pending - 1)
		l.pending = 0
		return b, nil
	}
	c, err := l.r.ReadByte()
	if err != nil || c < utf8.RuneSelf {
		return c, err
	}
	var enc [2]byte
	utf8.EncodeRune(enc[:], rune(c))
	l.pending = int(enc[1]) + 1
	return enc[0], nil
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c, err := l.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		p[n] = c
		n++
	}
	return n, nil
}

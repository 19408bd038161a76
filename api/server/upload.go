package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/httpx"
	"github.com/ldhub/ldhub/httpx/apierr"
)

// part is one part of a multipart/form-data request.
type part struct {
	name, filename, contentType string
	data                        []byte
}

// multipartType answers 415 unless r's body is multipart/form-data; want describes the body the route takes.
func multipartType(r *http.Request, parts []string) (want string, err error) {
	want = "the request must be multipart/form-data with the parts " + strings.Join(parts, ", ")
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return want, apierr.New(http.StatusUnsupportedMediaType, want)
	}
	return want, nil
}

// readParts reads every part of a multipart/form-data body (bounded by the server's upload limit) and checks that
// the required ones are there, by their exact names.
func (s *Server) readParts(r *http.Request, required ...string) (map[string]*part, error) {
	return readPartsInto(r, s.cfg.Store.UploadBuffer, required...)
}

// readPartsInto is readParts with large parts read into buffers from alloc (readPart).
func readPartsInto(r *http.Request, alloc func(n int) []byte, required ...string) (map[string]*part, error) {
	want, err := multipartType(r, required)
	if err != nil {
		return nil, err
	}
	_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	boundary := params["boundary"]
	if boundary == "" {
		err := http.ErrMissingBoundary
		return nil, &apierr.Error{Status: http.StatusBadRequest,
			Message: want + ": " + err.Error(), Err: err}
	}
	parts := map[string]*part{}
	add := func(p *multipart.Part, data []byte) error {
		name := p.FormName()
		if _, dup := parts[name]; dup {
			return badRequest("the part " + name + " appears twice")
		}
		parts[name] = &part{name: name, filename: p.FileName(), contentType: p.Header.Get("Content-Type"), data: data}
		return nil
	}
	var body io.Reader = r.Body
	if r.ContentLength > wholeBodyAbove {
		// A large body is read whole into one buffer from alloc and split where its boundaries are (splitParts).
		// The buffer is taken once wholeBodyAbove bytes arrived, as readPart does: a length merely announced costs
		// nothing.
		head := make([]byte, wholeBodyAbove)
		_, err := io.ReadFull(r.Body, head)
		var buf []byte
		if err == nil {
			buf = alloc(int(r.ContentLength))[:r.ContentLength]
			copy(buf, head)
			_, err = io.ReadFull(r.Body, buf[len(head):])
		}
		if err != nil {
			if bodyFailed(err) {
				return nil, err
			}
			return nil, &apierr.Error{Status: http.StatusBadRequest, Message: "malformed multipart body: " + err.Error(), Err: err}
		}
		if raw, ok := splitParts(buf, boundary); ok {
			for _, rp := range raw {
				if err := add(&multipart.Part{Header: rp.header}, rp.data); err != nil {
					return nil, err
				}
			}
			return parts, requiredParts(parts, required)
		}
		// Another shape (a preamble, padding after a boundary, an encoded part): mime/multipart reads the same bytes.
		body = bytes.NewReader(buf)
	}
	// multipart reads through a 4 KiB buffer of its own: straight from the connection that is one read call per
	// 4 KiB, 44 000 for a 181 MB upload. Behind a buffer of bodyBuffer bytes its reads are copies instead.
	mr := multipart.NewReader(bufio.NewReaderSize(body, bodyBuffer), boundary)
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if bodyFailed(err) {
				return nil, err
			}
			return nil, &apierr.Error{Status: http.StatusBadRequest, Message: "malformed multipart body: " + err.Error(), Err: err}
		}
		data, err := readPart(p, r.ContentLength, alloc)
		if err != nil {
			if bodyFailed(err) {
				return nil, err
			}
			return nil, &apierr.Error{Status: http.StatusBadRequest, Message: "malformed multipart body: " + err.Error(), Err: err}
		}
		if err := add(p, data); err != nil {
			return nil, err
		}
	}
	return parts, requiredParts(parts, required)
}

// requiredParts checks that parts has every required part.
func requiredParts(parts map[string]*part, required []string) error {
	for _, n := range required {
		if parts[n] == nil {
			return badRequest("the multipart part " + n + " is missing (required: " + strings.Join(required, ", ") + ")")
		}
	}
	return nil
}

// wholeBodyAbove is the announced body length from which readPartsInto reads the body whole and splits it itself.
// mime/multipart hands a part over 4 KiB at a time, each time searching the chunk for the boundary forwards and
// then, as N-Triples has no CR, backwards byte by byte to its start: for a 181 MB upload that and its two copies
// were 0.3–0.5 CPU-s of the body's read, which nothing else overlaps (make bench-upload, CPU profile of ldhub
// serve). Read whole, the body is copied once, from the connection, and searched once, with bytes.Index; the
// largest part's data stays where it is (a part of the buffer from alloc).
const wholeBodyAbove = 1 << 20

// rawPart is a part splitParts found: its header and its data.
type rawPart struct {
	header textproto.MIMEHeader
	data   []byte
}

// splitParts splits a multipart body held whole in memory, as mime/multipart reads it, when it has the shape
// every client we know sends: the first boundary at the start, CRLF line ends, no padding after a boundary, each
// header block under 64 KiB and no Content-Transfer-Encoding. ok is false for anything else (nothing is decided
// here that mime/multipart might decide otherwise); the caller then reads the body with mime/multipart. The
// largest part's data is a part of body; the others are copies, so that nothing else holds body's memory.
func splitParts(body []byte, boundary string) (parts []rawPart, ok bool) {
	dash := []byte("--" + boundary)
	delim := []byte("\r\n--" + boundary)
	crlf := []byte("\r\n")
	if !bytes.HasPrefix(body, dash) || !bytes.HasPrefix(body[len(dash):], crlf) {
		return nil, false
	}
	pos := len(dash) + len(crlf)
	largest := -1
	for {
		end := bytes.Index(body[pos:min(len(body), pos+maxPartHeader)], []byte("\r\n\r\n"))
		if end < 0 {
			return nil, false
		}
		block := body[pos : pos+end+4]
		br := bufio.NewReaderSize(bytes.NewReader(block), len(block))
		hdr, err := textproto.NewReader(br).ReadMIMEHeader()
		if err != nil || br.Buffered() > 0 || hdr.Get("Content-Transfer-Encoding") != "" {
			// Unreadable, or it ended before the block did (a line end without CR): mime/multipart's to read.
			return nil, false
		}
		start := pos + end + 4
		if bytes.HasPrefix(body[start:], dash) {
			return nil, false // an empty part whose boundary follows its header at once: mime/multipart's to tell
		}
		n := bytes.Index(body[start:], delim)
		if n < 0 {
			return nil, false
		}
		// The largest part keeps the buffer's capacity, which the store's UploadBuffer reuses once it is given back.
		parts = append(parts, rawPart{header: hdr, data: body[start : start+n]})
		if largest < 0 || n > len(parts[largest].data) {
			largest = len(parts) - 1
		}
		after := body[start+n+len(delim):]
		switch {
		case bytes.HasPrefix(after, []byte("--")) && (len(after) == 2 || bytes.HasPrefix(after[2:], crlf)):
			// The last boundary; what follows it is the epilogue, which mime/multipart ignores too.
			for i := range parts {
				if i != largest {
					parts[i].data = bytes.Clone(parts[i].data)
				}
			}
			return parts, true
		case bytes.HasPrefix(after, crlf):
			pos = len(body) - len(after) + len(crlf)
		default:
			return nil, false
		}
	}
}

// maxPartHeader bounds a part's header block in splitParts; a longer one is mime/multipart's to read (and limit).
const maxPartHeader = 64 << 10

// bodyBuffer is the read buffer of a multipart body.
const bodyBuffer = 256 << 10

// readPart reads a part of a body of announced length hint (-1 when unknown; never above the upload limit, which
// larger bodies are refused by before they are read). io.ReadAll grows by copying into ever larger fresh slices,
// 2.4 bytes allocated, cleared and faulted in per byte read (BenchmarkReadPart); in a profile of ldhub serve from
// upload until live, clearing them was a tenth of the server's CPU time. A part that passes readAhead bytes is read
// into one buffer of the body's length from alloc (1.03 bytes per byte; the store's UploadBuffer hands back the
// last rendered upload's memory, which is already in place); only data that arrives costs that, not a length a
// client merely announces.
func readPart(p io.Reader, hint int64, alloc func(n int) []byte) ([]byte, error) {
	const readAhead = 1 << 20
	buf := new(bytes.Buffer)
	if _, err := io.CopyN(buf, p, readAhead); err != nil {
		if errors.Is(err, io.EOF) {
			return buf.Bytes(), nil
		}
		return nil, err
	}
	if hint > int64(buf.Len()) {
		// MinRead: ReadFrom wants that much room at the end, or it grows the buffer once more.
		b := alloc(int(hint) + bytes.MinRead)[:buf.Len()]
		copy(b, buf.Bytes())
		buf = bytes.NewBuffer(b)
	}
	_, err := buf.ReadFrom(p)
	return buf.Bytes(), err
}

// bodyFailed reports whether err is the body's own failure (too large, too slow) rather than bad content, so that
// it keeps its status (413, 408) instead of becoming a 400.
func bodyFailed(err error) bool {
	var mb *http.MaxBytesError
	var te *httpx.TimeoutError
	return errors.As(err, &mb) || errors.As(err, &te)
}

// jsonPart decodes a part holding JSON, strictly (decodeStrict).
func jsonPart(p *part, v any) error {
	return decodeStrict(p.data, v, "the part "+p.name)
}

// genericTypes say nothing about the syntax, so the file name decides.
var genericTypes = map[string]bool{
	"": true, "application/octet-stream": true, "text/plain": true, "binary/octet-stream": true,
	"application/unknown": true, "application/x-www-form-urlencoded": true, "*/*": true,
}

// uploadSyntax finds the RDF syntax of an uploaded part: its Content-Type when that is specific, else its file
// name's extension (decisions.md). Unknown is 415.
func (s *Server) uploadSyntax(p *part) (codec.Syntax, error) {
	mt, _, err := mime.ParseMediaType(p.contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(p.contentType))
	}
	if !genericTypes[mt] {
		syn, ok := s.codecs.ByMediaType(mt)
		if !ok {
			return codec.Syntax{}, apierr.New(http.StatusUnsupportedMediaType, "unsupported RDF format "+mt+" in part "+p.name)
		}
		return syn, nil
	}
	if syn, ok := s.codecs.ByPath(p.filename); ok {
		return syn, nil
	}
	return codec.Syntax{}, apierr.New(http.StatusUnsupportedMediaType,
		"cannot tell the RDF format of part "+p.name+": give it a specific Content-Type or a file name with a known extension (.ttl .nt .n3 .rdf .owl .xml .jsonld .rj .nq .trig)")
}

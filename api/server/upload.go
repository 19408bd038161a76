package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
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
	// multipart reads through a 4 KiB buffer of its own: straight from the connection that is one read call per
	// 4 KiB, 44 000 for a 181 MB upload. Behind a buffer of bodyBuffer bytes its reads are copies instead.
	mr := multipart.NewReader(bufio.NewReaderSize(r.Body, bodyBuffer), boundary)
	parts := map[string]*part{}
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
		name := p.FormName()
		if _, dup := parts[name]; dup {
			return nil, badRequest("the part " + name + " appears twice")
		}
		parts[name] = &part{name: name, filename: p.FileName(), contentType: p.Header.Get("Content-Type"), data: data}
	}
	for _, n := range required {
		if parts[n] == nil {
			return nil, badRequest("the multipart part " + n + " is missing (required: " + strings.Join(required, ", ") + ")")
		}
	}
	return parts, nil
}

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

package server

import (
	"errors"
	"io"
	"mime"
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
func readParts(r *http.Request, required ...string) (map[string]*part, error) {
	want, err := multipartType(r, required)
	if err != nil {
		return nil, err
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, &apierr.Error{Status: http.StatusBadRequest,
			Message: want + ": " + err.Error(), Err: err}
	}
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
		data, err := io.ReadAll(p)
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

// Package apierr writes the one error body every ldhub route answers with (decisions.md "Errors"): Spring style
// JSON with timestamp, status, error, message and path, plus optional details such as the line and column of an
// RDF syntax error.
package apierr

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// Body is the JSON error document.
type Body struct {
	Timestamp int64  `json:"timestamp"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Message   string `json:"message"`
	Path      string `json:"path"`
	Details   any    `json:"details,omitempty"`
}

// Error is an error that knows its HTTP status. Handlers return it and one place writes it.
type Error struct {
	Status  int
	Message string
	Details any
	Err     error // the cause, for logs; never shown to the client
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// HTTPStatus is the status the response carries; packages that know nothing of this one (sparqlsvc/protocol)
// recognise a refusal by this method.
func (e *Error) HTTPStatus() int { return e.Status }

// statusError is an error of a package below this one that knows its status, e.g. *protocol.Error. Write renders
// it like an *Error whose message is its Error(); with a SyntaxFormat method and a wrapped *rdf.SyntaxError, the
// details name the format, line and column.
type statusError interface {
	error
	HTTPStatus() int
}

// asError returns the *Error that err is or describes; nil for a server fault.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var s statusError
	if !errors.As(err, &s) {
		return nil
	}
	e = &Error{Status: s.HTTPStatus(), Message: s.Error(), Err: err}
	var syn *rdf.SyntaxError
	var f interface{ SyntaxFormat() string }
	if errors.As(err, &syn) && errors.As(err, &f) {
		e.Details = Syntax{Format: f.SyntaxFormat(), Line: syn.Line, Column: syn.Column}
	}
	return e
}

// New returns an *Error with the given status and message.
func New(status int, msg string) *Error { return &Error{Status: status, Message: msg} }

// Syntax details of an RDF (or SPARQL) parse error, as decisions.md shows them.
type Syntax struct {
	Format string `json:"format,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// FromSyntax turns a syntax error into a 400 naming the format, line and column.
func FromSyntax(err *rdf.SyntaxError, mediaType string) *Error {
	return &Error{
		Status:  http.StatusBadRequest,
		Message: "invalid " + err.Syntax + ": " + err.Error(),
		Details: Syntax{Format: mediaType, Line: err.Line, Column: err.Column},
		Err:     err,
	}
}

// Write sends err as the JSON error body. Anything that is not an *Error is a server fault: the client gets a
// generic 500 message, so internals never leak; the caller logs err.
func Write(w http.ResponseWriter, r *http.Request, err error) {
	e := asError(err)
	if e == nil {
		e = &Error{Status: http.StatusInternalServerError, Message: "internal error"}
	}
	body := Body{
		Timestamp: time.Now().UnixMilli(),
		Status:    e.Status,
		Error:     http.StatusText(e.Status),
		Message:   e.Message,
		Path:      r.URL.Path,
		Details:   e.Details,
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Del("Content-Encoding") // set for a compressed answer that then failed; the error body is plain
	if e.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Basic realm="ldhub"`)
	}
	w.WriteHeader(e.Status)
	if r.Method != http.MethodHead {
		_ = json.NewEncoder(w).Encode(body)
	}
}

package model

import (
	"errors"
	"fmt"

	"github.com/ldhub/ldhub/content/rdf"
)

// Sentinel kinds. Every error the store returns for a caller's mistake wraps exactly one of them, so the API maps
// errors to statuses with errors.Is: NotFound 404, Conflict 409, Invalid 400, Forbidden 403, Unauthorized 401.
var (
	ErrNotFound     = errors.New("not found")
	ErrConflict     = errors.New("conflict")
	ErrInvalid      = errors.New("invalid input")
	ErrForbidden    = errors.New("forbidden")
	ErrUnauthorized = errors.New("unauthorized")
)

type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// NotFoundf returns an error that wraps ErrNotFound.
func NotFoundf(format string, a ...any) error {
	return &kindError{ErrNotFound, fmt.Sprintf(format, a...)}
}

// Conflictf returns an error that wraps ErrConflict.
func Conflictf(format string, a ...any) error {
	return &kindError{ErrConflict, fmt.Sprintf(format, a...)}
}

// Invalidf returns an error that wraps ErrInvalid.
func Invalidf(format string, a ...any) error {
	return &kindError{ErrInvalid, fmt.Sprintf(format, a...)}
}

// Forbiddenf returns an error that wraps ErrForbidden.
func Forbiddenf(format string, a ...any) error {
	return &kindError{ErrForbidden, fmt.Sprintf(format, a...)}
}

// Unauthorizedf returns an error that wraps ErrUnauthorized.
func Unauthorizedf(format string, a ...any) error {
	return &kindError{ErrUnauthorized, fmt.Sprintf(format, a...)}
}

// ContentError is invalid uploaded content: which file, and the syntax error with line and column when the
// content is bad RDF. It wraps ErrInvalid (and the *rdf.SyntaxError, reachable with errors.As).
type ContentError struct {
	Path string
	Err  error
}

func (e *ContentError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *ContentError) Unwrap() error { return e.Err }
func (e *ContentError) Is(target error) bool {
	return target == ErrInvalid
}

// Syntax returns the RDF syntax error behind e, or nil.
func (e *ContentError) Syntax() *rdf.SyntaxError {
	var se *rdf.SyntaxError
	if errors.As(e.Err, &se) {
		return se
	}
	return nil
}

package jsonld

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// errorCodes are the error codes of JSON-LD 1.1 API §9.4.2 (plus "context overflow", which processors raise for
// their own limits), as the W3C suites name them.
var errorCodes = map[string]bool{}

func init() {
	for _, c := range strings.Split("colliding keywords|conflicting indexes|context overflow|cyclic IRI mapping|"+
		"invalid @id value|invalid @import value|invalid @included value|invalid @index value|invalid @nest value|"+
		"invalid @prefix value|invalid @propagate value|invalid @protected value|invalid @reverse value|"+
		"invalid @version value|invalid base direction|invalid base IRI|invalid container mapping|"+
		"invalid context entry|invalid context nullification|invalid default language|invalid IRI mapping|"+
		"invalid JSON literal|invalid keyword alias|invalid language map value|invalid language mapping|"+
		"invalid language-tagged string|invalid language-tagged value|invalid local context|invalid remote context|"+
		"invalid reverse property|invalid reverse property map|invalid reverse property value|invalid scoped context|"+
		"invalid script element|invalid set or list object|invalid term definition|invalid type mapping|"+
		"invalid type value|invalid typed value|invalid value object|invalid value object value|invalid vocab mapping|"+
		"IRI confused with prefix|keyword redefinition|loading document failed|loading remote context failed|"+
		"multiple context link headers|processing mode conflict|protected term redefinition|recursive context inclusion|"+
		"list of lists|compaction to list of lists|invalid input", "|") {
		errorCodes[c] = true
	}
}

// procError is a JSON-LD processing error: its code, what was wrong, and the JSON Pointer (as tokens) of the
// value of the document that caused it, when known.
type procError struct {
	code    string
	details string
	ptr     []string
	located bool
}

func (e *procError) Error() string {
	if e.details == "" {
		return e.code
	}
	return e.code + ": " + e.details
}

func newError(code string, format string, args ...any) *procError {
	return &procError{code: code, details: fmt.Sprintf(format, args...)}
}

// syntaxError turns err into the SyntaxError callers see: JSON-LD errors become "<code> at <path>: <details>" at
// the line and column of the value they name when b holds the document text.
func syntaxError(err error, b []byte) error {
	var pe *procError
	if !errors.As(err, &pe) {
		var se *rdf.SyntaxError
		if errors.As(err, &se) {
			return err
		}
		return fmt.Errorf("json-ld: %w", err)
	}
	if pe.located && b != nil {
		if off, path, ok := pointerOffset(b, pointerString(pe.ptr)); ok {
			msg := pe.code + " at " + displayPath(path)
			if pe.details != "" {
				msg += ": " + pe.details
			}
			line, col := position(b, off)
			return &rdf.SyntaxError{Syntax: syntaxName, Line: line, Column: col, Msg: msg}
		}
	}
	return &rdf.SyntaxError{Syntax: syntaxName, Msg: pe.Error()}
}

func pointerString(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// IsErrorCode reports whether code is a JSON-LD error code.
func isErrorCode(code string) bool { return errorCodes[code] }

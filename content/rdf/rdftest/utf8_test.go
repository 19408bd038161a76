package rdftest

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestBadUTF8 keeps the shared list honest: every sequence is refused by the standard library's own check.
func TestBadUTF8(t *testing.T) {
	for _, bad := range BadUTF8 {
		if utf8.ValidString(bad.Bytes) {
			t.Errorf("%s: %q is valid UTF-8", bad.Name, bad.Bytes)
		}
	}
}

// TestCases: positions are counted in lines and characters, and only the first X is replaced.
func TestCases(t *testing.T) {
	cases := Cases("# Übersicht ✓\nab éX X")
	if len(cases) != len(BadUTF8) {
		t.Fatalf("%d cases, want %d", len(cases), len(BadUTF8))
	}
	for i, c := range cases {
		if c.Line != 2 || c.Column != 5 {
			t.Errorf("%s: line %d, column %d, want 2, 5", c.Bad.Name, c.Line, c.Column)
		}
		if want := "# Übersicht ✓\nab é" + BadUTF8[i].Bytes + " X"; c.In != want {
			t.Errorf("%s: %q, want %q", c.Bad.Name, c.In, want)
		}
		if !strings.Contains(c.In, c.Bad.Bytes) {
			t.Errorf("%s: sequence missing from %q", c.Bad.Name, c.In)
		}
	}
}

// recorder is a testing.TB that notes failures instead of failing; Fatalf ends its goroutine as the real one does.
type recorder struct {
	testing.TB
	errors, fatals int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }
func (r *recorder) Fatalf(string, ...any) { r.fatals++; runtime.Goexit() }
func check(c Case, syntax string, err error) (errors, fatals int) {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		CheckError(r, "case", syntax, c, nil, err)
	}()
	<-done
	return r.errors, r.fatals
}

// TestCheckError: CheckError accepts only a syntax error of the right syntax, at the right place, naming UTF-8.
func TestCheckError(t *testing.T) {
	c := Cases("ab\ncX")[0]
	at := func(syntax string, line, col int, msg string) error {
		return &rdf.SyntaxError{Syntax: syntax, Line: line, Column: col, Msg: msg}
	}
	for _, tc := range []struct {
		name           string
		err            error
		errors, fatals int
	}{
		{"right", fmt.Errorf("wrapped: %w", at("x", 2, 2, "invalid UTF-8 in IRI")), 0, 0},
		{"not a syntax error", io.ErrUnexpectedEOF, 0, 1},
		{"no error", nil, 0, 1},
		{"other syntax", at("y", 2, 2, "invalid UTF-8"), 1, 0},
		{"other line", at("x", 1, 2, "invalid UTF-8"), 1, 0},
		{"other column", at("x", 2, 3, "invalid UTF-8"), 1, 0},
		{"not about UTF-8", at("x", 2, 2, "unexpected character"), 1, 0},
	} {
		if e, f := check(c, "x", tc.err); e != tc.errors || f != tc.fatals {
			t.Errorf("%s: %d errors, %d fatal, want %d, %d", tc.name, e, f, tc.errors, tc.fatals)
		}
	}
}

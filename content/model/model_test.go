package model

import (
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

func TestSegments(t *testing.T) {
	for _, tc := range []struct {
		name, segment string
		valid         bool
	}{
		{"Core Vocabulary", "Core-Vocabulary", true},
		{"  Ärger & Co. ", "rger-Co.", true},
		{".hidden", "hidden", true},
		{"%%%", "", false},
	} {
		got := SegmentFrom(tc.name)
		if got != tc.segment || ValidSegment(got) != tc.valid {
			t.Errorf("SegmentFrom(%q) = %q (valid %v)", tc.name, got, ValidSegment(got))
		}
	}
	for _, s := range []string{"", ".x", "a/b", string(make([]byte, 65))} {
		if ValidSegment(s) {
			t.Errorf("ValidSegment(%q)", s)
		}
	}
}

func TestRoles(t *testing.T) {
	for _, name := range []string{"VIEWER", "publisher", "Manager", "OWNER"} {
		r, err := ParseRole(name)
		if err != nil {
			t.Fatal(err)
		}
		var back Role
		text, _ := r.MarshalText()
		if err := back.UnmarshalText(text); err != nil || back != r {
			t.Errorf("%s round trip: %v %v", name, back, err)
		}
	}
	if !(Viewer < Publisher && Publisher < Manager && Manager < Owner) {
		t.Error("roles out of order")
	}
	if _, err := ParseRole("ADMIN"); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown role: %v", err)
	}
}

func TestIDs(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-([45])[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if m := uuid.FindStringSubmatch(NewID()); m == nil || m[1] != "4" {
		t.Errorf("NewID is not a v4 UUID")
	}
	if NewID() == NewID() {
		t.Error("NewID repeats")
	}
	a, b := NameID("pub", "abc"), NameID("pub", "abc")
	if m := uuid.FindStringSubmatch(a); m == nil || m[1] != "5" || a != b {
		t.Errorf("NameID %q %q", a, b)
	}
	if NameID("pu", "babc") == NameID("pub", "abc") {
		t.Error("NameID parts run together")
	}
}

func TestErrorKinds(t *testing.T) {
	se := &rdf.SyntaxError{Syntax: "turtle", Line: 3, Column: 4, Msg: "bad"}
	ce := error(&ContentError{Path: "core.ttl", Err: fmt.Errorf("commit abc: %w", se)})
	var got *ContentError
	if !errors.Is(ce, ErrInvalid) || !errors.As(ce, &got) || got.Syntax() != se {
		t.Errorf("ContentError: %v", ce)
	}
	for _, tc := range []struct {
		err  error
		kind error
	}{
		{NotFoundf("x"), ErrNotFound}, {Conflictf("x"), ErrConflict}, {Invalidf("x"), ErrInvalid},
		{Forbiddenf("x"), ErrForbidden}, {Unauthorizedf("x"), ErrUnauthorized},
	} {
		if !errors.Is(fmt.Errorf("wrapped: %w", tc.err), tc.kind) || errors.Is(tc.err, ErrConflict) != (tc.kind == ErrConflict) {
			t.Errorf("%v is not only %v", tc.err, tc.kind)
		}
	}
}

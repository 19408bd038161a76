package model

import "testing"

func TestReservedSegments(t *testing.T) {
	for _, tc := range []struct {
		seg      string
		top      bool
		reserved bool
	}{
		{"index.html", true, true}, {"index.html", false, true}, {"INDEX.HTML", false, true},
		{"versions", false, true}, {"void.ttl", false, true}, {"sparql", false, true},
		{"core.ttl", false, true}, {"x.jsonld", true, true}, {"x.nq", false, true},
		{"api", true, true}, {"git", true, true}, {"ns", true, true}, {"NS", true, true},
		{"api", false, false}, {"ns", false, false},
		{"core", false, false}, {"core.txt", false, false}, {"v1.0", true, false}, {"versions2", false, false},
	} {
		if got := ReservedSegment(tc.seg, tc.top) != ""; got != tc.reserved {
			t.Errorf("ReservedSegment(%q, top=%v) = %v, want %v", tc.seg, tc.top, got, tc.reserved)
		}
	}
	admin, user := Actor{CredentialID: "a", Admin: true}, Actor{CredentialID: "u"}
	if ReservedFor(admin, "ns", true) != "" || ReservedFor(SystemActor, "ns", true) != "" {
		t.Error("the administrator and the hub itself may create the ns group")
	}
	if ReservedFor(user, "ns", true) == "" || ReservedFor(admin, "api", true) == "" || ReservedFor(admin, "index.html", true) == "" {
		t.Error("ns is the hub's; api and index.html are nobody's")
	}
}

package storeload

import "testing"

// TestWhichPublicationsGo checks the threshold and the per-repository / per-publication overrides: the longest
// matching path wins, a path matches whole segments only, and threshold 0 sends everything.
func TestWhichPublicationsGo(t *testing.T) {
	l := New(Options{Threshold: 1000, Include: []string{"/acme/big"}, Exclude: []string{"/acme/big/tiny", "/acme/other/"}})
	cases := []struct {
		path    string
		triples int
		want    bool
	}{
		{"/acme/vocab/core", 999, false},
		{"/acme/vocab/core", 1000, false},
		{"/acme/vocab/core", 1001, true},
		{"/acme/big/small", 5, true},          // the repository is included whatever its size
		{"/acme/big/tiny", 10_000_000, false}, // …except the publication excluded below it
		{"/acme/bigger/x", 5, false},          // "/acme/big" is not a prefix of /acme/bigger
		{"/acme/other/huge", 10_000_000, false},
	}
	for _, c := range cases {
		if got := l.sends(c.path, c.triples); got != c.want {
			t.Errorf("sends(%s, %d) = %t, want %t", c.path, c.triples, got, c.want)
		}
	}
	if !New(Options{}).sends("/any/repo/pub", 0) {
		t.Error("threshold 0 must send every publication")
	}
}

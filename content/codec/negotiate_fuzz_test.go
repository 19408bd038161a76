package codec

import (
	"slices"
	"testing"
)

// FuzzNegotiate: any Accept header gets an answer without panicking, and the answer is always one of the offers.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"", "*/*", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		"text/turtle;q=0, application/*;q=0.5", "application/ld+json; profile=\"http://www.w3.org/ns/json-ld#compacted\"",
		"text/*;q=0.3, text/turtle;q=0.7, text/turtle;level=1, */*;q=0.5", ";;;,,,q=", "a/b;q=1.5", "*/*;q=-1"} {
		f.Add(s)
	}
	offers := Default().Writable()
	f.Fuzz(func(t *testing.T, accept string) {
		mt, ok := Negotiate(accept, offers)
		if ok && !slices.Contains(offers, mt) {
			t.Fatalf("Negotiate(%q) = %q, not an offer", accept, mt)
		}
	})
}

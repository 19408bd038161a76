package codec

import "testing"

func TestAcceptsEncoding(t *testing.T) {
	cases := []struct {
		ae   string
		want bool
	}{
		{"", false},
		{"gzip", true},
		{"GZip", true},
		{"x-gzip", true},
		{"deflate, gzip;q=0.5", true},
		{"br, deflate", false},
		{"*", true},
		{"identity, *;q=0.1", true},
		// RFC 9110 §12.5.3: the coding's own weight wins over "*"; q=0 refuses.
		{"gzip;q=0, *", false},
		{"gzip;q=0.0, *;q=1", false},
		{"*;q=0, gzip", true},
		{"gzip;q=0", false},
		{"*;q=0", false},
		{"x-gzip;q=0, *", false},
		{"gzip;q=0.001", true},
		// A malformed weight drops the element, as in Negotiate.
		{"gzip;q=2", false},
		{"gzip;q=abc, *;q=0.5", true},
		{"gzip ; q=1.000", true},
	}
	for _, c := range cases {
		if got := AcceptsEncoding(c.ae, "gzip"); got != c.want {
			t.Errorf("AcceptsEncoding(%q, gzip) = %v, want %v", c.ae, got, c.want)
		}
	}
}

package httpx_test

import (
	"slices"
	"testing"

	"github.com/ldhub/ldhub/httpx"
)

func TestParseOrigins(t *testing.T) {
	for in, want := range map[string]httpx.Origins{
		"":                     nil,
		" , ":                  nil,
		"https://app.example/": {"https://app.example"},
		" https://a.example , http://b.example:8080": {"https://a.example", "http://b.example:8080"},
		"*": {"*"},
	} {
		if got := httpx.ParseOrigins(in); !slices.Equal(got, want) {
			t.Errorf("ParseOrigins(%q) = %q, want %q", in, got, want)
		}
	}
	if !httpx.ParseOrigins("https://app.example/").Allows("https://APP.example") {
		t.Error("a configured origin with a trailing slash does not allow its browser Origin")
	}
}

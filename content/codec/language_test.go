package codec

import (
	"slices"
	"strings"
	"testing"
)

func TestAcceptLanguages(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"es", []string{"es"}},
		{"fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", []string{"fr-ch", "fr", "en", "de"}},
		{"en;q=0.2, es", []string{"es", "en"}},
		{"de;q=0, nl", []string{"nl"}},
		{"en;q=2, x@y, es-419, , nl;q=0.5;foo=bar", []string{"es-419", "nl"}},
		{"EN, en", []string{"en"}},
		{"zh-Hant-TW;q=0.8, ja;q=0.800", []string{"zh-hant-tw", "ja"}},
		{"toolongtag, a-123456789", []string{}},
	} {
		got := AcceptLanguages(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("AcceptLanguages(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// A long header is cut: its first elements count, the rest cannot take memory.
	long := strings.Repeat("en, ", 100000)
	if got := AcceptLanguages(long); !slices.Equal(got, []string{"en"}) {
		t.Errorf("long header: %q", got)
	}
}

func TestLanguageKey(t *testing.T) {
	for in, want := range map[string]string{
		"en": "en", "EN-gb": "en", "pt-BR": "pt", "zh-Hant-TW": "zh", "ast": "ast",
		"x-klingon": "", "i-default": "", "e": "", "": "", "1a": "", "toolonglang": "", "de_DE": "",
	} {
		if got := LanguageKey(in); got != want {
			t.Errorf("LanguageKey(%q) = %q, want %q", in, got, want)
		}
	}
}

package builtin

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestRegexChainMatchesExpression: a pattern matched as a chain of literals (regexChain) gives what the compiled
// expression gives, for random chains of literals, gaps with and without the s flag (lazy ones too), ^ with and
// without m, \A, in any case (the i flag over the Kelvin sign, the long s, ß and ẞ, Σ and ς), over random texts of
// those runes with \n and \r; patterns that are no chain (a + gap, a class, $, mixed gaps, an anchor after a
// literal) must not be taken for one, and h181's two patterns must be. REGEX itself, with XPath flags, must give
// the chain's answer.
func TestRegexChainMatchesExpression(t *testing.T) {
	r := rand.New(rand.NewPCG(181, 21))
	lits := []string{"a", "ab", "k", "K", "s", "ss", "ß", "ä", "Ä", "qualität", "preis", "σ", "b a", "\r"}
	runes := []string{"a", "b", "k", "K", "\u212A", "s", "S", "\u017F", "ß", "ẞ", "ä", "Ä", "σ", "ς", "Σ", " ", "\n", "\r",
		"qualität", "QUALITÄT", "Preis"}
	chains := 0
	for range 4000 {
		flags := []string{"", "(?i)", "(?s)", "(?si)", "(?m)", "(?mi)", "(?ms)", "(?msi)"}[r.IntN(8)]
		var b strings.Builder
		b.WriteString(flags)
		if r.IntN(5) == 0 {
			b.WriteString([]string{"^", `\A`, ".*"}[r.IntN(3)])
		}
		n := 1 + r.IntN(3)
		for i := range n {
			if i > 0 {
				b.WriteString([]string{".*", ".*", ".*?", ".*^", ".+", "[ab]", "$.*", ".*\\A"}[r.IntN(8)])
			}
			b.WriteString(regexp.QuoteMeta(lits[r.IntN(len(lits))]))
		}
		if r.IntN(6) == 0 {
			b.WriteString([]string{".*", "$", "(?-s:.*)"}[r.IntN(3)])
		}
		pattern := b.String()
		re := regexp.MustCompile(pattern)
		c := chainOf(pattern)
		if c == nil {
			continue
		}
		chains++
		for range 40 {
			var s strings.Builder
			for range r.IntN(14) {
				s.WriteString(runes[r.IntN(len(runes))])
			}
			if got, want := c.match(s.String()), re.MatchString(s.String()); got != want {
				t.Fatalf("%q on %q: chain %v, expression %v", pattern, s.String(), got, want)
			}
		}
	}
	if chains < 1000 {
		t.Fatalf("only %d of the patterns were taken as chains", chains)
	}
	for _, p := range []string{"a+b", "[ab]c", "a$", "(?s)a.*b(?-s:.*)c", "a.*\\Ab", "a^b", "a.+b", "(a|b)c", ".*", "^"} {
		if chainOf(p) != nil {
			t.Errorf("%q taken for a chain", p)
		}
	}
	for _, p := range []string{"(?si)qualität.*preis", "(?m)^Sehr", "(?i)a.*b.*c", "^a.*b"} {
		if chainOf(p) == nil {
			t.Errorf("%q not taken for a chain", p)
		}
	}
	c := NewContext(time.Now(), "")
	for _, s := range []string{"Qualität gut.\n\nDer PREIS", "preis qualität", "Sehr gut", "x\nSehr", "xSehr", "QUALITÄT\r\npreis"} {
		for _, pf := range [][2]string{{"qualität.*preis", "si"}, {"qualität.*preis", "i"}, {"^Sehr", "m"}, {"^Sehr", ""}} {
			got, err := c.Call("REGEX", []rdf.Term{rdf.LangString(s, "de"), rdf.String(pf[0]), rdf.String(pf[1])})
			if err != nil {
				t.Fatal(err)
			}
			e, err := c.compileEntry(pf[0], pf[1])
			if err != nil {
				t.Fatal(err)
			}
			if e.chain == nil {
				t.Fatalf("%q with %q: no chain", pf[0], pf[1])
			}
			if want := Boolean(e.re.MatchString(s)); got != want {
				t.Fatalf("REGEX(%q, %q, %q) = %v, expression %v", s, pf[0], pf[1], got, want)
			}
		}
	}
}

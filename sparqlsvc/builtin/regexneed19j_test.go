package builtin

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestRegexNeedRandom: for random patterns of literals, groups, alternations, repeats, classes and anchors, with and
// without the i flag, a text regexNeed turns away (mayMatch false) is one the expression does not match, over
// random texts with the Kelvin sign, the long s, and letters in both cases.
func TestRegexNeedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 12))
	atoms := []string{"a", "b", "k", "s", "K", "S", "ab", "ks", ".", "[ab]", "\\d", "é", "É", "ß"}
	var pattern func(depth int) string
	pattern = func(depth int) string {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			switch r.IntN(8) {
			case 0:
				if depth < 3 {
					b.WriteString("(" + pattern(depth+1) + "|" + pattern(depth+1) + ")")
					continue
				}
			case 1:
				if depth < 3 {
					b.WriteString("(?:" + pattern(depth+1) + ")" + []string{"*", "+", "?", "{2}", "{0,1}", "{1,3}", ""}[r.IntN(7)])
					continue
				}
			case 2:
				b.WriteString([]string{"^", "$", "\\b"}[r.IntN(3)])
				continue
			}
			b.WriteString(atoms[r.IntN(len(atoms))])
			if r.IntN(4) == 0 {
				b.WriteString([]string{"*", "+", "?", "{2}", "{0,2}"}[r.IntN(5)])
			}
		}
		return b.String()
	}
	letters := []rune{'a', 'b', 'k', 's', 'A', 'B', 'K', 'S', '\u212A', '\u017F', '1', ' ', 'é', 'É', 'ß', 'ẞ'}
	text := func() string {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteRune(letters[r.IntN(len(letters))])
		}
		return b.String()
	}
	turned := 0
	for range 3000 {
		p := pattern(0)
		if r.IntN(2) == 0 {
			p = "(?i)" + p
		}
		re, err := regexp.Compile(p)
		if err != nil {
			continue
		}
		n := needOf(p)
		for range 30 {
			s := text()
			if !n.mayMatch(s) {
				turned++
				if re.MatchString(s) {
					t.Fatalf("%q turned away %q, which it matches (needs %+v)", p, s, n)
				}
			}
		}
	}
	if turned == 0 {
		t.Errorf("no text turned away: the test does not test it")
	}
	t.Logf("%d texts turned away", turned)
}

package builtin

import (
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestRegexNeedKeepsAnswers: REGEX answered false where the text lacks every literal a match needs (regexNeed)
// gives what the compiled expression gives, for patterns with literals in concatenations, alternations, groups
// and repeats, in any case (the i flag: the Kelvin sign and the long s stand for k and s), with q and x, and for
// patterns that need no literal; over ASCII and non-ASCII texts, empty ones and language-tagged ones. The patterns
// of h19's shape must yield their literals, so that the texts without them skip the expression.
func TestRegexNeedKeepsAnswers(t *testing.T) {
	patterns := []struct{ p, flags string }{
		{"(^| )(SOLAR|LUNAR)( |$)", "i"}, {"(^| )(SOLAR|LUNAR)( |$)", ""}, {"kettle", "i"}, {"STRASSE", "i"},
		{"ab+c", ""}, {"x(ab){2,}y", ""}, {"x(ab){0,2}y", ""}, {"(ab)?c", ""}, {"(ab)*", ""}, {"^$", ""}, {"a.c", "s"}, {"a|b|c", ""},
		{"(foo|bar)baz", "i"}, {"über", "i"}, {"ÜBER", ""}, {"a.b", "q"}, {"s o l", "x"}, {"(?:sk|ks)y", "i"},
		{"[ab]cd", ""}, {"\\d+ie", ""}, {"one|two|three|four|five|six|seven|eight|nine", ""}, {"^Copper", "m"},
		{"", ""}, {"k", "i"}, {"S", "i"},
	}
	texts := []string{"", "Solar panel", "a LUNAR eclipse", "solarium", " lunar", "the \u212Aettle", "KETTLE",
		"Stra\u017Fse", "STRASSE", "abbbc", "xababy", "c", "ab", "aXc", "a\nc", "foobaz", "FOOBAZ", "ÜBER", "über",
		"a.b", "axb", "xy", "sol", "SKY", "kSY", "\u212As\u017Fy", "bcd", "12ie", "nine", "x\nCopper", "Σ solar ſ", "s",
		"\u017F", "K", "\u212A"}
	c := NewContext(time.Now(), "")
	skipped := 0
	for _, pt := range patterns {
		for _, s := range texts {
			for _, text := range []rdf.Term{rdf.String(s), rdf.LangString(s, "en")} {
				got, err := c.Call("REGEX", []rdf.Term{text, rdf.String(pt.p), rdf.String(pt.flags)})
				if err != nil {
					t.Fatalf("REGEX(%q, %q, %q): %v", s, pt.p, pt.flags, err)
				}
				re, err := c.compileEntry(pt.p, pt.flags)
				if err != nil {
					t.Fatal(err)
				}
				if want := Boolean(re.re.MatchString(s)); got != want {
					t.Errorf("REGEX(%q, %q, %q) = %v, want %v", s, pt.p, pt.flags, got.Value, want.Value)
				}
				if !re.need.mayMatch(s) {
					skipped++
				}
			}
		}
	}
	if skipped < 200 {
		t.Errorf("%d texts skipped the expression: the literals are not found", skipped)
	}
	for _, pt := range []string{"(?i)(^| )(SOLAR|LUNAR)( |$)", "x(ab){2,}y", "(?i)(foo|bar)baz"} {
		if n := needOf(pt); !n.ok {
			t.Errorf("%s: no literals found", pt)
		}
	}
	for _, pt := range []string{"(ab)*", "a?", "(?i)über", "a|b|c|d|e|f|g|h|i|j", "x|y*"} {
		if n := needOf(pt); n.ok {
			t.Errorf("%s: literals %v found where a match need not contain them or too many", pt, n.lits)
		}
	}
}

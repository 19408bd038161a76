package builtin

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// REGEX over every text with a pattern that starts with no literal ("(^| )(SOLAR|LUNAR)( |$)" with the i flag over
// 200 000 review titles, h19) runs Go's backtracker from every position of every text: two thirds of the query's
// CPU, though most texts contain neither word. A match of such a pattern must contain one of a few literal strings
// (here "solar" or "lunar" in any case); regexNeed finds them in the parsed pattern, and a text that contains none
// is answered false without running the expression.

// regexNeed is a set of literals one of which every match of a pattern contains; ok is false when no such set was
// found (the text then always goes to the expression).
type regexNeed struct {
	lits []needLit
	ok   bool
}

// needLit is a literal a match contains: s as written, or, with fold, s in lower case, matched in any ASCII case.
type needLit struct {
	s    string
	fold bool
}

// maxNeedLits bounds a set: past it, testing the literals costs about what the expression does.
const maxNeedLits = 8

// needOf returns the literals one of which every match of pattern (Go syntax, as compiled) contains.
func needOf(pattern string) regexNeed {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return regexNeed{}
	}
	lits, ok := needs(re)
	return regexNeed{lits: lits, ok: ok && len(lits) > 0}
}

// needs returns a set of literals one of which every match of re contains, and whether there is one.
func needs(re *syntax.Regexp) ([]needLit, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			return []needLit{{s: s}}, s != ""
		}
		// In any case, only ASCII literals: their other cases are ASCII too but for k and s (the Kelvin sign and
		// the long s), which mayMatch leaves to the expression in texts that are not ASCII.
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf {
				return nil, false
			}
		}
		return []needLit{{s: strings.ToLower(s), fold: true}}, s != ""
	case syntax.OpCapture, syntax.OpPlus:
		return needs(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needs(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any part's literals do; the part whose shortest literal is longest tells texts apart best.
		var best []needLit
		bestLen := 0
		for _, sub := range re.Sub {
			if lits, ok := needs(sub); ok {
				if n := shortest(lits); n > bestLen {
					best, bestLen = lits, n
				}
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []needLit
		for _, sub := range re.Sub {
			lits, ok := needs(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, len(all) <= maxNeedLits
	}
	return nil, false
}

// shortest is the length of the shortest of lits.
func shortest(lits []needLit) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return n
}

// mayMatch reports whether s contains one of n's literals, or n cannot tell (then the expression decides).
func (n regexNeed) mayMatch(s string) bool {
	if !n.ok {
		return true
	}
	ascii := -1 // whether s is ASCII, once asked
	for _, l := range n.lits {
		if !l.fold {
			if strings.Contains(s, l.s) {
				return true
			}
			continue
		}
		if strings.ContainsAny(l.s, "ks") {
			if ascii < 0 {
				ascii = 1
				for i := 0; i < len(s); i++ {
					if s[i] >= utf8.RuneSelf {
						ascii = 0
						break
					}
				}
			}
			if ascii == 0 {
				return true // K or ſ may stand for k or s
			}
		}
		if containsFold(s, l.s) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains lower, an ASCII string in lower case, in any ASCII case.
func containsFold(s, lower string) bool {
	if lower == "" {
		return true
	}
	first := lower[0]
	upper := first
	if 'a' <= first && first <= 'z' {
		upper -= 'a' - 'A'
	}
	for i := 0; i+len(lower) <= len(s); i++ {
		if c := s[i]; c != first && c != upper {
			continue
		}
		j := 1
		for ; j < len(lower); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

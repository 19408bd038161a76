package builtin

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// REGEX(?text, "qualität.*preis", "si") over every German review text (h181) ran Go's backtracker from every
// position of every text: nine tenths of the query, ~15 ns a byte of text, and regexNeed cannot help, since nearly
// every text has both words. A pattern that is a chain of literals joined by .* (a user's "this, and later that")
// matches exactly when its literals occur in order, each after the end of the one before: regexChain searches for
// them one after the other, a tenth of the backtracker's time. The chain keeps the compiled expression's meaning
// (Go's: . without the s flag is any rune but \n, the i flag folds each rune by unicode.SimpleFold, (?m)^ is the
// start of the text or of a line), so REGEX answers the same; anything else in the pattern leaves it to the
// expression.

// regexChain is a pattern of literals joined by .*: matched when each literal occurs after the end of the one
// before it (within one line when lines is set).
type regexChain struct {
	lits  []chainLit
	lines bool // the gaps are . without the s flag: every literal on the same line
}

// chainLit is one literal of a chain: s as written, or with fold the runes matched by simple case folding (each
// with the runes of its folding orbit); lineStart and textStart anchor it to the start of a line or of the text.
type chainLit struct {
	s         string
	fold      [][]rune
	lineStart bool
	textStart bool
}

// chainOf returns pattern's chain (Go syntax, as compiled), or nil when the pattern is no such chain.
func chainOf(pattern string) *regexChain {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	items := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		items = re.Sub
	}
	c := &regexChain{}
	gaps := 0       // 0: none met yet, 1: . with s, 2: . without s
	canLit := true  // a literal may come next: at the start or after a gap or an anchor
	var anchor byte // 'l' or 't': the anchor the next literal has
	for i, it := range items {
		switch it.Op {
		case syntax.OpLiteral:
			// The expression reads an invalid byte as U+FFFD, which a literal U+FFFD then matches.
			if !canLit || len(it.Rune) == 0 || slices.Contains(it.Rune, utf8.RuneError) {
				return nil
			}
			l := chainLit{lineStart: anchor == 'l', textStart: anchor == 't'}
			if it.Flags&syntax.FoldCase != 0 {
				for _, r := range it.Rune {
					l.fold = append(l.fold, foldOrbit(r))
				}
			} else {
				l.s = string(it.Rune)
			}
			c.lits = append(c.lits, l)
			canLit, anchor = false, 0
		case syntax.OpStar:
			kind := 0
			switch it.Sub[0].Op {
			case syntax.OpAnyChar:
				kind = 1
			case syntax.OpAnyCharNotNL:
				kind = 2
			}
			if kind == 0 || gaps != 0 && gaps != kind || anchor != 0 {
				return nil
			}
			gaps, canLit = kind, true
		case syntax.OpBeginLine, syntax.OpBeginText:
			// Only before a literal, and \A only first: "a.*\Ab" and "a^b" are left to the expression.
			if !canLit || anchor != 0 || it.Op == syntax.OpBeginText && i != 0 {
				return nil
			}
			anchor = 'l'
			if it.Op == syntax.OpBeginText {
				anchor = 't'
			}
		default:
			return nil
		}
	}
	if len(c.lits) == 0 || anchor != 0 {
		return nil
	}
	c.lines = gaps == 2
	if c.lines {
		for _, l := range c.lits {
			if strings.ContainsRune(l.s, '\n') || l.fold != nil && l.foldsNewline() {
				return nil
			}
		}
	}
	return c
}

// foldOrbit is r with the other runes simple case folding makes equal to it.
func foldOrbit(r rune) []rune {
	orbit := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	return orbit
}

func (l chainLit) foldsNewline() bool {
	for _, o := range l.fold {
		for _, r := range o {
			if r == '\n' {
				return true
			}
		}
	}
	return false
}

// match reports whether s has the chain's literals in order.
func (c *regexChain) match(s string) bool {
	if !c.lines {
		return c.matchIn(s, true)
	}
	first := true
	for {
		line, rest, more := strings.Cut(s, "\n")
		if c.matchIn(line, first) {
			return true
		}
		if !more {
			return false
		}
		s, first = rest, false
	}
}

// matchIn matches the chain within seg, a whole line or the whole text (atText: seg starts the text). Taking each
// literal's first occurrence after the one before is enough: an occurrence that starts later ends later too, and
// leaves less room for the rest.
func (c *regexChain) matchIn(seg string, atText bool) bool {
	pos := 0
	for _, l := range c.lits {
		end := l.find(seg, pos, atText)
		if end < 0 {
			return false
		}
		pos = end
	}
	return true
}

// find returns the end of l's first occurrence in seg that starts at or after from and meets its anchor, or -1.
func (l chainLit) find(seg string, from int, atText bool) int {
	for from <= len(seg) {
		var at, end int
		switch {
		case l.textStart:
			if from != 0 || !atText {
				return -1
			}
			if end = l.matchAt(seg, 0); end < 0 {
				return -1
			}
			return end
		case l.fold == nil:
			i := strings.Index(seg[from:], l.s)
			if i < 0 {
				return -1
			}
			at, end = from+i, from+i+len(l.s)
		default:
			if at, end = l.foldIndex(seg, from); at < 0 {
				return -1
			}
		}
		if !l.lineStart || at == 0 || seg[at-1] == '\n' {
			return end
		}
		// Not at a line's start: go on from the next rune after at.
		_, n := utf8.DecodeRuneInString(seg[at:])
		from = at + n
	}
	return -1
}

// matchAt returns the end of l matched at i in seg, or -1.
func (l chainLit) matchAt(seg string, i int) int {
	if l.fold == nil {
		if strings.HasPrefix(seg[i:], l.s) {
			return i + len(l.s)
		}
		return -1
	}
	for _, orbit := range l.fold {
		if i >= len(seg) {
			return -1
		}
		r, n := utf8.DecodeRuneInString(seg[i:])
		if !inOrbit(orbit, r) {
			return -1
		}
		i += n
	}
	return i
}

// foldIndex returns where l's first occurrence at or after from starts and ends, or -1, -1.
func (l chainLit) foldIndex(seg string, from int) (int, int) {
	first := l.fold[0]
	for i := from; i < len(seg); {
		r, n := utf8.DecodeRuneInString(seg[i:])
		if inOrbit(first, r) {
			if end := l.matchAt(seg, i); end >= 0 {
				return i, end
			}
		}
		i += n
	}
	return -1, -1
}

// inOrbit reports whether r is one of orbit's runes.
func inOrbit(orbit []rune, r rune) bool {
	for _, o := range orbit {
		if o == r {
			return true
		}
	}
	return false
}

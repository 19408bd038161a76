package builtin

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	mrand "math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iri"
)

// ErrUnknownFunction is returned for a function name this package does not implement.
var ErrUnknownFunction = errors.New("sparql: unknown function")

// ErrTooLong reports a string CONCAT or REPLACE would build beyond Context.Room: not an expression error (the
// value would not be absent, it would exhaust the server), so the evaluator stops the query with its budget.
var ErrTooLong = errors.New("sparql: a computed string is longer than the query's memory budget allows")

// Context carries what a query's functions share: the query time (NOW is constant within a query), the base
// IRI for IRI(), a source of randomness, the per-solution blank-node minting of BNODE(), and compiled regexes.
// One Context serves one query on one goroutine.
type Context struct {
	Now  time.Time
	Base string
	// BNode returns the blank node for BNODE() (label "" and hasLabel false) or BNODE(label); the evaluator
	// scopes labels to one solution, as §17.4.2.9 requires.
	BNode func(label string, hasLabel bool) rdf.Term
	// Room is what the query may still hold, in bytes (nil: no bound). CONCAT and REPLACE are the functions whose
	// result can be many times their arguments' size (a chain of BIND(CONCAT(?x, ?x) AS ?y) doubles a label 30
	// times into 16 GiB), so they measure their result before building it and fail with ErrTooLong past Room:
	// the budget is charged only once a term is interned, too late for a string that large.
	Room func() int64
	// Stop reports the query's end (its time limit, a cancellation) to REPLACE, whose pass over a long string
	// checks it between matches, and to the compiling of a pattern; nil never stops.
	Stop   func() error
	rand   *mrand.Rand
	regexp map[string]regexEntry
	// regexpBytes is what the cached programs take; the cache is emptied before it passes regexCacheShare of
	// the room.
	regexpBytes int64
}

// NewContext returns a Context for a query started at now.
func NewContext(now time.Time, base string) *Context {
	var seed [16]byte
	_, _ = rand.Read(seed[:])
	n := 0
	return &Context{
		Now:  now,
		Base: base,
		rand: mrand.New(mrand.NewPCG(uint64(seed[0])|uint64(seed[1])<<8|uint64(seed[2])<<16|uint64(seed[3])<<24, uint64(now.UnixNano()))),
		BNode: func(label string, hasLabel bool) rdf.Term {
			n++
			return rdf.Blank(fmt.Sprintf("f%d", n))
		},
		regexp: map[string]regexEntry{},
	}
}

// Arity returns the minimum and maximum number of arguments of a built-in, ok false when name is unknown.
func Arity(name string) (lo, hi int, ok bool) {
	if strings.HasPrefix(name, xsd) {
		return 1, 1, IsCast(name)
	}
	a, ok := arity[name]
	return a[0], a[1], ok
}

var arity = map[string][2]int{
	"STR": {1, 1}, "LANG": {1, 1}, "LANGMATCHES": {2, 2}, "DATATYPE": {1, 1}, "IRI": {1, 1}, "URI": {1, 1},
	"BNODE": {0, 1}, "RAND": {0, 0}, "ABS": {1, 1}, "CEIL": {1, 1}, "FLOOR": {1, 1}, "ROUND": {1, 1},
	"CONCAT": {0, -1}, "STRLEN": {1, 1}, "UCASE": {1, 1}, "LCASE": {1, 1}, "ENCODE_FOR_URI": {1, 1},
	"CONTAINS": {2, 2}, "STRSTARTS": {2, 2}, "STRENDS": {2, 2}, "STRBEFORE": {2, 2}, "STRAFTER": {2, 2},
	"YEAR": {1, 1}, "MONTH": {1, 1}, "DAY": {1, 1}, "HOURS": {1, 1}, "MINUTES": {1, 1}, "SECONDS": {1, 1},
	"TIMEZONE": {1, 1}, "TZ": {1, 1}, "NOW": {0, 0}, "UUID": {0, 0}, "STRUUID": {0, 0}, "MD5": {1, 1},
	"SHA1": {1, 1}, "SHA256": {1, 1}, "SHA384": {1, 1}, "SHA512": {1, 1}, "STRLANG": {2, 2}, "STRDT": {2, 2},
	"SAMETERM": {2, 2}, "ISIRI": {1, 1}, "ISURI": {1, 1}, "ISBLANK": {1, 1}, "ISLITERAL": {1, 1},
	"ISNUMERIC": {1, 1}, "REGEX": {2, 3}, "SUBSTR": {2, 3}, "REPLACE": {3, 4},
}

// Call evaluates a built-in function on already evaluated arguments. name is the upper-case SPARQL keyword
// (e.g. "STRLEN") or, for casts, the full XSD datatype IRI. BOUND, IF, COALESCE, IN and EXISTS need unevaluated
// arguments and belong to the evaluator.
func (c *Context) Call(name string, args []rdf.Term) (rdf.Term, error) {
	if strings.HasPrefix(name, xsd) {
		if len(args) != 1 {
			return rdf.Term{}, ErrType
		}
		return Cast(name, args[0])
	}
	lo, hi, ok := Arity(name)
	if !ok {
		return rdf.Term{}, fmt.Errorf("%w: %s", ErrUnknownFunction, name)
	}
	if len(args) < lo || (hi >= 0 && len(args) > hi) {
		return rdf.Term{}, ErrType
	}
	for _, a := range args {
		if a.IsZero() {
			return rdf.Term{}, ErrType // an unbound argument is an error for every function here
		}
	}
	switch name {
	case "STR":
		switch args[0].Kind {
		case rdf.KindIRI, rdf.KindLiteral:
			return rdf.String(args[0].Value), nil
		}
		return rdf.Term{}, ErrType
	case "LANG":
		if args[0].Kind != rdf.KindLiteral {
			return rdf.Term{}, ErrType
		}
		return rdf.String(args[0].Lang), nil
	case "LANGMATCHES":
		if !isStringLike(args[0]) || !isStringLike(args[1]) {
			return rdf.Term{}, ErrType
		}
		return Boolean(langMatches(args[0].Value, args[1].Value)), nil
	case "DATATYPE":
		if args[0].Kind != rdf.KindLiteral {
			return rdf.Term{}, ErrType
		}
		return rdf.IRI(args[0].Datatype), nil
	case "IRI", "URI":
		switch a := args[0]; {
		case a.Kind == rdf.KindIRI:
			return a, nil
		case isStringLike(a):
			s, err := iri.Resolve(c.Base, a.Value)
			if err != nil {
				if iri.IsAbsolute(a.Value) {
					return rdf.IRI(a.Value), nil
				}
				return rdf.Term{}, ErrType
			}
			return rdf.IRI(s), nil
		}
		return rdf.Term{}, ErrType
	case "BNODE":
		if len(args) == 0 {
			return c.BNode("", false), nil
		}
		if !isStringLike(args[0]) {
			return rdf.Term{}, ErrType
		}
		return c.BNode(args[0].Value, true), nil
	case "RAND":
		return rdf.Literal(formatDouble(c.rand.Float64(), 64), rdf.XSDDouble), nil
	case "ABS", "CEIL", "FLOOR", "ROUND":
		return rounding(name, args[0])
	case "CONCAT":
		return c.concat(args)
	case "STRLEN":
		if !isString(args[0]) {
			return rdf.Term{}, ErrType
		}
		return Integer(int64(utf8.RuneCountInString(args[0].Value))), nil
	case "UCASE", "LCASE":
		if !isString(args[0]) {
			return rdf.Term{}, ErrType
		}
		out := args[0]
		out.Value = mapCase(out.Value, name == "UCASE")
		return out, nil
	case "ENCODE_FOR_URI":
		if !isString(args[0]) {
			return rdf.Term{}, ErrType
		}
		return rdf.String(encodeForURI(args[0].Value)), nil
	case "CONTAINS", "STRSTARTS", "STRENDS", "STRBEFORE", "STRAFTER":
		return stringPair(name, args[0], args[1])
	case "YEAR", "MONTH", "DAY", "HOURS", "MINUTES", "SECONDS", "TIMEZONE", "TZ":
		return dateField(name, args[0])
	case "NOW":
		return FormatNow(c.Now), nil
	case "UUID":
		return rdf.IRI("urn:uuid:" + newUUID()), nil
	case "STRUUID":
		return rdf.String(newUUID()), nil
	case "MD5", "SHA1", "SHA256", "SHA384", "SHA512":
		if !isStringLike(args[0]) {
			return rdf.Term{}, ErrType
		}
		return rdf.String(digestHex(name, args[0].Value)), nil
	case "STRLANG":
		if !isStringLike(args[0]) || !isStringLike(args[1]) || !validLangTag(args[1].Value) {
			return rdf.Term{}, ErrType
		}
		return rdf.LangString(args[0].Value, args[1].Value), nil
	case "STRDT":
		if !isStringLike(args[0]) || args[1].Kind != rdf.KindIRI || args[1].Value == rdf.RDFLangString {
			return rdf.Term{}, ErrType
		}
		return rdf.Literal(args[0].Value, args[1].Value), nil
	case "SAMETERM":
		return Boolean(SameTerm(args[0], args[1])), nil
	case "ISIRI", "ISURI":
		return Boolean(args[0].Kind == rdf.KindIRI), nil
	case "ISBLANK":
		return Boolean(args[0].Kind == rdf.KindBlank), nil
	case "ISLITERAL":
		return Boolean(args[0].Kind == rdf.KindLiteral), nil
	case "ISNUMERIC":
		return Boolean(IsNumeric(args[0])), nil
	case "REGEX":
		return c.regex(args)
	case "SUBSTR":
		return substr(args)
	case "REPLACE":
		return c.replace(args)
	}
	return rdf.Term{}, fmt.Errorf("%w: %s", ErrUnknownFunction, name)
}

// isString reports a string literal in SPARQL's sense: simple, xsd:string or language-tagged.
func isString(t rdf.Term) bool {
	return t.Kind == rdf.KindLiteral && (t.Datatype == rdf.XSDString || t.Datatype == rdf.RDFLangString)
}

func validLangTag(s string) bool {
	if s == "" {
		return false
	}
	for i, part := range strings.Split(s, "-") {
		if part == "" || len(part) > 8 {
			return false
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

// langMatches implements RFC 4647 basic filtering as §17.4.3.2 uses it.
// LangMatches is langMatches(tag, range) of two strings (§17.4.3.3, RFC 4647 basic filtering).
func LangMatches(tag, rng string) bool { return langMatches(tag, rng) }

func langMatches(tag, rng string) bool {
	if rng == "*" {
		return tag != ""
	}
	tag, rng = strings.ToLower(tag), strings.ToLower(rng)
	return tag == rng || strings.HasPrefix(tag, rng+"-")
}

func rounding(name string, a rdf.Term) (rdf.Term, error) {
	if w, ok := toWide(a); ok {
		if f, ok := w.fixed(); ok {
			if t, ok := f.round(name); ok {
				return t, nil
			}
		}
		if t, ok := w.round(name); ok {
			return t, nil
		}
	}
	return roundingBig(name, a)
}

func roundingBig(name string, a rdf.Term) (rdf.Term, error) {
	n, ok := toNum(a)
	if !ok {
		return rdf.Term{}, ErrType
	}
	if n.kind >= kFloat {
		switch name {
		case "ABS":
			n.f = math.Abs(n.f)
		case "CEIL":
			n.f = math.Ceil(n.f)
		case "FLOOR":
			n.f = math.Floor(n.f)
		case "ROUND":
			n.f = math.Floor(n.f + 0.5) // fn:round: halves go toward positive infinity
		}
		return n.term(), nil
	}
	r := new(big.Rat).Set(n.r)
	switch name {
	case "ABS":
		r.Abs(r)
	case "CEIL":
		r.SetInt(ceilRat(r))
	case "FLOOR":
		r.SetInt(floorRat(r))
	case "ROUND":
		r.SetInt(floorRat(new(big.Rat).Add(r, big.NewRat(1, 2))))
	}
	n.r = r
	return n.term(), nil
}

func floorRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int)) // Euclidean: floor for positive denominators
	_ = m
	return q
}

func ceilRat(r *big.Rat) *big.Int {
	f := floorRat(r)
	if !r.IsInt() {
		f.Add(f, big.NewInt(1))
	}
	return f
}

// fits reports whether a string of n bytes stays within the query's room.
func (c *Context) fits(n int64) bool { return c.Room == nil || n <= c.Room() }

func (c *Context) concat(args []rdf.Term) (rdf.Term, error) {
	lang, sameLang, n := "", true, int64(0)
	for i, a := range args {
		if !isString(a) {
			return rdf.Term{}, ErrType
		}
		if i == 0 {
			lang = a.Lang
		} else if !strings.EqualFold(a.Lang, lang) {
			sameLang = false
		}
		n += int64(len(a.Value))
	}
	if !c.fits(n) {
		return rdf.Term{}, ErrTooLong
	}
	var b strings.Builder
	b.Grow(int(n))
	for _, a := range args {
		b.WriteString(a.Value)
	}
	if len(args) > 0 && sameLang && lang != "" {
		return rdf.LangString(b.String(), lang), nil
	}
	return rdf.String(b.String()), nil
}

func encodeForURI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// compatible implements argument compatibility (§17.4.3.1.1).
func compatible(a, b rdf.Term) bool {
	if !isString(a) || !isString(b) {
		return false
	}
	return b.Lang == "" || strings.EqualFold(a.Lang, b.Lang)
}

func stringPair(name string, a, b rdf.Term) (rdf.Term, error) {
	if !compatible(a, b) {
		return rdf.Term{}, ErrType
	}
	switch name {
	case "CONTAINS":
		return Boolean(strings.Contains(a.Value, b.Value)), nil
	case "STRSTARTS":
		return Boolean(strings.HasPrefix(a.Value, b.Value)), nil
	case "STRENDS":
		return Boolean(strings.HasSuffix(a.Value, b.Value)), nil
	}
	i := strings.Index(a.Value, b.Value)
	if i < 0 {
		return rdf.String(""), nil
	}
	out := a
	if name == "STRBEFORE" {
		out.Value = a.Value[:i]
	} else {
		out.Value = a.Value[i+len(b.Value):]
	}
	return out, nil
}

func substr(args []rdf.Term) (rdf.Term, error) {
	s := args[0]
	if !isString(s) {
		return rdf.Term{}, ErrType
	}
	start, ok := numFloat(args[1])
	if !ok {
		return rdf.Term{}, ErrType
	}
	length, hasLen := 0.0, len(args) == 3
	if hasLen {
		l, ok := numFloat(args[2])
		if !ok {
			return rdf.Term{}, ErrType
		}
		length = l
	}
	s.Value = Substring(s.Value, start, length, hasLen)
	return s, nil
}

// Substring is fn:substring of s from the character at start, length characters long when hasLen (else to the
// end): characters at positions p with round(start) <= p < round(start) + round(length). Invalid UTF-8 becomes
// U+FFFD, as a conversion to runes makes it. SUBSTR's arguments are checked by the caller.
func Substring(s string, start, length float64, hasLen bool) string {
	st := xpathRound(start)
	end := math.Inf(1)
	if hasLen {
		end = st + xpathRound(length)
	}
	// The characters kept are one run of the string: slice it, walking only as far as its end (SUBSTR of the first
	// characters of a long text read the whole text as runes before).
	from, to, p := -1, len(s), 0
	for i := range s {
		p++
		if float64(p) >= end {
			to = i
			break
		}
		if from < 0 && float64(p) >= st && float64(p) < end { // false for NaN bounds, as in fn:substring
			from = i
		}
	}
	if from < 0 {
		return ""
	}
	sub := s[from:to]
	if !utf8.ValidString(sub) {
		var b strings.Builder
		for _, r := range sub {
			b.WriteRune(r)
		}
		sub = b.String()
	}
	return sub
}

// numFloat is a numeric argument as the nearest double: integers and decimals that fit an int64 without big
// numbers (SUBSTR(?s, 1, 4) per row parsed both into big.Rat), others through toNum.
func numFloat(t rdf.Term) (float64, bool) {
	if f, ok := toFixed(t); ok {
		if x, ok := f.float(); ok {
			return x, true
		}
	}
	n, ok := toNum(t)
	if !ok {
		return 0, false
	}
	return n.float(), true
}

func xpathRound(f float64) float64 { return math.Floor(f + 0.5) }

// compileRegex translates XPath flags and character-class escapes and caches the compiled expression. Go's RE2
// syntax covers the XPath regular expressions in practical use; constructs it lacks (back-references, class
// subtraction, \i and \c) are reported as errors.
func (c *Context) compileRegex(pattern, flags string) (*regexp.Regexp, error) {
	r, err := c.compileEntry(pattern, flags)
	return r.re, err
}

// regexEntry is a compiled pattern and the literals one of which each of its matches contains (needOf).
type regexEntry struct {
	re    *regexp.Regexp
	need  regexNeed
	chain *regexChain // the pattern as a chain of literals (regexchain.go), or nil
}

// compileEntry is compileRegex with the pattern's literals.
func (c *Context) compileEntry(pattern, flags string) (regexEntry, error) {
	key := flags + "\x00" + pattern
	if r, ok := c.regexp[key]; ok {
		return r, nil
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i':
			prefix += "i"
		case 's':
			prefix += "s"
		case 'm':
			prefix += "m"
		case 'x':
			pattern = stripRegexWhitespace(pattern)
		case 'q':
			pattern = regexp.QuoteMeta(pattern)
		default:
			return regexEntry{}, ErrType
		}
	}
	if !strings.Contains(flags, "q") {
		pattern = xpathEscapes(pattern)
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	// A pattern of a few bytes can compile to a program of 128 MiB (counted repeats, Unicode classes), and a
	// pattern built per row (CONCAT(?label, "){30}")) compiles once per distinct value: a query took an
	// ldhub serve to 1.2 GB so. The program is measured before the compiled expression is made and kept, and the
	// cache holds at most a share of the room.
	// Compiling is the cost of a pattern built per row, and the evaluator checks its time limit only every 1024
	// rows: 11 s past the limit at 10 ms a pattern.
	if c.Stop != nil {
		if err := c.Stop(); err != nil {
			return regexEntry{}, err
		}
	}
	size, err := programBytes(pattern)
	if err != nil {
		return regexEntry{}, ErrType
	}
	if !c.fits(size) {
		return regexEntry{}, ErrTooLong
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return regexEntry{}, ErrType
	}
	if len(c.regexp) >= 1000 || c.Room != nil && c.regexpBytes+size > c.Room()/regexCacheShare {
		clear(c.regexp) // patterns built from data could grow the cache without bound
		c.regexpBytes = 0
	}
	r := regexEntry{re: re, need: needOf(pattern), chain: chainOf(pattern)}
	c.regexp[key] = r
	c.regexpBytes += size
	return r, nil
}

// instBytes is a syntax.Inst on a 64-bit machine: Op, Out, Arg and the Rune slice's header.
const instBytes = 40

// regexCacheShare: the compiled expressions a query keeps take at most 1/regexCacheShare of its room.
const regexCacheShare = 8

// programBytes is what the compiled program of pattern (Go syntax) takes: its instructions and their runes, as
// regexp.Compile makes them (parse, simplify, compile), which is most of what a compiled expression holds.
func programBytes(pattern string) (int64, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return 0, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0, err
	}
	n := int64(len(prog.Inst)) * instBytes
	for i := range prog.Inst {
		n += 4 * int64(len(prog.Inst[i].Rune))
	}
	return n + int64(len(pattern)), nil
}

// xpathEscapes rewrites the multi-character escapes whose XPath meaning differs from RE2's: XPath's \w, \W and
// \d are Unicode (\w is every character outside punctuation, separators and "other", so "Größe" is one word, as
// for Oxigraph), RE2's are ASCII; XPath's \s is space, tab, CR and LF only, RE2's also form feed. Escapes inside
// a character class expand to the class items, which RE2 accepts there.
func xpathEscapes(p string) string {
	if !strings.ContainsRune(p, '\\') {
		return p
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		case c == '\\' && i+1 < len(p):
			i++
			items, class := "", ""
			switch p[i] {
			case 'w':
				items = `\p{L}\p{M}\p{N}\p{S}`
			case 'W':
				items = `\p{P}\p{Z}\p{C}`
			case 'd':
				items = `\p{Nd}`
			case 'D':
				class = `\P{Nd}`
			case 's':
				items = `\x20\t\n\r`
			case 'S':
				if !inClass {
					class = `[^\x20\t\n\r]`
				}
			}
			switch {
			case items != "" && inClass:
				b.WriteString(items)
			case items != "":
				b.WriteString("[" + items + "]")
			case class != "":
				b.WriteString(class)
			default:
				b.WriteByte('\\')
				b.WriteByte(p[i])
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func stripRegexWhitespace(p string) string {
	var b strings.Builder
	inClass := false
	for _, r := range p {
		switch {
		case r == '[':
			inClass = true
		case r == ']':
			inClass = false
		case !inClass && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (c *Context) regex(args []rdf.Term) (rdf.Term, error) {
	if !isString(args[0]) || !isStringLike(args[1]) {
		return rdf.Term{}, ErrType
	}
	flags := ""
	if len(args) == 3 {
		if !isStringLike(args[2]) {
			return rdf.Term{}, ErrType
		}
		flags = args[2].Value
	}
	r, err := c.compileEntry(args[1].Value, flags)
	if err != nil {
		return rdf.Term{}, err
	}
	if !r.need.mayMatch(args[0].Value) {
		return Boolean(false), nil
	}
	if r.chain != nil {
		return Boolean(r.chain.match(args[0].Value)), nil
	}
	return Boolean(r.re.MatchString(args[0].Value)), nil
}

func (c *Context) replace(args []rdf.Term) (rdf.Term, error) {
	if !isString(args[0]) || !isStringLike(args[1]) || !isStringLike(args[2]) {
		return rdf.Term{}, ErrType
	}
	flags := ""
	if len(args) == 4 {
		if !isStringLike(args[3]) {
			return rdf.Term{}, ErrType
		}
		flags = args[3].Value
	}
	re, err := c.compileRegex(args[1].Value, flags)
	if err != nil {
		return rdf.Term{}, err
	}
	if re.MatchString("") {
		return rdf.Term{}, ErrType // XPath err:FORX0003: a pattern that matches the empty string
	}
	repl, err := xpathReplacement(args[2].Value, strings.Contains(flags, "q"))
	if err != nil {
		return rdf.Term{}, err
	}
	switch ok, err := c.replacementFits(re, args[0].Value, repl); {
	case err != nil:
		return rdf.Term{}, err
	case !ok:
		return rdf.Term{}, ErrTooLong
	}
	out := args[0]
	out.Value = re.ReplaceAllString(args[0].Value, repl)
	return out, nil
}

// replacementFits reports whether replacing re's matches in s by the Go template repl stays within the query's
// room. Matches do not overlap and cannot be empty (replace refuses such patterns), so a group reference expands
// to at most its match: the result is at most len(s) plus, per match, the template's literal bytes and its
// references times the match's length. That bound, from the whole of s, answers most calls at once; when it is
// too large, a pass over the matches sums the bound match by match.
func (c *Context) replacementFits(re *regexp.Regexp, s, repl string) (bool, error) {
	if c.Room == nil && (c.Stop == nil || len(s) < longReplace) {
		return true, nil
	}
	lit, refs := int64(0), int64(0)
	for i := 0; i < len(repl); i++ {
		switch {
		case strings.HasPrefix(repl[i:], "$$"):
			lit++
			i++
		case strings.HasPrefix(repl[i:], "${"):
			refs++
			i += strings.IndexByte(repl[i:], '}')
		default:
			lit++
		}
	}
	room, n := int64(math.MaxInt64), int64(len(s))
	if c.Room != nil {
		room = c.Room()
	}
	if n > room {
		return false, nil
	}
	// float: refs·n² overflows int64. A long string is passed over anyway, so that the time limit can stop it.
	if float64(n)*(1+float64(lit)+float64(refs)*float64(n)) <= float64(room) && (c.Stop == nil || n < longReplace) {
		return true, nil
	}
	size := n
	err := c.eachMatch(re, s, func(m string) { size += lit + (refs-1)*int64(len(m)) })
	return size <= room, err
}

// longReplace is the length from which REPLACE passes over the matches, checking Stop, before replacing them:
// the replacement itself (regexp's, for group references) cannot be stopped, so it only runs after a pass that
// the time limit could stop, and takes about as long.
const longReplace = 64 << 10

// stopped carries the query's end out of a pass over the matches of a string.
type stopped struct{ err error }

// eachMatch calls f with every match of re in s, checking the query's end (Stop) every 1024 matches: a REPLACE
// over a long string takes seconds, and nested ones minutes, past the time limit. It panics out of regexp's loop
// (between matches, when regexp holds no state of its own) and recovers here.
func (c *Context) eachMatch(re *regexp.Regexp, s string, f func(m string)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			st, ok := r.(stopped)
			if !ok {
				panic(r)
			}
			err = st.err
		}
	}()
	n := 0
	re.ReplaceAllStringFunc(s, func(m string) string {
		if n++; n%1024 == 0 && c.Stop != nil {
			if err := c.Stop(); err != nil {
				panic(stopped{err})
			}
		}
		f(m)
		return ""
	})
	return nil
}

// xpathReplacement turns XPath's replacement syntax ($1, \$, \\) into Go's (${1}, $$, \).
func xpathReplacement(s string, literal bool) (string, error) {
	if literal {
		return strings.ReplaceAll(s, "$", "$$"), nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) || (s[i+1] != '\\' && s[i+1] != '$') {
				return "", ErrType
			}
			i++
			if s[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte('\\')
			}
		case '$':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j == i+1 {
				return "", ErrType
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// mapCase is fn:upper-case / fn:lower-case: Unicode's full case mapping (SpecialCasing: "ß" is "SS", "ŉ" is "ʼN",
// a final sigma lower-cases to "ς"), not language-sensitive. Go's strings.ToUpper maps rune by rune, so it is
// used for ASCII only, where both agree; text in the Latin blocks goes through caseTables, the rest through
// x/text's Caser.
func mapCase(s string, upper bool) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	switch {
	case ascii && upper:
		return strings.ToUpper(s)
	case ascii:
		return strings.ToLower(s)
	}
	tab := &caseTables[0]
	if upper {
		tab = &caseTables[1]
	}
	// Up to the first rune the mapping changes the text is copied as is; a text without one (Japanese, or already in
	// that case) is the answer itself, without building anything.
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if rune(c) != tab[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r >= simpleCaseEnd && !caseless(r) || r < simpleCaseEnd && tab[r] != r {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			b.WriteByte(byte(tab[c]))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r < simpleCaseEnd && tab[r] < 0 { // a full mapping to several runes ("ß" to "SS")
			b.WriteString(caseExpansions[r])
			i += n
			continue
		}
		if r >= simpleCaseEnd && caseless(r) { // punctuation, CJK, …: itself either way
			b.WriteRune(r)
			i += n
			continue
		}
		if r >= simpleCaseEnd {
			// A rune whose full mapping may differ from its simple one (or invalid UTF-8): x/text's Caser, one
			// per call since it keeps state between calls.
			if upper {
				return cases.Upper(language.Und).String(s)
			}
			return cases.Lower(language.Und).String(s)
		}
		b.WriteRune(tab[r])
		i += n
	}
	return b.String()
}

// AppendLower appends LCASE's value of s to dst where mapCase maps every rune of s by itself: ASCII, the runes
// below simpleCaseEnd that map to one rune, and caseless runes. ok is false for any other text (a rune whose
// lower case is several, one past the Latin blocks that is not caseless, invalid UTF-8): the caller then calls
// LCASE. A filter testing the lower-cased text of every row (CONTAINS(LCASE(?text), "word")) needs no string of
// its own per row so.
func AppendLower(dst []byte, s string) (out []byte, ok bool) {
	tab := &caseTables[0]
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, byte(tab[c]))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return dst, false
		case r < simpleCaseEnd && tab[r] >= 0:
			dst = utf8.AppendRune(dst, tab[r])
		case r >= simpleCaseEnd && caseless(r):
			dst = append(dst, s[i:i+n]...)
		default:
			return dst, false
		}
		i += n
	}
	return dst, true
}

// simpleCaseEnd bounds the runes mapCase maps itself: below it (the Latin blocks most text is written in) a rune's
// full case mapping does not depend on context, and is its simple one-rune mapping except for the runes
// SpecialCasing maps to several (ß, ŉ and ǰ to upper case; İ to lower case), marked -1 in caseTables and mapped
// by caseExpansions. x/text's Caser is several times
// slower than a table, and LCASE over long texts spent most of its time in it. TestMapCaseMatchesCases checks every
// rune below the bound and random strings of them against the Caser.
const simpleCaseEnd = 0x250

// caseTables are the lower-case (0) and upper-case (1) mappings of the runes below simpleCaseEnd.
var caseTables = func() (t [2][simpleCaseEnd]rune) {
	for r := rune(0); r < simpleCaseEnd; r++ {
		t[0][r], t[1][r] = unicode.ToLower(r), unicode.ToUpper(r)
	}
	t[0][0x130] = -1
	for _, r := range []rune{0xDF, 0x149, 0x1F0} {
		t[1][r] = -1
	}
	return
}()

// caseExpansions are the unconditional SpecialCasing mappings below simpleCaseEnd (each rune maps one way only).
var caseExpansions = map[rune]string{0xDF: "SS", 0x149: "\u02BCN", 0x1F0: "J\u030C", 0x130: "i\u0307"}

// caseless reports a rune that maps to itself in any context: general punctuation (typographic quotes and dashes,
// which would otherwise send a whole Latin text to the Caser) and the CJK blocks up to U+9FFF, which have no case.
func caseless(r rune) bool {
	return r >= 0x2000 && r < 0x2070 || r >= 0x3000 && r < 0xA000
}

// digestHex is the lower-case hex of a digest of s (MD5, SHA1, SHA256, SHA384 or SHA512). The one-shot sums keep the
// digest on the stack and the text is copied into a stack buffer when short: per solution (a hash as a GROUP BY
// key over every label) the only allocation left is the answer's string, where a hash.Hash, its Sum and
// hex.EncodeToString cost three more.
func digestHex(name, s string) string {
	var in [256]byte
	b := append(in[:0], s...)
	var sum [sha512.Size]byte
	var d []byte
	switch name {
	case "MD5":
		x := md5.Sum(b)
		d = append(sum[:0], x[:]...)
	case "SHA1":
		x := sha1.Sum(b)
		d = append(sum[:0], x[:]...)
	case "SHA256":
		x := sha256.Sum256(b)
		d = append(sum[:0], x[:]...)
	case "SHA384":
		x := sha512.Sum384(b)
		d = append(sum[:0], x[:]...)
	default:
		x := sha512.Sum512(b)
		d = append(sum[:0], x[:]...)
	}
	var out [2 * sha512.Size]byte
	n := hex.Encode(out[:], d)
	return string(out[:n])
}

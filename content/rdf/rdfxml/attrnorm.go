package rdfxml

// attrNormalizer applies XML 1.0 §3.3.3 attribute-value normalisation for CDATA attributes, which encoding/xml
// skips: a literal tab, newline or carriage return (CRLF counting as one) inside an attribute value becomes a space,
// while the same characters written as character references (&#10;) are kept. Only the raw bytes can tell the two
// apart, so this runs on the byte stream before encoding/xml sees it, following just enough of the XML lexical
// structure (tags, comments, processing instructions, CDATA sections, the DOCTYPE and its internal subset) to know
// when a byte is inside a quoted attribute value. Outside attribute values bytes pass unchanged.
type attrNormalizer struct {
	st     lexState
	quote  byte   // closing quote of the current quoted string
	run    int    // consecutive '-', ']' or '?' just seen, to find "-->", "]]>" and "?>"
	dropLF bool   // the previous byte was a CR inside an attribute value, translated to the space for a CRLF pair
	bad    string // a well-formedness error encoding/xml lets through, found while following the structure
}

type lexState uint8

const (
	lxText      lexState = iota
	lxLT                 // after '<'
	lxTag                // inside a start tag, outside attribute values
	lxAttr               // inside a quoted attribute value of a start tag
	lxAfterAttr          // just after an attribute value: XML requires white space, '/' or '>' next
	lxEndTag
	lxPI
	lxBang         // after "<!"
	lxComment0     // after "<!-"
	lxComment      // inside <!-- -->
	lxCDATA        // inside <![CDATA[ ]]>
	lxDoctype      // inside <!DOCTYPE ... >, outside the internal subset
	lxDoctypeQuote // quoted system or public literal of the DOCTYPE
	lxSubset       // inside the internal subset [...]
	lxSubsetQuote  // quoted string in a markup declaration
	lxSubsetLT     // after '<' in the internal subset
	lxSubsetBang   // after "<!" in the internal subset
	lxSubsetComm   // comment in the internal subset
	lxSubsetPI     // processing instruction in the internal subset
)

// next returns the byte to hand to encoding/xml for raw byte b, and false when b is to be dropped.
func (a *attrNormalizer) next(b byte) (byte, bool) {
	if a.dropLF {
		a.dropLF = false
		if b == '\n' && a.st == lxAttr {
			return 0, false
		}
	}
	switch a.st {
	case lxText:
		if b == '<' {
			a.st = lxLT
		}
	case lxLT:
		switch b {
		case '/':
			a.st = lxEndTag
		case '!':
			a.st = lxBang
		case '?':
			a.st, a.run = lxPI, 0
		default:
			a.st = lxTag
		}
	case lxTag:
		switch b {
		case '"', '\'':
			a.st, a.quote = lxAttr, b
		case '>':
			a.st = lxText
		}
	case lxAfterAttr:
		switch b {
		case ' ', '\t', '\n', '\r', '/':
			a.st = lxTag
		case '>':
			a.st = lxText
		default:
			a.bad = "attributes must be separated by white space"
		}
	case lxAttr:
		switch b {
		case a.quote:
			a.st = lxAfterAttr
		case '\t', '\n':
			return ' ', true
		case '\r':
			a.dropLF = true
			return ' ', true
		}
	case lxEndTag:
		if b == '>' {
			a.st = lxText
		}
	case lxPI, lxSubsetPI:
		switch {
		case b == '?':
			a.run = 1
		case b == '>' && a.run == 1:
			if a.st == lxPI {
				a.st = lxText
			} else {
				a.st = lxSubset
			}
		default:
			a.run = 0
		}
	case lxBang:
		switch b {
		case '-':
			a.st = lxComment0
		case '[':
			a.st, a.run = lxCDATA, 0
		default:
			a.st = lxDoctype
		}
	case lxComment0:
		a.st, a.run = lxComment, 0
	case lxComment, lxSubsetComm:
		switch {
		case b == '-':
			a.run++
		case b == '>' && a.run >= 2:
			if a.st == lxComment {
				a.st = lxText
			} else {
				a.st = lxSubset
			}
		default:
			a.run = 0
		}
	case lxCDATA:
		switch {
		case b == ']':
			a.run++
		case b == '>' && a.run >= 2:
			a.st = lxText
		default:
			a.run = 0
		}
	case lxDoctype:
		switch b {
		case '"', '\'':
			a.st, a.quote = lxDoctypeQuote, b
		case '[':
			a.st = lxSubset
		case '>':
			a.st = lxText
		}
	case lxDoctypeQuote:
		if b == a.quote {
			a.st = lxDoctype
		}
	case lxSubset:
		switch b {
		case '"', '\'':
			a.st, a.quote = lxSubsetQuote, b
		case '<':
			a.st = lxSubsetLT
		case ']':
			a.st = lxDoctype
		}
	case lxSubsetQuote:
		if b == a.quote {
			a.st = lxSubset
		}
	case lxSubsetLT:
		switch b {
		case '!':
			a.st = lxSubsetBang
		case '?':
			a.st, a.run = lxSubsetPI, 0
		default:
			a.st = lxSubset
		}
	case lxSubsetBang:
		if b == '-' {
			// "<!-" can only start a comment; the second '-' is counted by the comment state and does not
			// close anything because "-->" needs two more dashes after it.
			a.st, a.run = lxSubsetComm, -1
		} else {
			a.st = lxSubset // a markup declaration: its quoted strings are tracked by lxSubset
		}
	}
	return b, true
}

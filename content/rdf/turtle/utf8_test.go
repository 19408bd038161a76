package turtle

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/rdftest"
)

// utf8Places puts X in every kind of token and between tokens. The first line (a comment with a valid non-ASCII
// character) checks that the position is counted in lines and characters, not bytes.
var utf8Places = []struct{ name, doc string }{
	{"IRI", "<http://a/X> <http://a/p> <http://a/o> ."},
	{"relative IRI", "<X> <http://a/p> <http://a/o> ."},
	{"IRI with escape", "<http://a/\\u00e9X> <http://a/p> <http://a/o> ."},
	{"prefix name", "@prefix pX: <http://a/> ."},
	{"prefix name start", "PREFIX X: <http://a/>"},
	{"local name start", "@prefix p: <http://a/> .\np:X <http://a/p> <http://a/o> ."},
	{"local name end", "@prefix p: <http://a/> .\np:aX <http://a/p> <http://a/o> ."},
	{"local name middle", "@prefix p: <http://a/> .\n<http://a/s> <http://a/p> p:aXb ."},
	{"local name after non-ASCII", "@prefix p: <http://a/> .\n<http://a/s> <http://a/p> p:éX ."},
	{"local name after dot", "@prefix p: <http://a/> .\n<http://a/s> <http://a/p> p:a.X ."},
	{"local name after escape", "@prefix p: <http://a/> .\n<http://a/s> <http://a/p> p:a\\-X ."},
	{"predicate name", "@prefix p: <http://a/> .\n<http://a/s> p:pX <http://a/o> ."},
	{"datatype name", "@prefix p: <http://a/> .\n<http://a/s> <http://a/p> \"1\"^^p:tX ."},
	{"blank node label", "_:bX <http://a/p> <http://a/o> ."},
	{"blank node label start", "_:X <http://a/p> <http://a/o> ."},
	{"short string", "<http://a/s> <http://a/p> \"aX\" ."},
	{"short string after escape", "<http://a/s> <http://a/p> 'a\\tX' ."},
	{"long string", "<http://a/s> <http://a/p> \"\"\"a\nbX\"\"\" ."},
	{"long single-quoted string", "<http://a/s> <http://a/p> '''X''' ."},
	{"language tag", "<http://a/s> <http://a/p> \"a\"@enX ."},
	{"comment", "# cX\n<http://a/s> <http://a/p> <http://a/o> ."},
	{"comment after statement", "<http://a/s> <http://a/p> <http://a/o> . # cX"},
	{"comment inside statement", "<http://a/s> <http://a/p> # X\n <http://a/o> ."},
	{"between tokens", "<http://a/s> <http://a/p> <http://a/o> X."},
	{"statement start", "X <http://a/p> <http://a/o> ."},
}

// TestInvalidUTF8 requires every non-UTF-8 byte sequence, wherever it stands, to be a syntax error of the right
// syntax that names UTF-8 and points at the first bad byte, however the input is cut into reads.
func TestInvalidUTF8(t *testing.T) {
	dialects := []struct {
		syntax string
		new    func(io.Reader, rdf.DecodeOptions) *Decoder
	}{{"turtle", NewDecoder}, {"trig", NewTriGDecoder}, {"n3", NewN3Decoder}}
	const head = "# Übersicht ✓\n"
	for _, pl := range utf8Places {
		for _, c := range rdftest.Cases(head + pl.doc) {
			for _, dl := range dialects {
				for _, oneByte := range []bool{false, true} {
					var r io.Reader = strings.NewReader(c.In)
					if oneByte {
						r = iotest.OneByteReader(r)
					}
					got, err := decodeAll(t, dl.new(r, opts()))
					rdftest.CheckError(t, fmt.Sprintf("%s, %s (one byte reads: %v)", pl.name, dl.syntax, oneByte), dl.syntax, c, got, err)
					for _, q := range got {
						if !utf8.ValidString(q) {
							t.Errorf("%s, %s: quad %q before the error is not UTF-8", pl.name, c.Bad.Name, q)
						}
					}
				}
			}
		}
	}
}

// TestValidNonASCII keeps the check honest: well-formed characters of every length, including U+FFFD itself and
// the last code points before and after the surrogates, pass in every place the invalid ones are refused.
func TestValidNonASCII(t *testing.T) {
	for _, ok := range []string{"é", "✓", "\uFFFD", "\U0001F600", "\uD7FF", "\uE000", "\U000EFFFF"} {
		for _, pl := range utf8Places {
			if pl.name == "between tokens" || pl.name == "statement start" || pl.name == "language tag" ||
				pl.name == "prefix name start" || pl.name == "blank node label start" || pl.name == "local name start" {
				continue // the grammar refuses characters there anyway
			}
			doc := strings.Replace(pl.doc, "X", ok, 1)
			if (strings.Contains(pl.name, "name") || strings.Contains(pl.name, "label")) && !isCharsRune([]rune(ok)[0]) {
				continue
			}
			for _, nd := range []func(io.Reader, rdf.DecodeOptions) *Decoder{NewDecoder, NewTriGDecoder, NewN3Decoder} {
				if _, err := decodeAll(t, nd(iotest.OneByteReader(strings.NewReader(doc)), opts())); err != nil {
					t.Errorf("%s with %q: %v", pl.name, ok, err)
				}
			}
		}
	}
}

package builtin

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

// TestDigestsMatchStreamingHash checks the one-shot digests against the streaming hash.Hash they replaced, on
// texts short enough for the stack buffer and longer, ASCII and not (ß, İ, ς, an astral character), and that the
// functions still refuse what is not a simple or xsd:string literal.
func TestDigestsMatchStreamingHash(t *testing.T) {
	makers := map[string]func() hash.Hash{
		"MD5": md5.New, "SHA1": sha1.New, "SHA256": sha256.New, "SHA384": sha512.New384, "SHA512": sha512.New,
	}
	texts := []string{"", "abc", "Straße", "İstanbul", "ὀδυσσεύς", "a\U0001F600b", strings.Repeat("x", 255),
		strings.Repeat("y", 256), strings.Repeat("zß", 300)}
	c := &Context{}
	for name, mk := range makers {
		for _, s := range texts {
			h := mk()
			h.Write([]byte(s))
			want := rdf.String(hex.EncodeToString(h.Sum(nil)))
			for _, arg := range []rdf.Term{rdf.String(s), rdf.Literal(s, rdf.XSDString)} {
				got, err := c.Call(name, []rdf.Term{arg})
				if err != nil || got != want {
					t.Errorf("%s(%q) = %v, %v; want %v", name, s, got, err, want)
				}
			}
		}
		for _, bad := range []rdf.Term{rdf.IRI("http://a/b"), rdf.Blank("b1"), rdf.LangString("abc", "en"),
			rdf.Literal("1", rdf.XSDInteger)} {
			if got, err := c.Call(name, []rdf.Term{bad}); !errors.Is(err, ErrType) {
				t.Errorf("%s(%v) = %v, %v; want a type error", name, bad, got, err)
			}
		}
	}
}

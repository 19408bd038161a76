package index

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
)

// nquadsDoc writes a document exercising what the raw path handles itself: repeated subjects (the subject
// shortcut), literals with and without datatypes, language tags in mixed case (keys lower-case them), escapes,
// blank nodes and named graphs, in runs and interleaved.
func nquadsDoc(r *rand.Rand, n int) string {
	var sb strings.Builder
	enc := ntriples.NewQuadEncoder(&sb, rdf.EncodeOptions{})
	term := func(k int) rdf.Term {
		switch k % 6 {
		case 0:
			return rdf.IRI("http://ex.org/t" + strconv.Itoa(k))
		case 1: // numbers and dates, in forms held in the id and forms that are not, and dateTimes
			if k/6%3 == 0 {
				f := dateForms[k/18%len(dateForms)]
				return rdf.Literal(f[1], f[0])
			}
			f := numericForms[k/6%len(numericForms)]
			return rdf.Literal(f[1], f[0])
		case 2:
			return rdf.Blank("b" + strconv.Itoa(k))
		case 3:
			return rdf.LangString("chat \"quoted\"\n"+strconv.Itoa(k%4), []string{"en", "EN-gb", "fr", "en-GB"}[k%4])
		case 4:
			return rdf.String("é" + strconv.Itoa(k%9))
		}
		return rdf.Literal(strconv.Itoa(k%5), "http://ex.org/dt"+strconv.Itoa(k%3))
	}
	s := term(0)
	for i := 0; i < n; i++ {
		if r.IntN(3) == 0 {
			s = term(r.IntN(50)*6 + 2*r.IntN(2)) // an IRI or a blank node
		}
		q := rdf.Triple(s, rdf.IRI("http://ex.org/p"+strconv.Itoa(r.IntN(6))), term(r.IntN(200)))
		if r.IntN(5) == 0 {
			q.G = term(r.IntN(4) * 6)
		}
		if err := enc.Encode(q); err != nil {
			panic(err)
		}
	}
	if err := enc.Close(); err != nil {
		panic(err)
	}
	return sb.String()
}

// TestRawBuildSameIndex: building from the N-Quads decoder (raw path) gives the very same index file as adding
// the decoded quads one by one: same ids, dictionary, table and permutations.
func TestRawBuildSameIndex(t *testing.T) {
	for _, n := range []int{0, 1, 50, 20000} {
		doc := nquadsDoc(rand.New(rand.NewPCG(uint64(n), 3)), n)
		opts := func() rdf.DecodeOptions { return rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")} }
		raw, err := BuildFrom(t.Context(), ntriples.NewQuadDecoder(strings.NewReader(doc), opts()))
		if err != nil {
			t.Fatal(err)
		}
		b := NewBuilder()
		dec := ntriples.NewQuadDecoder(strings.NewReader(doc), opts())
		for {
			q, err := dec.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Add(q); err != nil {
				t.Fatal(err)
			}
		}
		want := b.Build()
		dir := t.TempDir()
		for name, d := range map[string]*Dataset{"raw": raw, "quads": want} {
			if err := d.Save(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := os.ReadFile(filepath.Join(dir, "raw"))
		exp, _ := os.ReadFile(filepath.Join(dir, "quads"))
		if !bytes.Equal(got, exp) {
			t.Fatalf("n=%d: the raw build's index (%d bytes, %d terms, %d graphs) differs from Add's (%d bytes, %d terms, %d graphs)",
				n, len(got), raw.Dict.Len(), len(raw.GraphNames()), len(exp), want.Dict.Len(), len(want.GraphNames()))
		}
		if n > 100 && (raw.Default.Len() == 0 || len(raw.GraphNames()) == 0) {
			t.Fatalf("n=%d: the document should fill the default graph and named graphs", n)
		}
	}
}

// TestRawBuildErrors: a syntax error, an over-long language tag and a cancelled context stop the raw build.
func TestRawBuildErrors(t *testing.T) {
	good := nquadsDoc(rand.New(rand.NewPCG(1, 1)), 30000)
	cases := map[string]string{
		"syntax error":  good + "<http://ex.org/s> <http://ex.org/p> \"unterminated .\n",
		"long lang tag": "<http://ex.org/s> <http://ex.org/p> \"x\"@" + strings.Repeat("a", 300) + " .\n",
	}
	for name, doc := range cases {
		_, err := BuildFrom(t.Context(), ntriples.NewQuadDecoder(strings.NewReader(doc), rdf.DecodeOptions{}))
		if err == nil {
			t.Errorf("%s: the build succeeded", name)
		}
	}
	var se *rdf.SyntaxError
	if _, err := BuildFrom(t.Context(), ntriples.NewQuadDecoder(strings.NewReader(cases["syntax error"]), rdf.DecodeOptions{})); !errors.As(err, &se) || se.Line != 30001 {
		t.Errorf("want the decoder's syntax error on line 30001, got %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := BuildFrom(ctx, ntriples.NewQuadDecoder(strings.NewReader(good), rdf.DecodeOptions{})); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled build: got %v", err)
	}
}

// cancelAfter cancels a context once n bytes have been read through it.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	if c.n -= k; c.n <= 0 {
		c.cancel()
	}
	return k, err
}

// TestRawBuildCancelledMidway: cancelling while the reader goroutine is busy returns the context's error and leaves
// no goroutine behind.
func TestRawBuildCancelledMidway(t *testing.T) {
	doc := nquadsDoc(rand.New(rand.NewPCG(2, 2)), 200000)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := &cancelAfter{r: strings.NewReader(doc), n: len(doc) / 3, cancel: cancel}
	if _, err := BuildFrom(ctx, ntriples.NewQuadDecoder(r, rdf.DecodeOptions{})); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before the build, %d after it returned", before, runtime.NumGoroutine())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

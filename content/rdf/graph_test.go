package rdf

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type sliceDecoder []Quad

func (d *sliceDecoder) Next() (Quad, error) {
	if len(*d) == 0 {
		return Quad{}, io.EOF
	}
	q := (*d)[0]
	*d = (*d)[1:]
	return q, nil
}

func TestSelectGraph(t *testing.T) {
	g := IRI("http://ex/g")
	in := []Quad{
		{S: IRI("http://ex/a"), P: IRI("http://ex/p"), O: String("default")},
		{S: IRI("http://ex/a"), P: IRI("http://ex/p"), O: String("in g"), G: g},
		{S: IRI("http://ex/a"), P: IRI("http://ex/p"), O: String("in h"), G: IRI("http://ex/h")},
	}
	read := func(sel string) ([]string, error) {
		d := sliceDecoder(append([]Quad(nil), in...))
		dec := SelectGraph(&d, sel)
		var out []string
		for {
			q, err := dec.Next()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			if !q.G.IsZero() {
				t.Fatalf("%q: a statement kept its graph: %v", sel, q)
			}
			out = append(out, q.O.Value)
		}
	}
	for sel, want := range map[string]string{GraphDefault: "default", GraphUnion: "default,in g,in h", "http://ex/g": "in g", "http://ex/none": ""} {
		got, err := read(sel)
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(got, ","); s != want {
			t.Errorf("%q: got %q, want %q", sel, s, want)
		}
	}
	got, err := read("")
	var ng *NamedGraphError
	if !errors.As(err, &ng) || ng.Graph != g || strings.Join(got, ",") != "default" {
		t.Fatalf("no selection: %v, %v", got, err)
	}
}

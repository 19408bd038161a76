package validator_test

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/validator"
)

func TestCodec(t *testing.T) {
	v := validator.Codec(codec.Default(), rdf.Limits{})
	ctx := context.Background()
	for _, tc := range []struct {
		path, content string
		line, column  int // 0 0: valid
		other         bool
	}{
		{"core.ttl", "@prefix ex: <http://example.org/> .\nex:a ex:b <rel> .\n", 0, 0, false},
		{"core.nt", "<http://example.org/a> <http://example.org/b> \"x\" .\n", 0, 0, false},
		{"core.ttl", "@prefix ex: <http://example.org/> .\nex:a ex:b ex:c ;\n  ex:d \"unterminated .\n", 3, 0, false},
		{"core.nt", "<http://example.org/a> <http://example.org/b> .\n", 1, 0, false},
		{"core.rdf", "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description></rdf:RDF>", 1, 0, false},
		{"core.docx", "whatever", 0, 0, true},
	} {
		err := v(ctx, tc.path, []byte(tc.content))
		var se *rdf.SyntaxError
		switch {
		case tc.other:
			if err == nil || errors.As(err, &se) {
				t.Errorf("%s: %v, want a plain error", tc.path, err)
			}
		case tc.line == 0:
			if err != nil {
				t.Errorf("%s: %v", tc.path, err)
			}
		default:
			if !errors.As(err, &se) || se.Line != tc.line || se.Column == 0 {
				t.Errorf("%s %q: %v, want a syntax error on line %d", tc.path, tc.content, err, tc.line)
			}
		}
	}
}

func TestStoreRefusesBadTurtleWithPosition(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, t.TempDir(), store.Options{Validate: validator.Default(), HashCost: bcrypt.MinCost, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g, err := s.CreateGroup(ctx, model.SystemActor, model.Group{Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.CreateRepository(ctx, model.SystemActor, model.Repository{Name: "r", ParentID: g.ID})
	if err != nil {
		t.Fatal(err)
	}
	bad := store.Content{Ext: ".ttl", Data: []byte("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c ;\n  ex:d .\n")}
	_, err = s.CreatePublication(ctx, model.SystemActor, r.ID, model.PublicationMeta{Name: "core"}, bad)
	var ce *model.ContentError
	if !errors.As(err, &ce) || !errors.Is(err, model.ErrInvalid) || ce.Syntax() == nil || ce.Syntax().Line != 3 || ce.Path != "core.ttl" {
		t.Fatalf("bad Turtle: %v", err)
	}
	good := store.Content{Ext: ".ttl", Data: []byte("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c ;\n  ex:d <Thing> .\n")}
	if _, err := s.CreatePublication(ctx, model.SystemActor, r.ID, model.PublicationMeta{Name: "core"}, good); err != nil {
		t.Fatalf("good Turtle: %v", err)
	}
}

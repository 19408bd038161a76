package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const convertTurtle = `@prefix ex: <http://example.org/ns#> .
<a> ex:name "Alice"@en ; ex:knows [ ex:name "Bob" ] .
`

func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &environment{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code = run(context.Background(), env, append([]string{"convert"}, args...))
	return out.String(), errOut.String(), code
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	ttl := writeFile(t, dir, "in.ttl", convertTurtle)
	trig := writeFile(t, dir, "in.trig", "<http://ex/s> <http://ex/p> <http://ex/o> .\n<http://ex/g> { <http://ex/s> <http://ex/p> \"g\" . }\n")
	bad := writeFile(t, dir, "bad.ttl", "@prefix ex: <http://example.org/ns#> .\n<a> ex:p \"unterminated .\n")
	nt := writeFile(t, dir, "in.nt", "<http://ex/s> <http://ex/p> \"x\" .\n")
	nq := writeFile(t, dir, "in.nq", "<http://example.org/def/road/a> <http://www.w3.org/2000/01/rdf-schema#label> \"A\" .\n"+
		"<http://example.org/def/road/b> <http://www.w3.org/2000/01/rdf-schema#label> \"B\" .\n"+
		"<http://example.org/def/road/c> <http://www.w3.org/2004/02/skos/core#broader> <http://example.org/def/road/b> .\n"+
		"<http://example.org/def/road/d> <http://www.w3.org/2000/01/rdf-schema#label> \"in g\" <http://ex/g> .\n")
	withSpace := writeFile(t, filepath.Join(dir), "my file.ttl", "<> <http://ex/p> <b> .\n")

	tests := []struct {
		name     string
		stdin    string
		args     []string
		outFile  string // when set, the output file's content is checked instead of stdout
		code     int
		contains []string // in the output (or stderr when code != 0)
		absent   []string
	}{
		{name: "turtle to n-triples resolves against the file IRI", args: []string{ttl, filepath.Join(dir, "out.nt")}, outFile: "out.nt",
			contains: []string{"<file://" + filepath.ToSlash(dir) + "/a> <http://example.org/ns#name> \"Alice\"@en .", "_:b1 <http://example.org/ns#name> \"Bob\" ."}},
		{name: "--base overrides the base", args: []string{"--base", "http://base.example/doc", ttl, "-"},
			contains: []string{"<http://base.example/a> <http://example.org/ns#name>"}},
		{name: "flags after the paths", args: []string{ttl, "-", "--to", "application/n-triples", "--base=http://b.example/"},
			contains: []string{"<http://b.example/a>"}},
		{name: "turtle to turtle keeps the prefixes", args: []string{"--base", "http://base.example/", ttl, filepath.Join(dir, "out.ttl")}, outFile: "out.ttl",
			contains: []string{"@prefix ex: <http://example.org/ns#>", "ex:name"}},
		{name: "stdin to stdout", stdin: "<http://ex/s> <http://ex/p> \"x\" .\n", args: []string{"--from", "nt", "--to", "nq", "-", "-"},
			contains: []string{"<http://ex/s> <http://ex/p> \"x\" .\n"}},
		{name: "dataset to stdout defaults to n-quads", args: []string{trig, "-"},
			contains: []string{"<http://ex/s> <http://ex/p> \"g\" <http://ex/g> ."}},
		{name: "n-triples to json-ld", args: []string{nt, "-", "--to", "json-ld"}, contains: []string{`"@id": "http://ex/s"`}},
		{name: "file name with a space", args: []string{withSpace, "-"}, contains: []string{"my%20file.ttl", "/b>"}},
		{name: "syntax error has line and column", args: []string{bad, filepath.Join(dir, "never.nt")}, code: 1,
			contains: []string{"bad.ttl", "line 2, column"}},
		{name: "named graph into n-triples", args: []string{trig, filepath.Join(dir, "x.nt")}, code: 1, contains: []string{"named graph <http://ex/g>", "--graph default", "--graph union", "--graph http://ex/g"}},
		{name: "n-quads into turtle names the flag", args: []string{nq, filepath.Join(dir, "x.nt")}, code: 1, contains: []string{"--graph"}},
		{name: "--graph union merges", args: []string{"--graph", "union", nq, "-", "--to", "nt"},
			contains: []string{"<http://example.org/def/road/a> <http://www.w3.org/2000/01/rdf-schema#label> \"A\" .", "\"in g\" ."}},
		{name: "--graph default keeps the default graph", args: []string{"--graph", "default", nq, "-", "--to", "nt"},
			contains: []string{"\"A\""}, absent: []string{"in g"}},
		{name: "--graph IRI takes that graph", args: []string{"--graph", "http://ex/g", nq, "-", "--to", "nt"},
			contains: []string{"\"in g\" ."}, absent: []string{"\"A\""}},
		{name: "prefixes for n-quads input: well-known in use and the frequent namespace", args: []string{"--graph", "union", nq, "-", "--to", "ttl"},
			contains: []string{"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#>", "@prefix skos: <http://www.w3.org/2004/02/skos/core#>",
				"@prefix road: <http://example.org/def/road/>", "road:c skos:broader road:b"},
			absent: []string{"@prefix owl:", "<http://example.org/def/road/a>"}},
		{name: "stdin needs --from", stdin: "", args: []string{"-", "-"}, code: 1, contains: []string{"use --from"}},
		{name: "unknown extension", args: []string{ttl, filepath.Join(dir, "out.txt")}, code: 1, contains: []string{"use --to", "turtle"}},
		{name: "unknown syntax name", args: []string{"--to", "yaml", ttl, "-"}, code: 1, contains: []string{`unknown syntax "yaml"`}},
		{name: "read-only syntax as output", args: []string{"--to", "n3", ttl, "-"}, code: 1, contains: []string{"cannot write n3"}},
		{name: "missing input", args: []string{filepath.Join(dir, "nope.ttl"), "-"}, code: 1, contains: []string{"nope.ttl", "no such file"}},
		{name: "one argument", args: []string{ttl}, code: 1, contains: []string{"want two arguments"}},
		{name: "unknown flag", args: []string{"--frm", "x", ttl, "-"}, code: 1, contains: []string{"-frm", "--help"}},
		{name: "help", args: []string{"--help"}, contains: []string{"usage: ldhub convert", "n-quads", "read only", ".jsonld"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			got := stdout
			switch {
			case code != 0:
				got = stderr
			case tt.outFile != "":
				got = readFile(t, filepath.Join(dir, tt.outFile))
			}
			for _, s := range tt.contains {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(got, s) {
					t.Errorf("output has %q:\n%s", s, got)
				}
			}
		})
	}
	// Failed conversions leave neither the output nor a temporary file behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n == "never.nt" || n == "x.nt" || strings.Contains(n, ".tmp-") {
			t.Errorf("failed conversion left %s behind", n)
		}
	}
}

// A failed conversion keeps the previous output file intact.
func TestConvertKeepsOldOutputOnError(t *testing.T) {
	dir := t.TempDir()
	out := writeFile(t, dir, "out.nt", "old\n")
	in := writeFile(t, dir, "in.nt", "<http://ex/s> <http://ex/p> <http://ex/o> .\nbroken\n")
	if _, stderr, code := runCmd(t, "", in, out); code != 1 || !strings.Contains(stderr, "line 2, column 1") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	if got := readFile(t, out); got != "old\n" {
		t.Errorf("output overwritten with %q", got)
	}
}

// Package convertcmd is the convert command, shared by `ldhub convert` and the stand-alone `ldconvert`: flag
// parsing and calls into content/codec, nothing else. It lives apart from cmd/ldhub so that ldconvert can be
// linked without the hub (Hugo, bleve, go-git), whose package initialisers and executable pages every ldhub
// command pays for before it reads a statement (docs/performance.md, "Where the baseline memory goes").
package convertcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldhub/ldhub/atomicfile"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
)

const usageText = `usage: %s [--from SYNTAX] [--to SYNTAX] [--base IRI] [--graph default|union|IRI] IN OUT

Converts RDF from one syntax to another. IN and OUT are file paths, or - for standard input and output.
The syntaxes default to the files' extensions; for - they must be given (OUT defaults to N-Quads when the
input syntax can hold named graphs, N-Triples otherwise). A SYNTAX is a name, media type or extension.
N-Triples and N-Quads stream in constant memory; other outputs hold the graph until the end, except for input
files above 4 MiB, which Turtle, TriG, RDF/XML and JSON-LD write as statements come (one block per run of
statements about a subject, prefixes chosen from the first 10,000 statements). The output file
is replaced only when the whole conversion succeeds. Outputs that abbreviate IRIs get the input's prefixes, the
well-known ones in use (rdf, skos, dcterms, ...) and one for each namespace that many IRIs share.

flags:
  --from SYNTAX   syntax of IN
  --to SYNTAX     syntax of OUT
  --base IRI      base IRI for relative references in IN (default: IN's file: IRI)
  --graph G       which graph of a dataset (TriG, N-Quads, JSON-LD) to write: default (the default graph),
                  union (every graph merged) or the IRI of one named graph; needed when OUT holds one graph
                  (Turtle, N-Triples, RDF/XML) and IN has named graphs

syntaxes:
`

// Run converts as the command line args ask (the arguments after the command's name); prog is the command's name
// as the user typed it ("ldhub convert", "ldconvert"), for the usage text and errors. IN or OUT "-" are stdin and
// stdout.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, prog string, args []string) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	from := fs.String("from", "", "")
	to := fs.String("to", "", "")
	base := fs.String("base", "", "")
	graph := fs.String("graph", "", "")
	reg := codec.Default()

	// Flags may come before, between or after the two paths.
	var paths []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(stdout, prog, reg)
				return nil
			}
			return fmt.Errorf("%v (see %s --help)", err, prog)
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(paths) != 2 {
		return fmt.Errorf("want two arguments IN and OUT, got %d (see %s --help)", len(paths), prog)
	}
	in, out := paths[0], paths[1]

	src, err := pickSyntax(reg, *from, in, "--from")
	if err != nil {
		return err
	}
	dstName := *to
	if dstName == "" && out == "-" {
		dstName = "n-triples"
		if src.Dataset {
			dstName = "n-quads"
		}
	}
	dst, err := pickSyntax(reg, dstName, out, "--to")
	if err != nil {
		return err
	}
	if !dst.CanEncode() {
		return fmt.Errorf("ldhub cannot write %s", dst.Name)
	}

	opts := rdf.DecodeOptions{Base: *base, Blanks: rdf.NewBlankNodes("")}
	var r io.Reader = stdin
	size := int64(-1) // unknown: standard input
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		if opts.Base == "" {
			abs, err := filepath.Abs(in)
			if err != nil {
				return err
			}
			opts.Base = fileIRI(abs)
		}
	}

	return writeOutput(out, stdout, func(w io.Writer) error {
		if _, err := codec.Convert(ctx, src, dst, r, w, codec.ConvertOptions{Decode: opts, Graph: *graph, Size: size}); err != nil {
			if ng := (*rdf.NamedGraphError)(nil); errors.As(err, &ng) {
				return fmt.Errorf("%s: %s holds one graph and %v; choose with --graph default (the default graph), --graph union (every graph merged) or --graph %s (that graph), or write TriG or N-Quads",
					displayName(in), dst.Name, ng, ng.Graph.Value)
			}
			return fmt.Errorf("%s: %w", displayName(in), err)
		}
		return nil
	})
}

// pickSyntax resolves an explicit syntax flag, or else the file's extension.
func pickSyntax(reg *codec.Registry, explicit, path, flagName string) (codec.Syntax, error) {
	if explicit != "" {
		s, ok := reg.Lookup(explicit)
		if !ok {
			return s, fmt.Errorf("unknown syntax %q for %s (known: %s)", explicit, flagName, syntaxNames(reg))
		}
		return s, nil
	}
	if path == "-" {
		return codec.Syntax{}, fmt.Errorf("cannot tell the syntax of standard input/output; use %s", flagName)
	}
	s, ok := reg.ByPath(path)
	if !ok {
		return s, fmt.Errorf("cannot tell the syntax of %s from its extension; use %s (known: %s)", path, flagName, syntaxNames(reg))
	}
	return s, nil
}

// writeOutput runs write against stdout for "-", or replaces path atomically (atomicfile: synced, then renamed),
// so a failed conversion never leaves a truncated file behind.
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	return atomicfile.Write(path, 0o644, write)
}

func printUsage(w io.Writer, prog string, reg *codec.Registry) {
	fmt.Fprintf(w, usageText, prog)
	for _, s := range reg.Syntaxes() {
		mode := "read/write"
		if !s.CanEncode() {
			mode = "read only"
		}
		fmt.Fprintf(w, "  %-10s %-10s %-22s %s\n", s.Name, mode, s.MediaTypes[0], strings.Join(s.Extensions, " "))
	}
}

func syntaxNames(reg *codec.Registry) string {
	var names []string
	for _, s := range reg.Syntaxes() {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

func displayName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

func fileIRI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive paths
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

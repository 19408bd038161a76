// Command ldconvert is `ldhub convert` as a binary of its own, for scripts and pipelines that only convert RDF.
// ldhub links the whole hub (Hugo and its dependencies, bleve, go-git), and every ldhub command pays for their
// package initialisers and executable pages before it reads a statement: about 0.2 CPU-s and 35 MiB of resident
// memory (docs/performance.md). ldconvert links only the syntax packages, so its memory is the conversion's own.
// Flags, syntaxes and output are those of `ldhub convert` (cmd/internal/convertcmd).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ldhub/ldhub/cmd/internal/convertcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := convertcmd.Run(ctx, os.Stdin, os.Stdout, "ldconvert", os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "ldconvert: %v\n", err)
		os.Exit(1)
	}
}

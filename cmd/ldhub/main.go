// Command ldhub is the one binary of the hub: serve, build, convert and the admin commands. Each command lives in
// its own file and only parses flags and calls into the packages that do the work.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one sub-command; run gets the arguments after the command name.
type command struct {
	summary string
	run     func(ctx context.Context, env *environment, args []string) error
}

// environment carries the process's streams and variables so commands are testable without touching globals.
type environment struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

func commands() map[string]command {
	return map[string]command{
		"convert":  {summary: "convert RDF between syntaxes", run: runConvert},
		"build":    {summary: "render the static site, dumps and SPARQL indexes from git", run: runBuild},
		"preview":  {summary: "serve a local folder of RDF files as ldhub would, reloading on save", run: runPreview},
		"serve":    {summary: "run the hub (REST API, git, direct URLs)", run: runServe},
		"balancer": {summary: "print the nginx configuration of a load balancer over a primary and its replicas", run: runBalancer},
		"app":      {summary: "create, list or revoke applications (v3 credentials)", run: runApp},
		"token":    {summary: "create, list or revoke access tokens (v4 credentials)", run: runToken},
		"grant":    {summary: "give a credential a role on a group or repository", run: runGrant},
		"revoke":   {summary: "remove a credential's grant on a group or repository", run: runRevoke},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	env := &environment{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	code := run(ctx, env, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, env *environment, args []string) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.stdout, cmds)
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "ldhub: unknown command %q\n", args[0])
		usage(env.stderr, cmds)
		return 2
	}
	if err := c.run(ctx, env, args[1:]); err != nil {
		fmt.Fprintf(env.stderr, "ldhub %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: ldhub COMMAND [ARGS]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'ldhub COMMAND --help' for a command's flags.")
}

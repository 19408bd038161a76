package main

import (
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/pipeline/storeload"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
)

// storeFlags configure the external SPARQL store (docs/scaling.md). The password is read from the environment
// only, so it never shows in a process list.
type storeFlags struct {
	url, update, graph, user *string
	threshold                *int
	include, exclude         pathList
	env                      *environment
}

// pathList is a repeatable flag (also comma-separated).
type pathList []string

func (p *pathList) String() string { return strings.Join(*p, ",") }
func (p *pathList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			if !strings.HasPrefix(s, "/") {
				return fmt.Errorf("%q is not a URL path (/group/repository[/publication])", s)
			}
			*p = append(*p, s)
		}
	}
	return nil
}

func addStoreFlags(fs *flag.FlagSet, env *environment) *storeFlags {
	f := &storeFlags{env: env}
	f.url = fs.String("sparql-store", env.getenv("LDHUB_SPARQL_STORE"),
		"query endpoint of an external SPARQL 1.1 store (Virtuoso: http://HOST:8890/sparql) that answers large publications (env LDHUB_SPARQL_STORE)")
	f.update = fs.String("sparql-store-update", env.getenv("LDHUB_SPARQL_STORE_UPDATE"),
		"its SPARQL Update endpoint (default: Virtuoso's /sparql-auth beside the query endpoint)")
	f.graph = fs.String("sparql-store-graph", env.getenv("LDHUB_SPARQL_STORE_GRAPH"),
		"its Graph Store HTTP Protocol endpoint (default: Virtuoso's /sparql-graph-crud-auth)")
	f.user = fs.String("sparql-store-user", env.getenv("LDHUB_SPARQL_STORE_USER"),
		"user for updates; the password is read from env LDHUB_SPARQL_STORE_PASSWORD only")
	def, _ := strconv.Atoi(env.getenv("LDHUB_SPARQL_STORE_THRESHOLD"))
	f.threshold = fs.Int("sparql-store-threshold", def,
		"publications whose latest version has more triples than this go to the store; 0 sends all (env LDHUB_SPARQL_STORE_THRESHOLD)")
	fs.Var(&f.include, "sparql-store-include", "URL path of a repository or publication sent to the store whatever its size (repeatable)")
	fs.Var(&f.exclude, "sparql-store-exclude", "URL path of a repository or publication kept on the built-in engine (repeatable)")
	return f
}

// options returns the loader's configuration without its tree, base URL, mode and log, or nil when no store is
// configured.
func (f *storeFlags) options() (*storeload.Options, error) {
	if *f.url == "" {
		return nil, nil
	}
	st, err := remote.New(remote.Config{QueryURL: *f.url, UpdateURL: *f.update, GraphURL: *f.graph,
		User: *f.user, Password: f.env.getenv("LDHUB_SPARQL_STORE_PASSWORD")})
	if err != nil {
		return nil, fmt.Errorf("--sparql-store: %w", err)
	}
	return &storeload.Options{Store: st, Threshold: *f.threshold, Include: f.include, Exclude: f.exclude}, nil
}

// loader returns the store's loader for the tree out, or nil when no store is configured. A replica's (readOnly)
// only reads what the primary loaded: it never writes to the store.
func (f *storeFlags) loader(baseURL, out string, readOnly bool, log *slog.Logger) (*storeload.Loader, error) {
	o, err := f.options()
	if o == nil || err != nil {
		return nil, err
	}
	o.BaseURL, o.Out, o.ReadOnly, o.Log = baseURL, out, readOnly, log
	return storeload.New(*o), nil
}

package jsonld

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A Loader fetches the remote documents (contexts, @import targets) a JSON-LD document refers to. It returns the raw
// JSON bytes; the decoder parses them under the same limits as the document itself.
type Loader interface {
	Load(ctx context.Context, url string) ([]byte, error)
}

// LoaderFunc adapts a function to Loader.
type LoaderFunc func(ctx context.Context, url string) ([]byte, error)

// Load calls f.
func (f LoaderFunc) Load(ctx context.Context, url string) ([]byte, error) { return f(ctx, url) }

// ErrRemoteRefused is returned by NoRemote for every URL.
var ErrRemoteRefused = errors.New("remote JSON-LD documents are not loaded (no document loader configured)")

// NoRemote is the default loader: it refuses every URL, so that decoding an uploaded document never makes the hub
// fetch something from the network (SSRF, slow-loris contexts) or read a local file.
func NoRemote() Loader {
	return LoaderFunc(func(_ context.Context, url string) ([]byte, error) {
		return nil, fmt.Errorf("%s: %w", url, ErrRemoteRefused)
	})
}

// MapLoader serves a fixed set of URLs from local files (URL → file path); any other URL is refused.
func MapLoader(files map[string]string) Loader {
	return LoaderFunc(func(_ context.Context, url string) ([]byte, error) {
		path, ok := files[url]
		if !ok {
			return nil, fmt.Errorf("%s: not in the loader's map: %w", url, ErrRemoteRefused)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", url, err)
		}
		return b, nil
	})
}

// DirLoader serves every URL that starts with prefix from the file at the same relative path under dir; any other
// URL is refused. Paths are opened through os.Root, so "../" in a URL cannot escape dir.
func DirLoader(prefix, dir string) Loader {
	return LoaderFunc(func(_ context.Context, url string) ([]byte, error) {
		rel, ok := strings.CutPrefix(url, prefix)
		if !ok {
			return nil, fmt.Errorf("%s: outside %s: %w", url, prefix, ErrRemoteRefused)
		}
		if i := strings.IndexAny(rel, "?#"); i >= 0 {
			rel = rel[:i]
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", url, err)
		}
		defer root.Close()
		f, err := root.Open(filepath.FromSlash(rel))
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", url, err)
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", url, err)
		}
		return b, nil
	})
}

// DefaultMaxRemoteLoads bounds how many remote documents one JSON-LD document may make the decoder load, so a
// document cannot amplify itself through chains of contexts.
const DefaultMaxRemoteLoads = 64

package html

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ldhub/ldhub/theme"
)

// Render writes one index.html per page of site into outDir (created if needed), plus the theme's static files
// (css/, favicon.svg). overrides are theme folders laid over the default theme in order, later ones winning file
// by file; they mirror its layout (layouts/publication.html, static/css/ldhub.css, ...).
//
// Files already in outDir are left alone unless a page or static file replaces them, so callers that need a
// clean or atomic result render into a fresh folder and swap it in. ctx is checked between steps; Hugo's build
// itself cannot be interrupted.
func Render(ctx context.Context, site Site, outDir string, overrides ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pages, err := site.pages()
	if err != nil {
		return err
	}
	return renderPages(ctx, pages, settings{title: site.Title, language: site.Language, relative: true}, outDir, overrides)
}

// settings are the site-wide choices of one build.
type settings struct {
	title, language string
	// relative makes every link relative to its page, so that the output folder can be served from anywhere;
	// otherwise links stay root-absolute (the pipeline's pages are served at URLs other than their folders).
	relative bool
	// inline puts the stylesheet and icon into every page instead of beside the pages: the pipeline's pages are
	// served one by one from folders of their own, and the resource pages (Resources) one by one from memory, with
	// nothing else to link to.
	inline bool
}

// hugoConfig is the part of a build's Hugo configuration the settings decide (with the overrides, whose static
// files are inlined); the caller says where the build reads and writes.
func (set settings) hugoConfig(overrides []string) (hugoConfig, error) {
	cfg := hugoConfig{Title: nameOr(set.title, "ldhub"), Language: set.language, Relative: set.relative}
	if cfg.Language == "" {
		cfg.Language = "en"
	}
	if set.inline {
		css, err := staticFile("css/ldhub.css", overrides)
		if err != nil {
			return hugoConfig{}, err
		}
		icon, err := staticFile("favicon.svg", overrides)
		if err != nil {
			return hugoConfig{}, err
		}
		cfg.CSS = string(css)
		cfg.Icon = "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(icon)
		js, err := staticFile(scriptFile, overrides)
		if err != nil {
			return hugoConfig{}, err
		}
		// The version in the URL lets the handler answer it as immutable.
		sum := sha256.Sum256(js)
		cfg.Script = ScriptPath + "?v=" + hex.EncodeToString(sum[:6])
	}
	return cfg, nil
}

// ScriptPath is the URL path of the theme's script (static/js/ldhub.js) for pages served one by one, which have no
// folder of static files beside them: the direct-URL handler answers it (see Script). Pages need no script to be
// read; it adds the term filter and the tree buttons, from a file so that a strict Content-Security-Policy holds.
const ScriptPath = "/_ldhub/ldhub.js"

const scriptFile = "js/ldhub.js"

// Script is the theme's script, the overrides' own when they have one.
func Script(overrides ...string) ([]byte, error) { return staticFile(scriptFile, overrides) }

func renderPages(ctx context.Context, pages []page, set settings, outDir string, overrides []string) error {
	out, err := filepath.Abs(outDir)
	if err != nil {
		return fmt.Errorf("html: output folder: %w", err)
	}
	work, err := os.MkdirTemp("", "ldhub-site-")
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	defer os.RemoveAll(work)

	if err := os.CopyFS(filepath.Join(work, "themes", "ldhub"), theme.Hugo()); err != nil {
		return fmt.Errorf("html: copy theme: %w", err)
	}
	// Hugo lets a project's own layouts/ and static/ shadow its theme's, file by file: the overrides become
	// the project's folders.
	for _, o := range overrides {
		if err := overlay(filepath.Join(work, "project"), os.DirFS(o), o); err != nil {
			return err
		}
	}
	if err := writeContent(ctx, filepath.Join(work, "project", "content"), pages); err != nil {
		return err
	}
	cfg, err := set.hugoConfig(overrides)
	if err != nil {
		return err
	}
	cfg.Project = filepath.Join(work, "project")
	cfg.Themes, cfg.Theme = filepath.Join(work, "themes"), "ldhub"
	cfg.Cache = filepath.Join(work, "cache")
	cfg.Publish = out
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := runHugo(cfg); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	if set.inline {
		return nil
	}
	return copyStatic(out, overrides)
}

// staticFile reads one of the theme's static files, from the last override that has it.
func staticFile(name string, overrides []string) ([]byte, error) {
	for i := len(overrides) - 1; i >= 0; i-- {
		b, err := os.ReadFile(filepath.Join(overrides[i], "static", filepath.FromSlash(name)))
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("html: theme %s: %w", overrides[i], err)
		}
	}
	b, err := fs.ReadFile(theme.Hugo(), "static/"+name)
	if err != nil {
		return nil, fmt.Errorf("html: default theme: %w", err)
	}
	return b, nil
}

// copyStatic writes the theme's static files (css/, favicon.svg), with the overrides' static/ folders laid over
// them, into dir.
func copyStatic(dir string, overrides []string) error {
	// Hugo the library renders pages only; copying static files is its command's job, so it is ours here.
	static, err := fs.Sub(theme.Hugo(), "static")
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	if err := overlay(dir, static, "default theme"); err != nil {
		return err
	}
	for _, o := range overrides {
		sdir := filepath.Join(o, "static")
		if _, err := os.Stat(sdir); os.IsNotExist(err) {
			continue
		}
		if err := overlay(dir, os.DirFS(sdir), o); err != nil {
			return err
		}
	}
	return nil
}

// overlay copies the folder src (called name in errors) into dst, replacing files already there.
func overlay(dst string, src fs.FS, name string) error {
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("html: theme %s: %w", name, err)
		}
		to := filepath.Join(dst, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("html: theme %s: %s is not a regular file", name, p)
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return fmt.Errorf("html: theme %s: %w", name, err)
		}
		return os.WriteFile(to, b, 0o644)
	})
}

// frontMatter is what Hugo reads at the top of each content file (as JSON).
type frontMatter struct {
	Title  string         `json:"title"`
	Layout string         `json:"layout"`
	URL    string         `json:"url"`
	Params map[string]any `json:"params"`
}

// writeContent writes one content file per page. File names are sequence numbers: the URL, not the name,
// places the page.
func writeContent(ctx context.Context, dir string, pages []page) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	var buf bytes.Buffer
	for i, p := range pages {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		buf.Reset()
		if err := encodePage(&buf, p); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%06d.md", i)), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("html: %w", err)
		}
	}
	return nil
}

// encodePage writes p as a Hugo content file: JSON front matter, then the Markdown text.
func encodePage(buf *bytes.Buffer, p page) error {
	if err := json.NewEncoder(buf).Encode(frontMatter{Title: p.Title, Layout: p.Layout, URL: p.URL,
		Params: map[string]any{"ld": p.LD}}); err != nil {
		return fmt.Errorf("html: page %s: %w", p.URL, err)
	}
	buf.WriteString("\n")
	buf.WriteString(p.Content)
	buf.WriteString("\n")
	return nil
}

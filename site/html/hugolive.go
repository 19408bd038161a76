package html

// Like hugo.go, this file knows Hugo's library API, which is not stable: it mirrors what `hugo server` does on a
// file change (commands/hugobuilder.go: rebuildSites), and must be revisited with it when Hugo is upgraded.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/bep/logg"
	"github.com/fsnotify/fsnotify"
	"github.com/gohugoio/hugo/common/loggers"
	"github.com/gohugoio/hugo/config"
	"github.com/gohugoio/hugo/config/allconfig"
	"github.com/gohugoio/hugo/deps"
	"github.com/gohugoio/hugo/hugofs"
	"github.com/gohugoio/hugo/hugolib"
	"github.com/spf13/afero"

	"github.com/ldhub/ldhub/syncbuf"
	"github.com/ldhub/ldhub/theme"
)

// Paths inside the live site's in-memory file systems.
const (
	liveProject = "/project"
	liveThemes  = "/themes"
	livePublish = "/public"
	liveContent = liveProject + "/content"
)

// liveSite is one Hugo site kept between builds, with its sources and output in memory. A page is rendered by
// writing its content file into one of a few slots and rebuilding with the file events, as `hugo server` does when
// a file changes: Hugo then renders only the pages whose sources changed, without loading its configuration and
// templates again (the fixed cost of a full build). It is not safe for concurrent use; Resources serialises it.
type liveSite struct {
	src, dst afero.Fs
	sites    *hugolib.HugoSites
	log      *syncbuf.Buffer
	gen      int      // builds so far: page i of build g is content/s<g>-<i>.md at URL /s/<g>-<i>/
	files    []string // the content files of the last build
}

// newLiveSite loads the default theme with the overrides (theme folders, later ones winning file by file) into
// memory and builds the empty site once, so that the first page costs a rebuild only.
func newLiveSite(set settings, overrides []string) (*liveSite, error) {
	src := afero.NewMemMapFs()
	if err := copyInto(src, path.Join(liveThemes, "ldhub"), theme.Hugo()); err != nil {
		return nil, err
	}
	for _, o := range overrides {
		if err := copyInto(src, liveProject, os.DirFS(o)); err != nil {
			return nil, fmt.Errorf("html: theme %s: %w", o, err)
		}
	}
	if err := src.MkdirAll(liveContent, 0o755); err != nil {
		return nil, err
	}
	cfg, err := set.hugoConfig(overrides)
	if err != nil {
		return nil, err
	}
	cfg.Themes, cfg.Theme, cfg.Cache, cfg.Publish = liveThemes, "ldhub", "/cache", livePublish
	// Hugo's build lock is a file in the working directory on the OS file system, which for this in-memory project
	// does not exist (Hugo skips the lock under `go test`, so only a real binary shows it). Builds of this site are
	// serialised by Resources anyway.
	cfg.NoBuildLock = true
	conf := siteConfig(cfg)
	b, err := json.Marshal(conf)
	if err != nil {
		return nil, err
	}
	file := path.Join(liveProject, "hugo.json")
	if err := afero.WriteFile(src, file, b, 0o644); err != nil {
		return nil, err
	}
	flags := config.New()
	flags.Set("workingDir", liveProject)
	// Watching makes Hugo track which sources each page depends on, which is what lets a rebuild render only the
	// pages whose content changed; without it a second Build is refused.
	flags.Set("internal", map[string]any{"watch": true})
	log := &syncbuf.Buffer{}
	// Hugo prints what each rebuild changed to its standard output; only warnings and errors are kept.
	logger := loggers.New(loggers.Options{Level: logg.LevelWarn, StdOut: io.Discard, StdErr: log})
	// LoadConfig sets Hugo's global logger: it must not run during another build (see hugoMu).
	hugoMu.Lock()
	configs, err := allconfig.LoadConfig(allconfig.ConfigSourceDescriptor{
		Flags: flags, Fs: src, Filename: file, Environment: "production",
		Environ: []string{"HOME=/cache"}, Logger: logger, SkipNpmCheck: true,
	})
	hugoMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("html: hugo config: %w", err)
	}
	flags.Set("publishDir", configs.Base.PublishDir)
	flags.Set("publishDirStatic", configs.Base.PublishDir)
	flags.Set("publishDirDynamic", configs.Base.PublishDir)
	dst := afero.NewMemMapFs()
	sites, err := hugolib.NewHugoSites(deps.DepsCfg{Configs: configs,
		Fs: hugofs.NewFromSourceAndDestination(src, dst, flags), LogLevel: logg.LevelWarn, StdOut: io.Discard, StdErr: log})
	if err != nil {
		return nil, fmt.Errorf("html: hugo: %w", err)
	}
	l := &liveSite{src: src, dst: dst, sites: sites, log: log}
	if err := l.build(); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// render renders the pages with one rebuild and returns their HTML in order. After an error the site must be
// closed: Hugo's state after a failed rebuild is not something to build on.
//
// Every build adds the pages as new content files and removes the previous build's: rewriting a file that Hugo
// already rendered re-rendered only one of several changed pages (v0.165.0 keeps the changed pages' identities
// in a set where distinct pages can collide), while added files are always rendered. The site never holds more
// than one batch, so what an addition makes Hugo render again stays small.
func (l *liveSite) render(pages []page) ([][]byte, error) {
	var buf bytes.Buffer
	events := make([]fsnotify.Event, 0, len(l.files)+len(pages))
	for _, name := range l.files {
		if err := l.src.Remove(name); err != nil {
			return nil, fmt.Errorf("html: %w", err)
		}
		events = append(events, fsnotify.Event{Name: name, Op: fsnotify.Remove})
	}
	if err := l.dst.RemoveAll(path.Join(livePublish, "s")); err != nil {
		return nil, fmt.Errorf("html: %w", err)
	}
	l.gen++
	l.files = l.files[:0]
	urls := make([]string, len(pages))
	for i, p := range pages {
		buf.Reset()
		id := strconv.Itoa(l.gen) + "-" + strconv.Itoa(i)
		p.URL = "/s/" + id + "/"
		urls[i] = p.URL
		if err := encodePage(&buf, p); err != nil {
			return nil, err
		}
		name := path.Join(liveContent, "s"+id+".md")
		if err := afero.WriteFile(l.src, name, buf.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("html: %w", err)
		}
		l.files = append(l.files, name)
		events = append(events, fsnotify.Event{Name: name, Op: fsnotify.Create})
	}
	if err := l.build(events...); err != nil {
		return nil, err
	}
	out := make([][]byte, len(pages))
	for i, u := range urls {
		b, err := afero.ReadFile(l.dst, path.Join(livePublish, u, "index.html"))
		if err != nil {
			return nil, fmt.Errorf("html: page %d of the build: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}

// build rebuilds without hugoMu: what hugoMu guards (the global logger) is set only when a configuration is
// loaded, so a resource page need not wait for a pipeline build that may take seconds
// (TestResourcesDuringPipelineBuilds runs both at once under -race).
func (l *liveSite) build(events ...fsnotify.Event) error {
	l.log.Reset()
	if err := built(l.sites.Build(hugolib.BuildCfg{}, events...), l.log); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

func (l *liveSite) close() { _ = l.sites.Close() }

// copyInto copies the folder src into dst under dir.
func copyInto(dst afero.Fs, dir string, src fs.FS) error {
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := path.Join(dir, filepath.ToSlash(p))
		if d.IsDir() {
			return dst.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		return afero.WriteFile(dst, to, b, 0o644)
	})
}

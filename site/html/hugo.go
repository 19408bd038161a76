package html

// This file and hugolive.go are the only ones that know Hugo. Its library API is not stable: upgrading Hugo means
// revisiting them (mirroring how Hugo's own commands/commandeer.go loads a configuration and builds) and nothing
// else.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bep/logg"
	"github.com/gohugoio/hugo/common/loggers"
	"github.com/gohugoio/hugo/config"
	"github.com/gohugoio/hugo/config/allconfig"
	"github.com/gohugoio/hugo/deps"
	"github.com/gohugoio/hugo/hugofs"
	"github.com/gohugoio/hugo/hugolib"

	"github.com/ldhub/ldhub/syncbuf"
)

// hugoConfig says where one build reads and writes.
type hugoConfig struct {
	Project     string // working dir: content/, and the publisher's layouts/ and static/ overrides
	Themes      string // folder holding the theme folder
	Theme       string
	Cache       string
	Publish     string
	Title       string
	Language    string
	Relative    bool   // relativeURLs: links relative to each page
	CSS         string // the stylesheet, inlined into every page; "" links css/ldhub.css instead
	Icon        string // the icon as a data: URL, with CSS
	Script      string // URL of the theme's script (js/ldhub.js)
	NoBuildLock bool   // skip Hugo's build lock, which the in-memory live site cannot take (see newLiveSite)
}

// hugoMu serialises builds: Hugo keeps process-wide state (its global logger, set by every LoadConfig, and its
// clock), so two builds at once could log into each other.
var hugoMu sync.Mutex

// runHugo builds the project into cfg.Publish.
func runHugo(cfg hugoConfig) error {
	hugoMu.Lock()
	defer hugoMu.Unlock()
	conf := siteConfig(cfg)
	b, err := json.Marshal(conf)
	if err != nil {
		return err
	}
	file := filepath.Join(cfg.Project, "hugo.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return err
	}
	flags := config.New()
	flags.Set("workingDir", cfg.Project)
	// Hugo reports a failing template by logging it and returning "logged N error(s)"; its log is kept so the
	// returned error can say what went wrong. Warnings still reach stderr.
	log := &syncbuf.Buffer{}
	logger := loggers.New(loggers.Options{Level: logg.LevelWarn, StdOut: log, StdErr: log})
	configs, err := allconfig.LoadConfig(allconfig.ConfigSourceDescriptor{
		Flags:       flags,
		Fs:          hugofs.Os,
		Filename:    file,
		Environment: "production",
		// Our pages must not depend on the environment ldhub runs in (HUGO_* variables would reconfigure it).
		Environ:      []string{"HOME=" + cfg.Cache},
		Logger:       logger,
		SkipNpmCheck: true,
	})
	if err != nil {
		return fmt.Errorf("hugo config: %w", err)
	}
	flags.Set("publishDir", configs.Base.PublishDir)
	flags.Set("publishDirStatic", configs.Base.PublishDir)
	flags.Set("publishDirDynamic", configs.Base.PublishDir)
	fs := hugofs.NewFromSourceAndDestination(hugofs.Os, hugofs.Os, flags)
	sites, err := hugolib.NewHugoSites(deps.DepsCfg{Configs: configs, Fs: fs, LogLevel: logg.LevelWarn,
		StdOut: log, StdErr: log})
	if err != nil {
		return fmt.Errorf("hugo: %w", err)
	}
	defer sites.Close()
	return built(sites.Build(hugolib.BuildCfg{}), log)
}

// built finishes a build that returned err with log as Hugo's log: a failed build's error says what Hugo logged,
// and a successful build's warnings go to stderr.
func built(err error, log *syncbuf.Buffer) error {
	if err != nil {
		if logged := strings.TrimSpace(log.String()); logged != "" {
			return fmt.Errorf("hugo build: %w: %s", err, logged)
		}
		return fmt.Errorf("hugo build: %w", err)
	}
	if log.Len() > 0 {
		os.Stderr.WriteString(log.String())
	}
	return nil
}

// siteConfig is Hugo's configuration for our pages. Everything a default Hugo site would add besides them (home,
// sections, taxonomies, RSS, sitemap, robots.txt, 404) is off: every page is a regular page placed by its url.
func siteConfig(cfg hugoConfig) map[string]any {
	conf := map[string]any{
		"baseURL": "/",
		"title":   cfg.Title,
		"params":  map[string]any{"lang": cfg.Language, "css": cfg.CSS, "icon": cfg.Icon, "script": cfg.Script},
		// Publishers' Markdown may contain raw HTML; dropping it is intended, not worth a warning per page.
		"ignoreLogs":                 []string{"warning-goldmark-raw-html"},
		"defaultContentLanguage":     "en",
		"theme":                      cfg.Theme,
		"themesDir":                  cfg.Themes,
		"cacheDir":                   cfg.Cache,
		"publishDir":                 cfg.Publish,
		"relativeURLs":               cfg.Relative,
		"disableKinds":               []string{"home", "section", "taxonomy", "term", "rss", "sitemap", "robotstxt", "404"},
		"disableHugoGeneratorInject": true,
		"enableGitInfo":              false,
		"enableRobotsTXT":            false,
		"timeZone":                   "UTC",
		// Publishers' templates run on the hub: they may not run programs, fetch URLs or read the environment.
		"security": map[string]any{
			"exec":  map[string]any{"allow": []string{"^$"}, "osEnv": []string{"^$"}},
			"http":  map[string]any{"urls": []string{"^$"}, "methods": []string{"^$"}},
			"funcs": map[string]any{"getenv": []string{"^$"}},
		},
		"markup": map[string]any{"goldmark": map[string]any{"renderer": map[string]any{"unsafe": false}}},
	}
	if cfg.NoBuildLock {
		conf["noBuildLock"] = true
	}
	return conf
}

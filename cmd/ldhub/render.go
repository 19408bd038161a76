package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"

	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/site/objstore"
)

// renderFlags are the flags build and serve render the site with: the theme, the pages' language, the term pages
// and the bucket the public tree is published to. One definition, so that the two commands cannot drift apart.
type renderFlags struct {
	theme, language, publishS3 *string
	termPages                  *bool
}

func addRenderFlags(fs *flag.FlagSet, env *environment) renderFlags {
	return renderFlags{
		theme:    fs.String("theme", env.getenv("LDHUB_THEME"), "folder overriding the default theme: Hugo layouts/ and static/ for every page (env LDHUB_THEME)"),
		language: fs.String("language", env.getenv("LDHUB_LANGUAGE"), languageUsage),
		termPages: fs.Bool("term-pages", true, "pre-render the page and RDF descriptions of every term of each publication's latest version, "+
			"so that the generated nginx/Apache configuration serves them from files"),
		publishS3: fs.String("publish-s3", env.getenv("LDHUB_PUBLISH_S3"), publishS3Usage),
	}
}

// load reads the theme the flags name and makes their publisher (nil without --publish-s3).
func (f renderFlags) load(ctx context.Context, env *environment, log *slog.Logger) (*pipeline.HTML, *objstore.Publisher, error) {
	opts, err := pipeline.LoadTheme(ctx, *f.theme)
	if err != nil {
		return nil, nil, err
	}
	opts.TermPages = *f.termPages
	if err := opts.SetLanguage(*f.language); err != nil {
		return nil, nil, fmt.Errorf("--language: %w", err)
	}
	pub, err := newPublisher(env, *f.publishS3, opts.Themes, log)
	if err != nil {
		return nil, nil, err
	}
	return opts, pub, nil
}

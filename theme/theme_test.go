package theme_test

import (
	"io/fs"
	"testing"

	"github.com/ldhub/ldhub/theme"
)

// TestHugoThemeIsComplete: every layout the pages use is embedded, with the static files they link.
func TestHugoThemeIsComplete(t *testing.T) {
	for _, name := range []string{"layouts/baseof.html", "layouts/hub.html", "layouts/group.html", "layouts/repository.html",
		"layouts/publication.html", "layouts/version.html", "layouts/resource.html", "layouts/_partials/head-extra.html", "layouts/_partials/properties.html", "layouts/_partials/term.html",
		"static/css/ldhub.css", "static/favicon.svg", "theme.toml"} {
		if _, err := fs.Stat(theme.Hugo(), name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

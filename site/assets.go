package site

import (
	"bytes"
	"net/http"
	"time"

	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/site/html"
)

// serveScript answers html.ScriptPath with the theme's script, which the pipeline's and the resource pages link
// (they are served one by one, with no static folder beside them). The pages name it with a version parameter
// that changes with its content, so it may be cached for good.
func (h *Handler) serveScript(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != html.ScriptPath || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	js, err := h.o.Theme.Script()
	if err != nil {
		h.o.Log.ErrorContext(r.Context(), "site: the theme's script", "err", err)
		apierr.Write(w, r, apierr.New(http.StatusInternalServerError, "the theme's script cannot be read"))
		return true
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.URL.Query().Get("v") != "" {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "public, max-age=300")
	}
	http.ServeContent(w, r, "ldhub.js", time.Time{}, bytes.NewReader(js))
	return true
}

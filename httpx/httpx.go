// Package httpx holds the HTTP rules every surface of the hub shares (the REST API, the direct-URL site, the
// SPARQL endpoints): CORS and the security headers. It sits below everything that serves HTTP, so that the API,
// the site and the engine each set the same headers from one place instead of three copies drifting apart.
package httpx

import (
	"net/http"
	"net/textproto"
	"slices"
	"strings"
)

// CORS: anyone may read (GET, HEAD, and SPARQL queries, which may be POSTed), from any origin and without
// credentials: `Access-Control-Allow-Origin: *` never lets a browser expose an answer to a request it sent with
// credentials. Writes are another matter: a browser holding cached Basic credentials would send them along, so a
// cross-origin write is answered (and its preflight allowed) only for the origins the operator configured.
const (
	// AllowHeaders are the request headers a cross-origin caller may send.
	AllowHeaders = "Authorization, Accept, Accept-Encoding, Content-Type, Range, If-None-Match, If-Modified-Since"
	// ExposeHeaders are the response headers a cross-origin reader may see.
	ExposeHeaders = "ETag, Link, Content-Location, Vary, Content-Range"
	// MaxAge is how long a browser may cache a preflight's answer, in seconds.
	MaxAge = "600"
)

var (
	hAllowOrigin   = textproto.CanonicalMIMEHeaderKey("Access-Control-Allow-Origin")
	hExposeHeaders = textproto.CanonicalMIMEHeaderKey("Access-Control-Expose-Headers")
	// Shared values: their capacity is their length, so a later Header.Add appends to a copy.
	anyOrigin = []string{"*"}
	expose    = []string{ExposeHeaders}
)

// AllowRead marks a response as readable from any origin. It writes shared slices into h (no allocation): callers
// must not modify the values in place.
func AllowRead(h http.Header) {
	h[hAllowOrigin] = anyOrigin
	h[hExposeHeaders] = expose
}

// Origins is the list of origins (scheme://host[:port]) allowed to write cross-origin; "*" in it allows any.
type Origins []string

// ParseOrigins reads a comma-separated list of origins (`ldhub serve --cors-origin`). Blank entries are skipped and
// a trailing slash is dropped, since a browser's Origin header never has one.
func ParseOrigins(list string) Origins {
	var o Origins
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimRight(strings.TrimSpace(s), "/"); s != "" {
			o = append(o, s)
		}
	}
	return o
}

// Allows reports whether a browser request from origin may write.
func (o Origins) Allows(origin string) bool {
	return origin != "" && (slices.Contains(o, "*") || slices.ContainsFunc(o, func(s string) bool { return strings.EqualFold(s, origin) }))
}

// AllowWrite marks the answer to a write: readable by its origin when that origin may write (with Vary: Origin,
// since the answer then depends on it), by nobody cross-origin otherwise.
func (o Origins) AllowWrite(h http.Header, r *http.Request) {
	h.Add("Vary", "Origin")
	if origin := r.Header.Get("Origin"); o.Allows(origin) {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", ExposeHeaders)
	}
}

// CrossOriginWrite reports whether r is a browser's write from an origin that may not write: an Origin header
// naming neither the hub itself (self, scheme://host of its base URL; "" trusts the request's Host) nor a
// configured origin. Such a request is refused before it changes anything, since a form (multipart or text/plain)
// is sent cross-site without a preflight.
func (o Origins) CrossOriginWrite(r *http.Request, self string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || o.Allows(origin) {
		return false
	}
	if self == "" {
		return !sameHost(origin, r.Host)
	}
	return !strings.EqualFold(origin, self)
}

func sameHost(origin, host string) bool {
	_, rest, ok := strings.Cut(origin, "://")
	return ok && strings.EqualFold(rest, host)
}

// Preflight answers a CORS preflight for a resource allowing methods (OPTIONS is added). A preflight for a
// method in reads is answered for any origin; for any other method only when o allows the request's origin.
// Without an allowed origin the answer carries no Access-Control-Allow-Origin, which the browser takes as a no.
func (o Origins) Preflight(w http.ResponseWriter, r *http.Request, methods, reads []string) {
	h := w.Header()
	all := strings.Join(append(slices.Clone(methods), http.MethodOptions), ", ")
	h.Set("Allow", all)
	asked := r.Header.Get("Access-Control-Request-Method")
	switch {
	case asked == "" || slices.Contains(reads, asked):
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", strings.Join(append(slices.Clone(reads), http.MethodOptions), ", "))
	case o.Allows(r.Header.Get("Origin")):
		h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		h.Set("Access-Control-Allow-Methods", all)
		h.Add("Vary", "Origin")
	default:
		h.Add("Vary", "Origin")
	}
	h.Set("Access-Control-Allow-Headers", AllowHeaders)
	h.Set("Access-Control-Max-Age", MaxAge)
	w.WriteHeader(http.StatusNoContent)
}

// ContentSecurityPolicy lets the hub's pages load only what the default theme uses: its inline stylesheet, its
// icon (a data: URL), images of its own origin and its script file (/_ldhub/ldhub.js: the term filter; never an
// inline script), which may fetch from the hub itself (a large publication's labels index); nothing may frame a
// page, a form (the SPARQL form) posts only to the hub. A dump or a JSON answer opened in a browser is covered by
// the same rule.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// SecurityHeaders are set on every answer of the hub, by ldhub itself and by the generated nginx and Apache
// configurations for the static tree (webconf.NginxConfig, webconf.ApacheConfig).
var SecurityHeaders = [][2]string{
	{"X-Content-Type-Options", "nosniff"},
	{"Content-Security-Policy", ContentSecurityPolicy},
	{"X-Frame-Options", "DENY"},
	{"Referrer-Policy", "strict-origin-when-cross-origin"},
}

var secure = func() map[string][]string {
	m := map[string][]string{}
	for _, kv := range SecurityHeaders {
		m[textproto.CanonicalMIMEHeaderKey(kv[0])] = []string{kv[1]}
	}
	return m
}()

// Secure sets the security headers on h, with shared slices (see AllowRead).
func Secure(h http.Header) {
	for k, v := range secure {
		h[k] = v
	}
}

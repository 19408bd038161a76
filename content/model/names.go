package model

import (
	"path"
	"strings"
)

// The names below are the one list of what the hub's URL space and rendered tree give a meaning to; site/tree,
// the direct-URL handler and the pipeline take their names from here, and the store refuses them as pathSegments
// and publication URI segments, so that no group, repository or publication can shadow a page, a version or a
// route (issue 15: a group called index.html broke every render).
const (
	// PageFile is the HTML page of a folder in the rendered tree and in the pages folder (<path>/index.html).
	PageFile = "index.html"
	// VersionsSegment introduces a version below a publication's URL: <publication>/versions/<label>.
	VersionsSegment = "versions"
	// VoIDFile is a publication's VoID description: <publication>/void.ttl.
	VoIDFile = "void.ttl"
	// SPARQLSegment is a publication's (or version's) SPARQL endpoint on the legacy /ns routes.
	SPARQLSegment = "sparql"
	// NSSegment is the top-level group of the legacy /ns routes. It belongs to the hub: only an administrator
	// (or the hub itself) creates it, so no ordinary credential can own every /ns route by creating it first.
	NSSegment = "ns"
)

// RepresentationExts are the extensions that select a representation on a direct URL (<publication>.ttl), so a
// segment ending in one would be read as another segment's representation.
var RepresentationExts = []string{".ttl", ".nt", ".rdf", ".jsonld", ".html", ".trig", ".nq"}

// topReserved are the first path segments the hub's own routes and static files answer.
var topReserved = []string{"api", "git", "static", ".well-known", NSSegment}

// everyLevel are the segments reserved below the top as well.
var everyLevel = []string{PageFile, VersionsSegment, VoIDFile, SPARQLSegment}

// ReservedSegment returns why seg may not be a pathSegment (of a group or repository) or a segment of a
// publication URI, or "" when it may. top is true for a top-level group. Names are compared without regard to
// case: the rendered tree may live on a case-insensitive file system. `ns` at the top level is reserved here too;
// ReservedFor lets the hub's administrator create it.
func ReservedSegment(seg string, top bool) string {
	l := strings.ToLower(seg)
	if top {
		for _, r := range topReserved {
			if l == r {
				return "the hub's own route /" + r
			}
		}
	}
	for _, r := range everyLevel {
		if l == r {
			return "a name the direct-URL site uses below every path (" + r + ")"
		}
	}
	if ext := path.Ext(l); ext != "" {
		for _, r := range RepresentationExts {
			if ext == r {
				return "its extension selects a representation on direct URLs (" + r + ")"
			}
		}
	}
	return ""
}

// ReservedFor is ReservedSegment for a top-level group (top) or a lower segment created by actor: `ns` is the
// hub's, so its administrator and the hub itself may create it.
func ReservedFor(actor Actor, seg string, top bool) string {
	if top && strings.EqualFold(seg, NSSegment) && (actor.Admin || actor.System) {
		return ""
	}
	return ReservedSegment(seg, top)
}

// Package theme holds ldhub's page templates: the Hugo theme in hugo/ with which site/html renders every HTML page,
// those the pipeline writes (hub, groups, repositories, publications, versions) and the resource pages the
// direct-URL handler renders on request.
package theme

import (
	"embed"
	"io/fs"
)

// hugoFiles is the Hugo theme (layouts/, static/, theme.toml) of the static site that site/html renders. It is
// embedded so that an installed ldhub needs no source tree; publishers override single files by path.
//
//go:embed all:hugo
var hugoFiles embed.FS

// Hugo returns the default Hugo theme, rooted at its theme folder (layouts/, static/).
func Hugo() fs.FS {
	sub, err := fs.Sub(hugoFiles, "hugo")
	if err != nil {
		// fs.Sub only fails on an invalid path; "hugo" is a constant valid one.
		panic(err)
	}
	return sub
}

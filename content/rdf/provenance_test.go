package rdf_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf/rdftest"
)

// The project's code is its own: libraries are module dependencies, never copies. A copied project keeps its
// copyright and licence header (the json-gold fork that lived in content/rdf/jsonld/internal/ld did), so a source
// file whose header names a copyright holder or a licence, or a LICENSE/COPYING/NOTICE file below the root, means
// code from elsewhere came back. The test lives here because that is where the last fork was.

// foreignHeader matches the lines that start another project's file header.
var foreignHeader = regexp.MustCompile(`(?i)copyright\s*(\(c\)|©|[0-9]{4})|SPDX-License-[I]dentifier|licensed under [t]he|` +
	`all rights [r]eserved|permission is hereby [g]ranted`)

var sourceExt = map[string]bool{".go": true, ".js": true, ".mjs": true, ".ts": true, ".py": true, ".sh": true,
	".c": true, ".h": true, ".css": true, ".html": true, ".s": true, ".java": true, ".rs": true}

// headerLines is how much of a file counts as its header.
const headerLines = 40

func foreignHeaderLine(path string) (int, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; n <= headerLines && sc.Scan(); n++ {
		if foreignHeader.MatchString(sc.Text()) {
			return n, sc.Text(), nil
		}
	}
	return 0, "", nil
}

func TestNoForeignSourceInTree(t *testing.T) {
	root := rdftest.ModuleRoot(t)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			// testdata holds third-party test suites and fixtures, which are data with their own licences;
			// node_modules and .git are not part of the tree.
			switch d.Name() {
			case ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		base := strings.ToUpper(strings.TrimSuffix(d.Name(), filepath.Ext(d.Name())))
		if rel != d.Name() && (base == "LICENSE" || base == "LICENCE" || base == "COPYING" || base == "NOTICE") {
			t.Errorf("%s: a licence file below the root means another project's code was copied in", rel)
		}
		if !sourceExt[filepath.Ext(path)] {
			return nil
		}
		files++
		n, line, err := foreignHeaderLine(path)
		if err != nil {
			return err
		}
		if n > 0 {
			t.Errorf("%s:%d: another project's header: %q (use the project as a module dependency instead)", rel, n, strings.TrimSpace(line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d source files found under %s; the walk is not seeing the tree", files, root)
	}
}

// TestForeignHeaderDetected: the detector finds the headers copied projects carry, and not this project's own
// comments about copyright.
func TestForeignHeaderDetected(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{"// Copy" + "right 2015-2017 Piprate Limited\n//\n// Licensed under the Apache License, Version 2.0", true},
		{"/*\n * Copy" + "right (c) 2009 The Go Authors. All rights reserved.\n */", true},
		{"# SPDX-" + "License-Identifier: MIT", true},
		{"// Permission is hereby " + "granted, free of charge, to any person", true},
		{"// Package x checks that no copyright header of another project comes back.", false},
	} {
		path := filepath.Join(dir, "x.go")
		if err := os.WriteFile(path, []byte(tt.header+"\npackage x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		n, _, err := foreignHeaderLine(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := n > 0; got != tt.want {
			t.Errorf("%q: detected %v, want %v", tt.header, got, tt.want)
		}
	}
}

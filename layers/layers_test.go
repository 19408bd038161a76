package layers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/ldhub/ldhub"

// rule is one row of the import table: the packages it names and what they may import.
type rule struct {
	line     int
	packages []string
	allowed  []string // "*" allows everything
}

var code = regexp.MustCompile("`([^`]+)`")

// readTable parses the rows between the import-table markers of docs/design.md.
func readTable(r io.Reader) ([]rule, error) {
	var rules []rule
	in := false
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.Contains(line, "<!-- import-table:begin -->"):
			in = true
			continue
		case strings.Contains(line, "<!-- import-table:end -->"):
			if len(rules) == 0 {
				return nil, fmt.Errorf("line %d: the import table has no rows", n)
			}
			return rules, nil
		}
		if !in || !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 2 {
			return nil, fmt.Errorf("line %d: want 2 cells, got %d", n, len(cells))
		}
		pkgs, allowed := names(cells[0]), names(cells[1])
		if len(pkgs) == 0 {
			if strings.TrimSpace(cells[0]) == "package" {
				continue // header
			}
			return nil, fmt.Errorf("line %d: no package named", n)
		}
		if len(allowed) == 0 && !strings.Contains(cells[1], "—") {
			return nil, fmt.Errorf("line %d: write — for a package that imports no ldhub package", n)
		}
		rules = append(rules, rule{line: n, packages: pkgs, allowed: allowed})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no <!-- import-table:begin/end --> markers")
}

func names(cell string) []string {
	var out []string
	for _, m := range code.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// match reports whether pattern names pkg, and how specifically (longer is more specific; an exact name beats a
// /... pattern of the same length).
func match(pattern, pkg string) (bool, int) {
	if pattern == "*" {
		return true, 0
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		if pkg == base || strings.HasPrefix(pkg, base+"/") {
			return true, 2 * len(base)
		}
		return false, 0
	}
	return pattern == pkg, 2*len(pattern) + 1
}

// ruleFor returns the most specific row naming pkg.
func ruleFor(rules []rule, pkg string) (rule, bool) {
	best, bestScore := rule{}, -1
	for _, r := range rules {
		for _, p := range r.packages {
			if ok, score := match(p, pkg); ok && score > bestScore {
				best, bestScore = r, score
			}
		}
	}
	return best, bestScore >= 0
}

func allows(r rule, imp string) bool {
	for _, a := range r.allowed {
		if ok, _ := match(a, imp); ok {
			return true
		}
	}
	return false
}

// violations checks every package's imports of module packages against the rules.
func violations(rules []rule, graph map[string][]string) []string {
	var out []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		r, ok := ruleFor(rules, p)
		if !ok {
			out = append(out, fmt.Sprintf("%s: no row of the import table names this package", p))
			continue
		}
		for _, imp := range graph[p] {
			if !allows(r, imp) {
				out = append(out, fmt.Sprintf("%s imports %s, which the row of docs/design.md line %d does not allow", p, imp, r.line))
			}
		}
	}
	return out
}

// importGraph lists the module's packages with the module packages each imports (production code only).
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		var imps []string
		for _, imp := range p.Imports {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok {
				imps = append(imps, r)
			}
		}
		graph[rel] = imps
	}
	if len(graph) < 10 {
		t.Fatalf("go list found only %d packages", len(graph))
	}
	return graph
}

func TestImportsFollowDesign(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := readTable(f)
	if err != nil {
		t.Fatalf("docs/design.md: %v", err)
	}
	for _, v := range violations(rules, importGraph(t)) {
		t.Error(v)
	}
}

// The checker itself: an upward edge, an unlisted package and a specific row overriding a general one.
func TestViolations(t *testing.T) {
	table := "<!-- import-table:begin -->\n| package | may import |\n|---|---|\n" +
		"| `content/rdf` | — |\n| `content/...` | `content/rdf` |\n| `site/...` | `content/...`, `httpx/...` |\n" +
		"| `cmd/...` | `*` |\n<!-- import-table:end -->\n"
	rules, err := readTable(strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	graph := map[string][]string{
		"content/rdf":        nil,
		"content/codec":      {"content/rdf"},
		"content/store":      {"content/rdf", "content/codec", "api/apierr"}, // codec: not allowed; api: upward
		"site":               {"content/store", "httpx/apierr"},
		"site/fastpath":      {"site"}, // site/... does not allow site
		"cmd/ldhub":          {"api/server", "site"},
		"sparqlsvc/protocol": {"content/rdf"}, // no row
	}
	got := violations(rules, graph)
	want := []string{
		"content/store imports content/codec",
		"content/store imports api/apierr",
		"site/fastpath imports site,",
		"sparqlsvc/protocol: no row",
	}
	if len(got) != len(want) {
		t.Fatalf("violations:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], strings.TrimSuffix(want[i], ",")) {
			t.Errorf("violation %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
	if _, err := readTable(strings.NewReader("| `x` | |\n")); err == nil {
		t.Error("a document without markers was accepted")
	}
}

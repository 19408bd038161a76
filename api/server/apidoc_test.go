package server_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// routeCell is the first cell of a route row in docs/api.md: one or more methods and a path, in backticks.
var routeCell = regexp.MustCompile("^\\| `((?:GET|POST|PUT|PATCH|DELETE)(?:, (?:GET|POST|PUT|PATCH|DELETE))*) (/\\S+|P\\S*)` \\|")

// TestAPIDocNamesEveryRoute: docs/api.md names exactly the routes of the table the dispatcher serves and Swagger
// is generated from. The page abbreviates the legacy publication prefix as P and lists the v2 repositories routes
// once for both spellings; both are expanded here.
func TestAPIDocNamesEveryRoute(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	const p = "/ns/{repository}/{accessibility}/{status}/{context}/{function}/{name}"
	var documented []string
	for _, line := range strings.Split(string(doc), "\n") {
		m := routeCell.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		path := m[2]
		if strings.HasPrefix(path, "P") {
			path = p + path[1:]
		}
		if !strings.HasPrefix(path, "/api/") && !strings.HasPrefix(path, "/ns/") {
			continue
		}
		for _, method := range strings.Split(m[1], ", ") {
			documented = append(documented, method+" "+path)
			if strings.HasPrefix(path, "/api/v2/repositories") {
				documented = append(documented, method+" /api/v2/respositories"+strings.TrimPrefix(path, "/api/v2/repositories"))
			}
		}
	}
	var served []string
	for _, rt := range newFixture(t).srv.Routes() {
		served = append(served, rt.Method+" "+rt.Pattern)
	}
	slices.Sort(documented)
	slices.Sort(served)
	for _, r := range served {
		if _, found := slices.BinarySearch(documented, r); !found {
			t.Errorf("served but not in docs/api.md: %s", r)
		}
	}
	for _, r := range documented {
		if _, found := slices.BinarySearch(served, r); !found {
			t.Errorf("in docs/api.md but not served: %s", r)
		}
	}
}

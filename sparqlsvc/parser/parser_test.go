package parser_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/parser"
)

// TestAlgebra checks the §18.2 translation of one query per construct, as printed by algebra.FormatQuery.
func TestAlgebra(t *testing.T) {
	tests := []struct {
		name, query, want string
	}{
		{
			name:  "filter scoped to group, BGPs across FILTER merged",
			query: `PREFIX : <http://ex/> SELECT ?s WHERE { ?s :p ?o . FILTER(?o > 1) ?s :q ?z }`,
			want: `(select
  (project (?s)
    (filter (> ?o 1)
      (bgp (triple ?s <http://ex/p> ?o) (triple ?s <http://ex/q> ?z)))))`,
		},
		{
			name:  "OPTIONAL with its filter becomes LeftJoin expression",
			query: `PREFIX : <http://ex/> SELECT * { ?s :p ?o OPTIONAL { ?o :q ?z FILTER(?z != ?o) } }`,
			want: `(select
  (project (?s ?o ?z)
    (leftjoin
      (bgp (triple ?s <http://ex/p> ?o))
      (bgp (triple ?o <http://ex/q> ?z))
      (!= ?z ?o))))`,
		},
		{
			name:  "UNION chain and MINUS",
			query: `PREFIX : <http://ex/> SELECT * { { ?s :p ?o } UNION { ?s :q ?o } UNION { ?s :r ?o } MINUS { ?s :bad ?o } }`,
			want: `(select
  (project (?s ?o)
    (minus
      (union
        (union
          (bgp (triple ?s <http://ex/p> ?o))
          (bgp (triple ?s <http://ex/q> ?o)))
        (bgp (triple ?s <http://ex/r> ?o)))
      (bgp (triple ?s <http://ex/bad> ?o)))))`,
		},
		{
			name:  "GRAPH and SERVICE SILENT",
			query: `PREFIX : <http://ex/> SELECT * { GRAPH ?g { ?s :p ?o } SERVICE SILENT <http://remote/sparql> { ?o :q ?z } }`,
			want: `(select
  (project (?g ?s ?o ?z)
    (join
      (graph ?g
        (bgp (triple ?s <http://ex/p> ?o)))
      (service silent <http://remote/sparql>
        (bgp (triple ?o <http://ex/q> ?z))))))`,
		},
		{
			name:  "BIND and inline VALUES",
			query: `PREFIX : <http://ex/> SELECT * { ?s :p ?o BIND(?o * 2 AS ?d) VALUES ?s { :a :b } }`,
			want: `(select
  (project (?s ?o ?d)
    (join
      (extend ((?d (* ?o 2)))
        (bgp (triple ?s <http://ex/p> ?o)))
      (table (vars ?s) (row [?s <http://ex/a>]) (row [?s <http://ex/b>])))))`,
		},
		{
			name:  "property paths",
			query: `PREFIX : <http://ex/> SELECT * { ?s ^:p/:q* ?o . ?o :r+|:s? ?z . ?z !(:a|^:b) ?w . ?w !^:c ?v }`,
			want: `(select
  (project (?s ?o ?z ?w ?v)
    (join
      (join
        (join
          (join
            (bgp (triple ?.p1 <http://ex/p> ?s))
            (path ?.p1 (path* <http://ex/q>) ?o))
          (path ?o (alt (path+ <http://ex/r>) (path? <http://ex/s>)) ?z))
        (path ?z (alt (notoneof <http://ex/a>) (reverse (notoneof <http://ex/b>))) ?w))
      (path ?v (notoneof <http://ex/c>) ?w))))`,
		},
		{
			name:  "aggregates, HAVING, ORDER BY, slice",
			query: `PREFIX : <http://ex/> SELECT ?s (COUNT(DISTINCT ?o) AS ?n) (GROUP_CONCAT(?o; SEPARATOR=", ") AS ?all) { ?s :p ?o } GROUP BY ?s HAVING (COUNT(DISTINCT ?o) > 2) ORDER BY DESC(?n) LIMIT 10 OFFSET 5`,
			want: `(select
  (slice 5 10
    (project (?s ?n ?all)
      (order ((desc ?n))
        (extend ((?all ?.agg2))
          (extend ((?n ?.agg1))
            (filter (> ?.agg1 2)
              (group (?s) ((?.agg1 (count distinct ?o)) (?.agg2 (group_concat ?o (separator ", "))))
                (bgp (triple ?s <http://ex/p> ?o))))))))))`,
		},
		{
			name:  "GROUP BY expression AS, REDUCED",
			query: `PREFIX : <http://ex/> SELECT REDUCED ?k { ?s :p ?o } GROUP BY (STR(?o) AS ?k) ?s`,
			want: `(select
  (reduced
    (project (?k)
      (group ((?k (str ?o)) ?s) ()
        (bgp (triple ?s <http://ex/p> ?o))))))`,
		},
		{
			name:  "CONSTRUCT WHERE",
			query: `PREFIX : <http://ex/> CONSTRUCT WHERE { ?s :p ?o }`,
			want: `(construct ((triple ?s <http://ex/p> ?o))
  (bgp (triple ?s <http://ex/p> ?o)))`,
		},
		{
			name:  "CONSTRUCT template with blank node, dataset",
			query: `PREFIX : <http://ex/> CONSTRUCT { ?s :q [ :r ?o ] } FROM <http://g/1> FROM NAMED <http://g/2> WHERE { ?s :p ?o }`,
			want: `(construct ((triple ?s <http://ex/q> _:.b1) (triple _:.b1 <http://ex/r> ?o))
  (dataset (<http://g/1>) (<http://g/2>))
  (bgp (triple ?s <http://ex/p> ?o)))`,
		},
		{
			name:  "ASK with EXISTS and NOT EXISTS",
			query: `PREFIX : <http://ex/> ASK { ?s :p ?o FILTER EXISTS { ?o :q ?s } FILTER NOT EXISTS { ?s :r ?o } }`,
			want: `(ask
  (filter (exprlist (exists (bgp (triple ?o <http://ex/q> ?s))) (notexists (bgp (triple ?s <http://ex/r> ?o))))
    (bgp (triple ?s <http://ex/p> ?o))))`,
		},
		{
			name:  "DESCRIBE with WHERE",
			query: `PREFIX : <http://ex/> DESCRIBE ?s :x WHERE { ?s :p ?o }`,
			want: `(describe (?s <http://ex/x>)
  (bgp (triple ?s <http://ex/p> ?o)))`,
		},
		{
			name:  "DESCRIBE without WHERE",
			query: `DESCRIBE <http://ex/a>`,
			want: `(describe (<http://ex/a>)
  (bgp))`,
		},
		{
			name:  "IN and NOT IN",
			query: `PREFIX : <http://ex/> SELECT * { ?s :p ?o FILTER(?o IN (1, 2.5, "x"@en) && ?s NOT IN (:a)) }`,
			want: `(select
  (project (?s ?o)
    (filter (&& (in ?o 1 2.5 "x"@en) (notin ?s <http://ex/a>))
      (bgp (triple ?s <http://ex/p> ?o)))))`,
		},
		{
			name:  "operator precedence",
			query: `SELECT ?x { FILTER(?a + ?b * ?c - -1 = 3 || !?x && ?y < 2) }`,
			want: `(select
  (project (?x)
    (filter (|| (= (- (+ ?a (* ?b ?c)) -1) 3) (&& (! ?x) (< ?y 2)))
      (bgp))))`,
		},
		{
			name:  "signed numbers as additive operators",
			query: `SELECT ?x { FILTER(?a -1 > ?b +2.0e0) }`,
			want: `(select
  (project (?x)
    (filter (> (- ?a 1) (+ ?b 2.0e0))
      (bgp))))`,
		},
		{
			name:  "collection",
			query: `PREFIX : <http://ex/> SELECT * { ?s :p (1 ?x) }`,
			want: `(select
  (project (?s ?x)
    (bgp (triple ?s <http://ex/p> ?_:.b1) (triple ?_:.b1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> 1) (triple ?_:.b1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> ?_:.b2) (triple ?_:.b2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> ?x) (triple ?_:.b2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil>))))`,
		},
		{
			name:  "BASE and relative IRIs",
			query: `BASE <http://ex/dir/doc> PREFIX r: <rel#> SELECT * { <../a> r:b <#c> }`,
			want: `(select
  (project ()
    (bgp (triple <http://ex/a> <http://ex/dir/rel#b> <http://ex/dir/doc#c>))))`,
		},
		{
			name:  "sub-select with aggregate",
			query: `PREFIX : <http://ex/> SELECT ?s { ?s :p ?o { SELECT ?s (MAX(?v) AS ?m) { ?s :v ?v } GROUP BY ?s } }`,
			want: `(select
  (project (?s)
    (join
      (bgp (triple ?s <http://ex/p> ?o))
      (project (?s ?m)
        (extend ((?m ?.agg1))
          (group (?s) ((?.agg1 (max ?v)))
            (bgp (triple ?s <http://ex/v> ?v))))))))`,
		},
		{
			name:  "casts and built-ins",
			query: `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT (xsd:integer(?x) AS ?i) (REGEX(?x, "^a", "i") AS ?r) (COALESCE(?x, BNODE()) AS ?c) (isURI(?x) AS ?u) {}`,
			want: `(select
  (project (?i ?r ?c ?u)
    (extend ((?u (isiri ?x)))
      (extend ((?c (coalesce ?x (bnode))))
        (extend ((?r (regex ?x "^a" "i")))
          (extend ((?i (<http://www.w3.org/2001/XMLSchema#integer> ?x)))
            (bgp)))))))`,
		},
		{
			name:  "literal forms",
			query: `SELECT * { ?s ?p "tab\there", '''long 'quoted' text''', "x"^^<http://ex/dt>, true, -5 }`,
			want: `(select
  (project (?s ?p)
    (bgp (triple ?s ?p "tab\there") (triple ?s ?p "long 'quoted' text") (triple ?s ?p "x"^^<http://ex/dt>) (triple ?s ?p true) (triple ?s ?p -5))))`,
		},
		{
			name:  "FILTER after OPTIONAL applies to the group",
			query: `PREFIX : <http://ex/> SELECT * { ?s :p ?o OPTIONAL { ?o :q ?z } FILTER(BOUND(?z)) }`,
			want: `(select
  (project (?s ?o ?z)
    (filter (bound ?z)
      (leftjoin
        (bgp (triple ?s <http://ex/p> ?o))
        (bgp (triple ?o <http://ex/q> ?z))))))`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := parser.Parse(tc.query, parser.Options{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if err := checkAlgebra(q); err != nil {
				t.Error(err)
			}
			if got := algebra.FormatQuery(q); got != tc.want {
				t.Errorf("algebra of\n%s\ngot:\n%s\nwant:\n%s", tc.query, got, tc.want)
			}
		})
	}
}

// TestSyntaxErrors checks that invalid queries are rejected with the position of the offending token and a
// message that names the problem.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name, query string
		line, col   int
		msg         string
	}{
		{"missing closing brace", "SELECT * {\n  ?s ?p ?o\n  FILTER(?o > 1)\n", 4, 1, "expected a triple pattern, a graph pattern or '}' but found end of query"},
		{"missing dot between triples", "SELECT * {\n  ?s ?p ?o\n  ?a ?b ?c }", 3, 3, "expected '.' or '}' but found '?a'"},
		{"undeclared prefix", "SELECT * { ?s ex:p ?o }", 1, 15, `undeclared prefix "ex:"`},
		{"relative IRI without base", "SELECT * { ?s <p> ?o }", 1, 15, "cannot resolve <p>"},
		{"unterminated string", "SELECT * { ?s ?p \"abc }", 1, 18, "unterminated string"},
		{"bad escape", `SELECT * { ?s ?p "a\qb" }`, 1, 20, `invalid escape \q`},
		{"local name may not start with '-'", "PREFIX ex: <http://ex/> ASK { ex:-a ?p ?o }", 1, 34, "expected a predicate but found '-'"},
		{"bad escape in prefixed name", `PREFIX ex: <http://ex/> ASK { ex:a\z ?p ?o }`, 1, 35, `invalid escape in prefixed name`},
		{"BIND rebinds a variable in scope", "SELECT * {\n ?s ?p ?o .\n BIND(1 AS ?o) }", 3, 12, "BIND assigns ?o, which is already in scope"},
		{"SELECT expression rebinds WHERE variable", "SELECT (1 AS ?o) { ?s ?p ?o }", 1, 8, "SELECT assigns ?o, which is already in scope"},
		{"SELECT expression assigns twice", "SELECT (1 AS ?x) (2 AS ?x) {}", 1, 18, "SELECT assigns ?x twice"},
		{"SELECT * with GROUP BY", "SELECT * { ?s ?p ?o } GROUP BY ?s", 1, 8, "SELECT * is not allowed"},
		{"ungrouped projection", "SELECT ?s ?o { ?s ?p ?o } GROUP BY ?s", 1, 11, "?o is projected but neither grouped nor aggregated"},
		{"ungrouped variable in expression", "SELECT ((?o + 1) AS ?x) { ?s ?p ?o } GROUP BY ?s", 1, 8, "?o is used outside an aggregate"},
		{"aggregate in FILTER", "SELECT ?s { ?s ?p ?o FILTER(COUNT(?o) > 1) } GROUP BY ?s", 1, 29, "aggregate COUNT is only allowed in SELECT expressions"},
		{"nested aggregate", "SELECT (SUM(COUNT(?o)) AS ?n) { ?s ?p ?o }", 1, 13, "aggregate COUNT inside another aggregate"},
		{"blank node label in two BGPs", "SELECT * { _:a ?p ?o OPTIONAL { _:a ?q ?r } }", 1, 33, "blank node _:a is used in more than one basic graph pattern"},
		{"VALUES row too short", "SELECT * {} VALUES (?a ?b) { (1) }", 1, 30, "VALUES row has 1 values for 2 variables"},
		{"wrong arity", "SELECT * { FILTER(STRLEN(?a, ?b)) }", 1, 19, "STRLEN takes 1 arguments, not 2"},
		{"trailing garbage", "ASK {} }", 1, 8, "expected end of query but found '}'"},
		{"no query form", "PREFIX : <http://ex/>", 1, 22, "expected SELECT, CONSTRUCT, DESCRIBE or ASK"},
		{"surrogate code point escape", "SELECT * { ?s ?p '\\uD800' }", 1, 19, `invalid \u escape in string`},
		{"bad escape position", "SELECT * {\n ?s ?p \"abc\\x\" }", 2, 12, `invalid escape \x in string`},
		{"columns count the query as written after a \\u escape", "ASK { ?s ?p \"\\u00e9\" ?x }", 1, 22, "expected '.' or '}' but found '?x'"},
		{"unary operator on a unary expression", "ASK { FILTER(!!?x) }", 1, 15, "expected an expression but found '!'"},
		{"invalid UTF-8", "ASK {\n ?s ?p \"a\xffb\" }", 2, 10, "not valid UTF-8"},
		{"invalid escape in comment is ignored", "ASK {} # C:\\users\nfoo", 2, 1, "expected end of query but found 'foo'"},
		{"columns count characters", "SELECT * { ?s ?p \"é\" ?x }", 1, 22, "expected '.' or '}' but found '?x'"},
		{"too deep", strings.Repeat("SELECT * {", 1) + strings.Repeat("{", 2000) + strings.Repeat("}", 2001), 1, 0, "nested deeper than 1000 levels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parser.Parse(tc.query, parser.Options{})
			if err == nil {
				t.Fatalf("Parse accepted %q", tc.query)
			}
			var se *rdf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not an *rdf.SyntaxError", err, err)
			}
			if se.Syntax != "sparql" || se.Line != tc.line || tc.col != 0 && se.Column != tc.col {
				t.Errorf("error at %s line %d, column %d; want sparql line %d, column %d (%v)", se.Syntax, se.Line, se.Column, tc.line, tc.col, err)
			}
			if !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("message %q does not contain %q", se.Msg, tc.msg)
			}
		})
	}
}

// TestValidQueries checks queries that look suspicious but are valid, so the side conditions do not over-reach.
func TestValidQueries(t *testing.T) {
	tests := []struct{ name, query string }{
		{"blank node label across FILTER", "SELECT * { _:a ?p ?o FILTER(?o) _:a ?q ?r }"},
		{"same label in template and pattern", "CONSTRUCT { _:a ?p ?o } WHERE { _:a ?p ?o }"},
		{"BIND of a variable used only later", "SELECT * { BIND(1 AS ?x) ?s ?p ?x }"},
		{"BIND of a variable used only in a FILTER before", "SELECT * { FILTER(?x) BIND(1 AS ?x) }"},
		{"BIND of a variable used only in MINUS before", "SELECT * { ?s ?p ?o MINUS { ?s ?q ?x } BIND(1 AS ?x) }"},
		{"expression over earlier projected aggregate", "SELECT (COUNT(*) AS ?n) ((?n + 1) AS ?m) {}"},
		{"bracketed variable is a group key", "SELECT ?s (COUNT(*) AS ?n) { ?s ?p ?o } GROUP BY (?s)"},
		{"HAVING alone makes one group", "SELECT (COUNT(*) AS ?n) { ?s ?p ?o } HAVING (COUNT(*) > 1)"},
		{"aggregate in ORDER BY", "SELECT ?s { ?s ?p ?o } GROUP BY ?s ORDER BY COUNT(?o)"},
		{"keywords are case-insensitive", "select distinct ?s where { ?s a ?t } order by asc(?s) limit 1"},
		{"prefixed names with dots and escapes", "PREFIX ex: <http://ex/> SELECT * { ex:a.b ex:c\\~d ex:e%20f . }"},
		{"empty group and trailing dot", "ASK { ?s ?p ?o . }"},
		{"nested optional with filter", "SELECT * { ?s ?p ?o OPTIONAL { { ?o ?q ?z FILTER(?s != ?z) } } }"},
		{"VALUES with UNDEF and empty rows", "SELECT * {} VALUES (?a ?b) { (1 UNDEF) (UNDEF 2) }"},
		{"unary operators on primaries", "ASK { FILTER(!(!?x) && - -1 < +?y) }"},
		{"less-than not taken for an IRI", "SELECT * { FILTER(?a < ?b && ?c > ?d) }"},
		{"codepoint escape in IRI", "SELECT * { ?s <http://ex/\\u0061> ?o }"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parser.Parse(tc.query, parser.Options{}); err != nil {
				t.Errorf("Parse(%q): %v", tc.query, err)
			}
		})
	}
}

func TestPredeclaredPrefixes(t *testing.T) {
	o := parser.Options{Prefixes: []rdf.Prefix{{Name: "ex", IRI: "http://ex/"}, {Name: "", IRI: "http://default/"}}}
	q, err := parser.Parse("PREFIX ex: <http://override/> SELECT * { ex:a :b ?o }", o)
	if err != nil {
		t.Fatal(err)
	}
	want := "(project (?o)\n  (bgp (triple <http://override/a> <http://default/b> ?o)))"
	if got := algebra.Format(q.Op); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if len(q.Prefixes) != 1 || q.Prefixes[0].IRI != "http://override/" {
		t.Errorf("query prefixes %v, want only the query's own", q.Prefixes)
	}
}

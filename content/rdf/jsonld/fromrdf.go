package jsonld

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
)

// This file is Serialize RDF as JSON-LD (JSON-LD 1.1 API §8.4): a dataset becomes expanded JSON-LD, node objects
// ordered by identifier, lists folded into @list where the statements form well-formed lists.

type fromRDFOptions struct {
	useNativeTypes bool
	useRDFType     bool
	direction      string
	mode10         bool
}

// usage is where a node is used as an object: node, property, and the value object in the node.
type usage struct {
	node  map[string]any
	prop  string
	value map[string]any
	graph *graphNodes
}

type graphNodes struct {
	nodes    map[string]map[string]any
	order    []string
	nilUses  []usage
	once     map[string]*usage // nil entry: used more than once
	compound map[string]bool
}

func newGraphNodes(once map[string]*usage) *graphNodes {
	return &graphNodes{nodes: map[string]map[string]any{}, once: once, compound: map[string]bool{}}
}

func (g *graphNodes) node(id string) map[string]any {
	n, ok := g.nodes[id]
	if !ok {
		n = map[string]any{"@id": id}
		g.nodes[id] = n
		g.order = append(g.order, id)
	}
	return n
}

func termID(t rdf.Term) string {
	if t.IsBlank() {
		return "_:" + t.Value
	}
	return t.Value
}

// fromRDF converts quads (without duplicates) to expanded JSON-LD.
func fromRDF(quads []rdf.Quad, o fromRDFOptions) ([]any, error) {
	// Blank nodes are referenced once or more across the whole dataset.
	once := map[string]*usage{}
	graphs := map[string]*graphNodes{"@default": newGraphNodes(once)}
	var graphOrder []string
	def := graphs["@default"]
	for _, q := range quads {
		name := "@default"
		if !q.G.IsZero() {
			name = termID(q.G)
		}
		g, ok := graphs[name]
		if !ok {
			g = newGraphNodes(once)
			graphs[name] = g
			graphOrder = append(graphOrder, name)
		}
		if name != "@default" {
			def.node(name)
		}
		s := termID(q.S)
		node := g.node(s)
		if o.direction == DirectionCompoundLiteral && q.P.Value == rdf.RDFNS+"direction" {
			g.compound[s] = true
		}
		if !q.O.IsLiteral() {
			g.node(termID(q.O))
		}
		if q.P.Value == rdf.RDFType && !o.useRDFType && !q.O.IsLiteral() {
			addUnique(node, "@type", termID(q.O))
			continue
		}
		value, err := rdfToObject(q.O, o)
		if err != nil {
			return nil, err
		}
		p := termID(q.P)
		vm, _ := value.(map[string]any)
		if !addUniqueValue(node, p, vm) {
			continue
		}
		switch {
		case q.O.IsIRI() && q.O.Value == rdf.RDFNil:
			g.nilUses = append(g.nilUses, usage{node, p, vm, g})
		case q.O.IsBlank():
			id := termID(q.O)
			// A node that is an item of a list is not folded into a list itself: it stays a node, so that a
			// list of lists keeps the inner lists' heads in JSON-LD 1.0, which has no lists of lists.
			if _, seen := g.once[id]; seen || o.mode10 && p == rdf.RDFFirst {
				g.once[id] = nil
			} else {
				g.once[id] = &usage{node, p, vm, g}
			}
		}
	}
	for _, g := range graphs {
		if o.direction == DirectionCompoundLiteral {
			g.foldCompound()
		}
		g.foldLists()
	}
	var result []any
	ids := slices.Clone(def.order)
	slices.Sort(ids)
	for _, id := range ids {
		node, ok := def.nodes[id]
		if !ok {
			continue
		}
		if g, ok := graphs[id]; ok && id != "@default" {
			var inner []any
			gids := slices.Clone(g.order)
			slices.Sort(gids)
			for _, gid := range gids {
				n, ok := g.nodes[gid]
				if !ok || len(n) == 1 {
					continue
				}
				inner = append(inner, n)
			}
			if inner == nil {
				inner = []any{}
			}
			node["@graph"] = inner
		}
		if len(node) == 1 {
			continue
		}
		result = append(result, node)
	}
	if result == nil {
		result = []any{}
	}
	return result, nil
}

func addUnique(node map[string]any, key, v string) {
	vals, _ := node[key].([]any)
	if slices.Contains(vals, any(v)) {
		return
	}
	node[key] = append(vals, v)
}

// addUniqueValue appends v to node[key] unless an equal value is there; it reports whether it appended.
func addUniqueValue(node map[string]any, key string, v map[string]any) bool {
	vals, _ := node[key].([]any)
	for _, x := range vals {
		if jsonEqual(x, v) {
			return false
		}
	}
	node[key] = append(vals, v)
	return true
}

func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// foldLists replaces chains of blank nodes that form well-formed lists by @list values (§8.4.2 step 6).
func (g *graphNodes) foldLists() {
	if _, ok := g.nodes[rdf.RDFNil]; !ok {
		return
	}
	for _, u := range g.nilUses {
		node, prop, head := u.node, u.prop, u.value
		var list []any
		var listNodes []string
		for prop == rdf.RDFRest && g.wellFormedListNode(node) {
			id := node["@id"].(string)
			list = append(list, node[rdf.RDFFirst].([]any)[0])
			listNodes = append(listNodes, id)
			nu := g.once[id]
			node, prop, head = nu.node, nu.prop, nu.value
			if !strings.HasPrefix(node["@id"].(string), "_:") {
				break
			}
		}
		delete(head, "@id")
		slices.Reverse(list)
		if list == nil {
			list = []any{}
		}
		head["@list"] = list
		for _, id := range listNodes {
			delete(g.nodes, id)
		}
	}
}

func (g *graphNodes) wellFormedListNode(node map[string]any) bool {
	id, _ := node["@id"].(string)
	// The one use must be in this graph: a list's nodes and its head are in the same graph.
	if !strings.HasPrefix(id, "_:") || g.once[id] == nil || g.once[id].graph != g {
		return false
	}
	n := 0
	for k, v := range node {
		switch k {
		case "@id":
		case rdf.RDFFirst, rdf.RDFRest:
			if a, ok := v.([]any); !ok || len(a) != 1 {
				return false
			}
			n++
		case "@type":
			a, _ := v.([]any)
			if len(a) != 1 || a[0] != rdf.RDFNS+"List" {
				return false
			}
		default:
			return false
		}
	}
	return n == 2
}

// foldCompound turns the blank nodes that encode a literal's direction (rdfDirection compound-literal) back into
// value objects.
func (g *graphNodes) foldCompound() {
	for id := range g.compound {
		cl, ok := g.nodes[id]
		if !ok {
			continue
		}
		value := firstValue(cl, rdf.RDFNS+"value")
		if value == nil {
			continue
		}
		replaced := false
		for _, n := range g.nodes {
			for k, v := range n {
				vals, ok := v.([]any)
				if !ok || k == "@type" {
					continue
				}
				for i, it := range vals {
					if m, ok := it.(map[string]any); ok && m["@id"] == id && len(m) == 1 {
						nv := map[string]any{"@value": value["@value"]}
						if l := firstValue(cl, rdf.RDFNS+"language"); l != nil {
							nv["@language"] = l["@value"]
						}
						if d := firstValue(cl, rdf.RDFNS+"direction"); d != nil {
							nv["@direction"] = d["@value"]
						}
						vals[i] = nv
						replaced = true
					}
				}
			}
		}
		if replaced {
			delete(g.nodes, id)
		}
	}
}

func firstValue(n map[string]any, key string) map[string]any {
	vals, _ := n[key].([]any)
	if len(vals) == 0 {
		return nil
	}
	m, _ := vals[0].(map[string]any)
	return m
}

var (
	xsdIntegerRE = regexp.MustCompile(`^[+-]?[0-9]+$`)
	xsdDoubleRE  = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$|^[+-]?INF$|^NaN$`)
)

// rdfToObject is RDF to Object (§8.5.2).
func rdfToObject(t rdf.Term, o fromRDFOptions) (any, error) {
	if !t.IsLiteral() {
		return map[string]any{"@id": termID(t)}, nil
	}
	result := map[string]any{}
	var value any = t.Value
	typ := ""
	switch {
	case t.Lang != "" && (t.Datatype == rdf.RDFLangString || t.Datatype == ""):
		result["@language"] = t.Lang
	case o.useNativeTypes && t.Datatype == rdf.XSDString:
	case o.useNativeTypes && t.Datatype == rdf.XSDBoolean:
		switch t.Value {
		case "true", "1":
			value = true
		case "false", "0":
			value = false
		default:
			typ = t.Datatype
		}
	case o.useNativeTypes && t.Datatype == rdf.XSDInteger && xsdIntegerRE.MatchString(t.Value),
		o.useNativeTypes && t.Datatype == rdf.XSDDouble && xsdDoubleRE.MatchString(t.Value) && !strings.ContainsAny(t.Value, "IN"):
		f, err := strconv.ParseFloat(t.Value, 64)
		if err != nil {
			typ = t.Datatype
		} else {
			value = f
		}
	case t.Datatype == rdf.RDFJSON && !o.mode10:
		var v any
		if err := json.Unmarshal([]byte(t.Value), &v); err != nil {
			return nil, newError("invalid JSON literal", "%q: %v", t.Value, err)
		}
		value, typ = v, "@json"
	case o.direction == DirectionI18nDatatype && strings.HasPrefix(t.Datatype, i18nNS):
		lang, dir, _ := strings.Cut(t.Datatype[len(i18nNS):], "_")
		if lang != "" {
			result["@language"] = lang
		}
		if dir != "" {
			result["@direction"] = dir
		}
	case t.Datatype != rdf.XSDString && t.Datatype != "":
		typ = t.Datatype
	}
	result["@value"] = value
	if typ != "" {
		result["@type"] = typ
	}
	return result, nil
}

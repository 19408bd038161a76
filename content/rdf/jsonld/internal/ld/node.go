// Copyright 2015-2017 Piprate Limited
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package ld

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Node is the value of a subject, predicate or object
// i.e. a IRI reference, blank node or literal.
type Node interface {
	// GetValue returns the node's value.
	GetValue() string

	// Equal returns true if this node is equal to the given node.
	Equal(n Node) bool
}

// Literal represents a literal value.
type Literal struct {
	Value    string
	Datatype string
	Language string
}

// NewLiteral creates a new instance of Literal.
func NewLiteral(value string, datatype string, language string) Literal {
	l := Literal{
		Value:    value,
		Language: language,
	}

	if datatype != "" {
		l.Datatype = datatype
	} else {
		l.Datatype = XSDString
	}

	return l
}

// GetValue returns the node's value.
func (l Literal) GetValue() string {
	return l.Value
}

// Equal returns true if this node is equal to the given node.
func (l Literal) Equal(n Node) bool {
	ol, ok := n.(*Literal)
	if !ok {
		return false
	}

	if l.Value != ol.Value {
		return false
	}

	if l.Language != ol.Language {
		return false
	}

	if l.Datatype != ol.Datatype {
		return false
	}

	return true
}

// IRI represents an IRI value.
type IRI struct {
	Value string
}

// NewIRI creates a new instance of IRI.
func NewIRI(iri string) IRI {
	i := IRI{
		Value: iri,
	}

	return i
}

// GetValue returns the node's value.
func (iri IRI) GetValue() string {
	return iri.Value
}

// Equal returns true if this node is equal to the given node.
func (iri IRI) Equal(n Node) bool {
	if oiri, ok := n.(*IRI); ok {
		return iri.Value == oiri.Value
	}

	return false
}

// BlankNode represents a blank node value.
type BlankNode struct {
	Attribute string
}

// NewBlankNode creates a new instance of BlankNode.
func NewBlankNode(attribute string) BlankNode {
	bn := BlankNode{
		Attribute: attribute,
	}

	return bn
}

// GetValue returns the node's value.
func (bn BlankNode) GetValue() string {
	return bn.Attribute
}

// Equal returns true if this node is equal to the given node.
func (bn BlankNode) Equal(n Node) bool {
	if obn, ok := n.(*BlankNode); ok {
		return bn.Attribute == obn.Attribute
	}

	return false
}

// IsBlankNode returns true if the given node is a blank node
func IsBlankNode(node Node) bool {
	_, isBlankNode := node.(BlankNode)
	return isBlankNode
}

// IsIRI returns true if the given node is an IRI node
func IsIRI(node Node) bool {
	_, isIRI := node.(IRI)
	return isIRI
}

// IsLiteral returns true if the given node is a literal node
func IsLiteral(node Node) bool {
	_, isLiteral := node.(Literal)
	return isLiteral
}

var patternInteger = regexp.MustCompile(`^[\-+]?\d+$`)
var patternDouble = regexp.MustCompile(`^(\+|-)?(\d+(\.\d*)?|\.\d+)([Ee](\+|-)?\d+)?$`)

// RdfToObject converts an RDF triple object to a JSON-LD object (JSON-LD 1.1 API §8.5).
//
// ldhub: rewritten for JSON-LD 1.1: rdf:JSON literals become @json values, i18n datatypes become @direction,
// "1"/"0" are native booleans, and numbers that do not fit a JSON number stay typed strings.
func RdfToObject(n Node, opts *JsonLdOptions) (map[string]interface{}, error) {
	if IsIRI(n) || IsBlankNode(n) {
		return map[string]interface{}{"@id": n.GetValue()}, nil
	}
	literal, ok := n.(Literal)
	if !ok {
		return nil, NewJsonLdError(InvalidInput, "unexpected RDF term")
	}
	rval := map[string]interface{}{"@value": literal.Value}
	datatype, value := literal.Datatype, literal.Value
	switch {
	case literal.Language != "":
		rval["@language"] = literal.Language
	case opts.UseNativeTypes && datatype == XSDString:
	case opts.UseNativeTypes && datatype == XSDBoolean && (value == "true" || value == "1"):
		rval["@value"] = true
	case opts.UseNativeTypes && datatype == XSDBoolean && (value == "false" || value == "0"):
		rval["@value"] = false
	case opts.UseNativeTypes && datatype == XSDInteger && patternInteger.MatchString(value):
		i, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			rval["@type"] = datatype
			break
		}
		rval["@value"] = i
	case opts.UseNativeTypes && datatype == XSDDouble && patternDouble.MatchString(value):
		d, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsInf(d, 0) || math.IsNaN(d) {
			rval["@type"] = datatype
			break
		}
		rval["@value"] = d
	case datatype == RDFJSONLiteral && opts.ProcessingMode != JsonLd_1_0:
		var v interface{}
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			return nil, NewJsonLdError(InvalidJSONLiteral, err)
		}
		rval["@value"] = v
		rval["@type"] = "@json"
	case opts.RDFDirection == "i18n-datatype" && strings.HasPrefix(datatype, i18nNamespace):
		lang, dir, found := strings.Cut(strings.TrimPrefix(datatype, i18nNamespace), "_")
		if !found {
			rval["@type"] = datatype
			break
		}
		if lang != "" {
			rval["@language"] = lang
		}
		rval["@direction"] = dir
	case datatype != "" && datatype != XSDString:
		rval["@type"] = datatype
	}
	return rval, nil
}

// objectToRDF converts a JSON-LD value object to an RDF literal or a JSON-LD string or
// node object to an RDF resource (JSON-LD 1.1 API §8.4). It returns a nil Node when the item does not become a
// term (a relative or malformed IRI, a malformed language tag).
//
// ldhub: rewritten from upstream to follow JSON-LD 1.1: JCS for every @json value (not only objects), xsd:double
// for integers of 10^21 and more, @direction through rdfDirection, and no panics on unexpected shapes.
func objectToRDF(item interface{}, issuer *IdentifierIssuer, graphName string, triples []*Quad,
	rdfDirection string) (Node, []*Quad) {
	itemMap, isMap := item.(map[string]interface{})
	if !isMap {
		if id, ok := item.(string); ok {
			return resourceNode(id), triples
		}
		return nil, triples
	}
	if IsValue(item) {
		return valueToRDF(itemMap, issuer, graphName, triples, rdfDirection)
	}
	if IsList(item) {
		list, _ := itemMap["@list"].([]interface{})
		return parseList(list, issuer, graphName, triples, rdfDirection)
	}
	id, _ := itemMap["@id"].(string)
	return resourceNode(id), triples
}

// resourceNode returns the blank node or IRI id names, or nil when id is neither a blank node identifier nor a
// well-formed absolute IRI.
func resourceNode(id string) Node {
	if strings.HasPrefix(id, "_:") {
		return NewBlankNode(id)
	}
	if !WellFormedIRI(id) {
		return nil
	}
	return NewIRI(id)
}

const i18nNamespace = "https://www.w3.org/ns/i18n#"

func valueToRDF(itemMap map[string]interface{}, issuer *IdentifierIssuer, graphName string, triples []*Quad,
	rdfDirection string) (Node, []*Quad) {
	value := itemMap["@value"]
	datatype, _ := itemMap["@type"].(string)
	if datatype != "" && datatype != "@json" && !WellFormedIRI(datatype) {
		return nil, triples
	}
	language, hasLanguage := itemMap["@language"].(string)
	if hasLanguage && !WellFormedLanguage(language) {
		return nil, triples
	}
	if number, isNumber := value.(json.Number); isNumber {
		if f, err := number.Float64(); err == nil {
			value = f
		}
	}
	var lexical string
	switch v := value.(type) {
	case bool:
		if datatype == "@json" {
			lexical, datatype = strconv.FormatBool(v), RDFJSONLiteral
			break
		}
		lexical = strconv.FormatBool(v)
		if datatype == "" {
			datatype = XSDBoolean
		}
	case float64:
		switch {
		case datatype == "@json":
			c, err := canonicalJSON(v)
			if err != nil {
				return nil, triples
			}
			lexical, datatype = c, RDFJSONLiteral
		case v != math.Trunc(v) || math.Abs(v) >= 1e21 || datatype == XSDDouble:
			lexical = GetCanonicalDouble(v)
			if datatype == "" {
				datatype = XSDDouble
			}
		default:
			if v == 0 {
				v = 0 // -0 is the integer 0
			}
			lexical = strconv.FormatFloat(v, 'f', -1, 64)
			if datatype == "" {
				datatype = XSDInteger
			}
		}
	case string:
		if datatype == "@json" {
			c, err := canonicalJSON(v)
			if err != nil {
				return nil, triples
			}
			lexical, datatype = c, RDFJSONLiteral
			break
		}
		lexical = v
	default:
		if datatype != "@json" {
			return nil, triples
		}
		c, err := canonicalJSON(v)
		if err != nil {
			return nil, triples
		}
		lexical, datatype = c, RDFJSONLiteral
	}

	direction, hasDirection := itemMap["@direction"].(string)
	if hasDirection && rdfDirection != "" && datatype == "" {
		switch rdfDirection {
		case "i18n-datatype":
			return NewLiteral(lexical, i18nNamespace+strings.ToLower(language)+"_"+direction, ""), triples
		case "compound-literal":
			node := NewBlankNode(issuer.GetId(""))
			triples = append(triples, NewQuad(node, NewIRI(RDFSyntaxNS+"value"), NewLiteral(lexical, XSDString, ""), graphName))
			if hasLanguage {
				triples = append(triples, NewQuad(node, NewIRI(RDFSyntaxNS+"language"),
					NewLiteral(strings.ToLower(language), XSDString, ""), graphName))
			}
			triples = append(triples, NewQuad(node, NewIRI(RDFSyntaxNS+"direction"), NewLiteral(direction, XSDString, ""), graphName))
			return node, triples
		}
	}
	if datatype == "" {
		if hasLanguage {
			return NewLiteral(lexical, RDFLangString, language), triples
		}
		return NewLiteral(lexical, XSDString, ""), triples
	}
	if hasLanguage && datatype == RDFLangString {
		return NewLiteral(lexical, RDFLangString, language), triples
	}
	return NewLiteral(lexical, datatype, ""), triples
}

func parseList(list []interface{}, issuer *IdentifierIssuer, graphName string, triples []*Quad,
	rdfDirection string) (Node, []*Quad) {
	if len(list) == 0 {
		return nilIRI, triples
	}
	head := NewBlankNode(issuer.GetId(""))
	subj := head
	for i, item := range list {
		var obj Node
		obj, triples = objectToRDF(item, issuer, graphName, triples, rdfDirection)
		if obj != nil {
			triples = append(triples, NewQuad(subj, first, obj, graphName))
		}
		if i == len(list)-1 {
			triples = append(triples, NewQuad(subj, rest, nilIRI, graphName))
			break
		}
		next := NewBlankNode(issuer.GetId(""))
		triples = append(triples, NewQuad(subj, rest, next, graphName))
		subj = next
	}
	return head, triples
}

// WellFormedIRI reports whether s is an absolute IRI that RDF can carry: a scheme, no character IRIs forbid
// (space, controls, <>"{}|\^`) and at most one '#'.
func WellFormedIRI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return false
	}
	for i := 0; i < colon; i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	hashes := 0
	for i := colon + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c <= 0x20 || c == 0x7f:
			return false
		case strings.IndexByte("<>\"{}|\\^`", c) >= 0:
			return false
		case c == '#':
			hashes++
			if hashes > 1 {
				return false
			}
		}
	}
	return true
}

var languageTag = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)

// WellFormedLanguage reports whether s is a well-formed BCP 47 language tag (in the simple form RDF requires).
func WellFormedLanguage(s string) bool { return languageTag.MatchString(s) }

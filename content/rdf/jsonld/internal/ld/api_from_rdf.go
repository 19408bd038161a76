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
	"sort"
	"strings"
)

// UsagesNode is a helper class for node usages
type UsagesNode struct {
	node     *NodeMapNode
	property string
	value    map[string]interface{}
}

// NewUsagesNode creates a new instance of UsagesNode
func NewUsagesNode(node *NodeMapNode, property string, value map[string]interface{}) *UsagesNode {
	return &UsagesNode{
		node:     node,
		property: property,
		value:    value,
	}
}

// NodeMapNode
type NodeMapNode struct {
	Values map[string]interface{}
	usages []*UsagesNode
}

// NewNodeMapNode creates a new instance of NodeMapNode.
func NewNodeMapNode(id string) *NodeMapNode {
	return &NodeMapNode{
		Values: map[string]interface{}{"@id": id},
		usages: make([]*UsagesNode, 0),
	}
}

// IsReferencedOnce helps to solve https://github.com/json-ld/json-ld.org/issues/357
// by identifying nodes with just one reference.
func IsReferencedOnce(node *NodeMapNode, referencedOnce map[string]*UsagesNode) bool {
	referencedOnceUsage, present := referencedOnce[node.Values["@id"].(string)]
	return present && referencedOnceUsage != nil
}

// IsWellFormedListNode is a helper function for 4.3.3
func (nmn *NodeMapNode) IsWellFormedListNode() bool {
	// ldhub: a list node has both rdf:first and rdf:rest (upstream accepted a node with only rdf:rest and then
	// panicked reading its rdf:first) and is a blank node.
	_, hasFirst := nmn.Values[RDFFirst]
	_, hasRest := nmn.Values[RDFRest]
	if id, _ := nmn.Values["@id"].(string); !hasFirst || !hasRest || !strings.HasPrefix(id, "_:") {
		return false
	}
	keys := 0
	v, containsRdfFirst := nmn.Values[RDFFirst]
	if containsRdfFirst {
		keys++
		vList, isList := v.([]interface{})
		if !(isList && len(vList) == 1) {
			return false
		}
	}
	v, containsRdfRest := nmn.Values[RDFRest]
	if containsRdfRest {
		keys++
		vList, isList := v.([]interface{})
		if !(isList && len(vList) == 1) {
			return false
		}
	}
	v, containsType := nmn.Values["@type"]
	if containsType {
		keys++
		vList, isList := v.([]interface{})
		if !(isList && len(vList) == 1 && vList[0] == RDFList) {
			return false
		}
	}
	// TODO: SPEC: 4.3.3 has no mention of @id
	_, containsID := nmn.Values["@id"]
	if containsID {
		keys++
	}
	if keys < len(nmn.Values) {
		return false
	}
	return true
}

// Serialize returns this node without the usages variable
func (nmn *NodeMapNode) Serialize() map[string]interface{} {
	rval := make(map[string]interface{}, len(nmn.Values))
	for k, v := range nmn.Values {
		rval[k] = v
	}
	return rval
}

// FromRDF converts RDF statements into JSON-LD.
// Returns a list of JSON-LD objects found in the given dataset.
func (api *JsonLdApi) FromRDF(dataset *RDFDataset, opts *JsonLdOptions) ([]interface{}, error) {
	// 1)
	defaultGraph := make(map[string]*NodeMapNode)
	// 2)
	graphMap := make(map[string]map[string]*NodeMapNode)
	graphMap["@default"] = defaultGraph
	referencedOnceMap := make(map[string]*UsagesNode)
	nodeGraph := make(map[*NodeMapNode]string)

	// 3/3.1)
	for name, graph := range dataset.Graphs {
		// 3.2+3.4)
		nodeMap, present := graphMap[name]
		if !present {
			nodeMap = make(map[string]*NodeMapNode)
			graphMap[name] = nodeMap
		}

		// 3.3)
		if _, present := defaultGraph[name]; name != "@default" && !present {
			defaultGraph[name] = NewNodeMapNode(name)
		}

		// 3.5)
		for _, triple := range graph {
			subject := triple.Subject.GetValue()
			predicate := triple.Predicate.GetValue()
			object := triple.Object

			// 3.5.1+3.5.2)
			node, present := nodeMap[subject]
			if !present {
				node = NewNodeMapNode(subject)
				nodeMap[subject] = node
				nodeGraph[node] = name // ldhub: see referrerInGraph
			}

			// 3.5.3)
			_, containsObject := nodeMap[object.GetValue()]
			if (IsIRI(object) || IsBlankNode(object)) && !containsObject {
				objNode := NewNodeMapNode(object.GetValue())
				nodeMap[object.GetValue()] = objNode
				nodeGraph[objNode] = name // ldhub: see referrerInGraph
			}

			// 3.5.4)
			if predicate == RDFType && (IsIRI(object) || IsBlankNode(object)) && !opts.UseRdfType {
				MergeValue(node.Values, "@type", object.GetValue())
				continue
			}

			// 3.5.5)
			value, err := RdfToObject(object, opts)
			if err != nil {
				return nil, err
			}

			// 3.5.6+7)
			mergeValue(node.Values, predicate, value, dataset.parsedWithoutDuplicates)

			// 3.5.8)
			if IsBlankNode(object) || IsIRI(object) {
				// track rdf:nil uniquely per graph
				if object.GetValue() == RDFNil {
					// 3.5.8.1-3)
					n := nodeMap[object.GetValue()]
					n.usages = append(n.usages, NewUsagesNode(node, predicate, value))
				} else if _, present := referencedOnceMap[object.GetValue()]; present {
					referencedOnceMap[object.GetValue()] = nil
				} else {
					// track single reference
					referencedOnceMap[object.GetValue()] = NewUsagesNode(node, predicate, value)
				}
			}
		}
	}

	if opts.RDFDirection == "compound-literal" {
		for _, graph := range graphMap {
			compoundLiterals(graph, referencedOnceMap)
		}
	}

	// 4)
	for graphName, graph := range graphMap {
		// 4.1), 4.2)
		nilNode, present := graph[RDFNil]
		if !present {
			continue
		}
		// 4.3)
		for _, usage := range nilNode.usages {
			// 4.3.1)
			node := usage.node
			property := usage.property
			head := usage.value
			// 4.3.2)
			list := make([]interface{}, 0)
			listNodes := make([]string, 0)
			// 4.3.3)
			// ldhub: a list node is folded into its referrer only when the referrer is in the same graph. The
			// algorithm's "referenced once" map spans graphs, so a list whose nodes are in one graph and whose
			// reference is in another was moved into the referrer's graph (jsonld.js does the same); the dump then
			// read back as a different dataset (found by FuzzRoundTrip). Such a list stays as rdf:first/rdf:rest.
			for property == RDFRest && IsReferencedOnce(node, referencedOnceMap) && referrerInGraph(graphName, node, referencedOnceMap, nodeGraph) && node.IsWellFormedListNode() {
				// 4.3.3.1)
				list = append(list, node.Values[RDFFirst].([]interface{})[0])
				// 4.3.3.2)
				listNodes = append(listNodes, node.Values["@id"].(string))
				// 4.3.3.3)
				nodeUsage := referencedOnceMap[node.Values["@id"].(string)]
				// 4.3.3.4)
				node = nodeUsage.node
				property = nodeUsage.property
				head = nodeUsage.value
				// if node is not a blank node, then list head found
				if !IsBlankNodeValue(node.Values) {
					break
				}
			}

			// ldhub: JSON-LD 1.0 has no lists of lists (1.0 API §4.4.2 step 4.3.4): a list that is the item of
			// another list keeps its head node, and only the rest of it becomes a list object.
			if property == RDFFirst && opts.ProcessingMode == JsonLd_1_0 {
				if len(list) == 0 {
					continue
				}
				headID, _ := head["@id"].(string)
				headNode, ok := graph[headID]
				if !ok {
					continue
				}
				rest, _ := headNode.Values[RDFRest].([]interface{})
				if len(rest) != 1 {
					continue
				}
				if head, ok = rest[0].(map[string]interface{}); !ok {
					continue
				}
				list = list[:len(list)-1]
				listNodes = listNodes[:len(listNodes)-1]
			}

			// 4.3.5)
			delete(head, "@id")
			// 4.3.6)
			// reverse the list
			for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
				list[i], list[j] = list[j], list[i]
			}
			// 4.3.7)
			head["@list"] = list
			// 4.3.8)
			for _, nodeID := range listNodes {
				delete(graph, nodeID)
			}
		}
	}

	// 5)
	result := make([]interface{}, 0)

	// 6)
	ids := make([]string, 0)
	for k := range defaultGraph {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	for _, subject := range ids {
		node := defaultGraph[subject]
		// 6.1)
		subjectMap, containsSubj := graphMap[subject]
		if containsSubj {
			// 6.1.1)
			graph := make([]interface{}, 0)
			// 6.1.2)
			keys := make([]string, 0)
			for k := range subjectMap {
				keys = append(keys, k)
			}
			sort.Strings(keys)

			for _, s := range keys {
				n := subjectMap[s]
				_, containsID := n.Values["@id"]
				if len(n.Values) == 1 && containsID {
					continue
				}
				graph = append(graph, n.Serialize())
			}
			node.Values["@graph"] = graph
		}
		// 6.2)
		_, containsID := node.Values["@id"]
		if len(node.Values) == 1 && containsID {
			continue
		}
		result = append(result, node.Serialize())
	}

	return result, nil
}

// compoundLiterals turns blank nodes that encode a literal with a base direction (rdf:value, rdf:direction and
// optionally rdf:language, JSON-LD 1.1 rdfDirection "compound-literal") back into value objects wherever they are
// referenced, and drops the nodes.
//
// ldhub: not in upstream.
func compoundLiterals(graph map[string]*NodeMapNode, referencedOnce map[string]*UsagesNode) {
	literals := map[string]map[string]interface{}{}
	for id, node := range graph {
		if !strings.HasPrefix(id, "_:") {
			continue
		}
		value, okValue := singleValue(node.Values[RDFSyntaxNS+"value"])
		dir, okDir := singleValue(node.Values[RDFSyntaxNS+"direction"])
		if !okValue || !okDir {
			continue
		}
		lit := map[string]interface{}{"@value": value, "@direction": dir}
		extra := 3 // @id, rdf:value, rdf:direction
		if lang, ok := singleValue(node.Values[RDFSyntaxNS+"language"]); ok {
			lit["@language"] = lang
			extra++
		}
		if len(node.Values) != extra {
			continue
		}
		literals[id] = lit
	}
	if len(literals) == 0 {
		return
	}
	for id := range literals {
		delete(graph, id)
		delete(referencedOnce, id)
	}
	for _, node := range graph {
		for _, v := range node.Values {
			vs, _ := v.([]interface{})
			for _, item := range vs {
				m, ok := item.(map[string]interface{})
				if !ok {
					continue
				}
				id, _ := m["@id"].(string)
				if lit, ok := literals[id]; ok && len(m) == 1 {
					delete(m, "@id")
					for k, lv := range lit {
						m[k] = lv
					}
				}
			}
		}
	}
}

// singleValue returns the string @value of a one-element array of value objects.
func singleValue(v interface{}) (string, bool) {
	vs, ok := v.([]interface{})
	if !ok || len(vs) != 1 {
		return "", false
	}
	m, ok := vs[0].(map[string]interface{})
	if !ok {
		return "", false
	}
	s, ok := m["@value"].(string)
	return s, ok
}

// referrerInGraph reports whether the one triple referring to list node node is in the graph named graph (ldhub).
// The graph a node was created in is recorded, since folding lists deletes list nodes from their graph's map.
func referrerInGraph(graph string, node *NodeMapNode, referencedOnce map[string]*UsagesNode, nodeGraph map[*NodeMapNode]string) bool {
	id, _ := node.Values["@id"].(string)
	usage := referencedOnce[id]
	return usage != nil && nodeGraph[usage.node] == graph
}

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
	"strings"
)

// JsonLdProcessor implements the JsonLdProcessor interface, see
// http://www.w3.org/TR/json-ld-api/#the-jsonldprocessor-interface
type JsonLdProcessor struct { //nolint:stylecheck
}

// NewJsonLdProcessor creates an instance of JsonLdProcessor.
func NewJsonLdProcessor() *JsonLdProcessor { //nolint:stylecheck
	return &JsonLdProcessor{}
}

// Compact operation compacts the given input using the context according to the steps
// in the Compaction algorithm: http://www.w3.org/TR/json-ld-api/#compaction-algorithm
func (jldp *JsonLdProcessor) Compact(input interface{}, context interface{},
	opts *JsonLdOptions) (map[string]interface{}, error) {

	if opts == nil {
		opts = NewJsonLdOptions("")
	} else {
		opts = opts.Copy()
	}

	if inputStr, isString := input.(string); isString && opts.Base == "" {
		opts.Base = inputStr
	}

	// 1)
	// TODO: look into promises

	// 2-6) NOTE: these are all the same steps as in expand
	expanded, err := jldp.expand(input, opts)
	if err != nil {
		return nil, err
	}
	return jldp.compactExpanded(expanded, context, opts)
}

// CompactExpanded compacts input that is already in expanded form (such as FromRDF's output), skipping the
// expansion Compact starts with.
//
// ldhub: not in upstream; expansion was 40% of encoding time.
func (jldp *JsonLdProcessor) CompactExpanded(expanded []interface{}, context interface{},
	opts *JsonLdOptions) (map[string]interface{}, error) {
	if opts == nil {
		opts = NewJsonLdOptions("")
	} else {
		opts = opts.Copy()
	}
	return jldp.compactExpanded(expanded, context, opts)
}

func (jldp *JsonLdProcessor) compactExpanded(expanded []interface{}, context interface{},
	opts *JsonLdOptions) (map[string]interface{}, error) {
	var err error

	// 7)
	context = CloneDocument(context)
	contextMap, isMap := context.(map[string]interface{})
	innerCtx, hasCtx := contextMap["@context"]
	if isMap && hasCtx {
		context = innerCtx
	}
	activeCtx := NewContext(nil, opts)
	activeCtx, err = activeCtx.Parse(context)
	if err != nil {
		return nil, err
	}

	// 8)
	api := NewJsonLdApi()
	compacted, err := api.Compact(activeCtx, "", expanded, opts.CompactArrays)
	if err != nil {
		return nil, err
	}

	// final step of Compaction Algorithm
	if compactedList, isList := compacted.([]interface{}); isList {
		if len(compactedList) == 0 {
			compacted = make(map[string]interface{})
		} else {
			compactedIRI, err := activeCtx.CompactIri("@graph", nil, false, false)
			if err != nil {
				return nil, err
			}
			compacted = map[string]interface{}{
				compactedIRI: compacted,
			}
		}
	}

	if compactedMap, isMap := compacted.(map[string]interface{}); len(compactedMap) > 0 && isMap {
		if contextList, isList := context.([]interface{}); isList && len(contextList) == 1 && opts.CompactArrays {
			// if the context is an array with 1 element, compact the array
			compactedMap["@context"] = contextList[0]
		} else if contextMap, isMap := context.(map[string]interface{}); len(contextMap) > 0 || !isMap {
			// otherwise keep the context as is
			compactedMap["@context"] = context
		}
	}

	// 9)
	return compacted.(map[string]interface{}), nil
}

// Expand operation expands the given input according to the steps in the Expansion algorithm:
// http://www.w3.org/TR/json-ld-api/#expansion-algorithm
func (jldp *JsonLdProcessor) Expand(input interface{}, opts *JsonLdOptions) ([]interface{}, error) {

	if opts == nil {
		opts = NewJsonLdOptions("")
	} else {
		opts = opts.Copy()
	}

	return jldp.expand(input, opts)
}

func (jldp *JsonLdProcessor) expand(input interface{}, opts *JsonLdOptions) ([]interface{}, error) {

	// 1)
	// TODO: look into promises

	var remoteContext string

	// 2)
	if iri, isString := input.(string); isString && strings.Contains(iri, ":") {
		rd, err := opts.DocumentLoader.LoadDocument(iri)
		if err != nil {
			return nil, err
		}
		if rd.Document == "" {
			return nil, NewJsonLdError(LoadingDocumentFailed, err)
		}
		input = rd.Document
		iri = rd.DocumentURL

		// if set the base in options should override the base iri in the
		// active context
		// thus only set this as the base iri if it's not already set in
		// options
		if opts.Base == "" {
			opts.Base = iri
		}

		if rd.ContextURL != "" {
			remoteContext = rd.ContextURL
		}
	}

	// 3)
	activeCtx := NewContext(nil, opts)

	// 4)
	if opts.ExpandContext != nil {
		exCtx := CloneDocument(opts.ExpandContext)
		if exCtxMap, isMap := exCtx.(map[string]interface{}); isMap {
			if ctx, hasCtx := exCtxMap["@context"]; hasCtx {
				exCtx = ctx
			}
		}

		var err error
		activeCtx, err = activeCtx.Parse(exCtx)
		if err != nil {
			return nil, err
		}
	}

	// 5)
	if remoteContext != "" {
		var err error
		if activeCtx, err = activeCtx.Parse(remoteContext); err != nil {
			return nil, err
		}
	}

	// 6)
	api := NewJsonLdApi()
	expanded, err := api.Expand(activeCtx, "", input, opts, false, nil)
	if err != nil {
		return nil, err
	}

	// final step of Expansion Algorithm
	expandedMap, isMap := expanded.(map[string]interface{})

	if isMap && len(expandedMap) == 0 {
		expanded = nil
	}

	graph, hasGraph := expandedMap["@graph"]
	if isMap && hasGraph && len(expandedMap) == 1 {
		expanded = graph
	} else if expanded == nil {
		expanded = make([]interface{}, 0)
	}

	// normalize to an array
	if expandedList, isList := expanded.([]interface{}); isList {
		return expandedList, nil
	}

	return []interface{}{expanded}, nil
}

// Flatten operation flattens the given input and compacts it using the passed context
// according to the steps in the Flattening algorithm:
// http://www.w3.org/TR/json-ld-api/#flattening-algorithm
func (jldp *JsonLdProcessor) Flatten(input interface{}, context interface{}, opts *JsonLdOptions) (interface{}, error) {

	if opts == nil {
		opts = NewJsonLdOptions("")
	} else {
		opts = opts.Copy()
	}

	if inputStr, isString := input.(string); isString && opts.Base == "" {
		opts.Base = inputStr
	}

	// 2-6) NOTE: these are all the same steps as in expand
	expanded, err := jldp.expand(input, opts)
	if err != nil {
		return nil, err
	}
	// 7)
	contextMap, isMap := context.(map[string]interface{})
	innerCtx, hasCtx := contextMap["@context"]
	if isMap && hasCtx {
		context = innerCtx
	}

	// 9) NOTE: the next block is the Flattening Algorithm described in
	// http://json-ld.org/spec/latest/json-ld-api/#flattening-algorithm

	// 1)
	nodeMap := map[string]interface{}{
		"@default": make(map[string]interface{}),
	}
	// 2)
	api := NewJsonLdApi()
	issuer := NewIdentifierIssuer("_:b")
	if _, err = api.GenerateNodeMap(expanded, nodeMap, "@default", issuer, nil, "", nil); err != nil {
		return nil, err
	}

	// 3)
	defaultGraph := nodeMap["@default"].(map[string]interface{})
	delete(nodeMap, "@default")

	// 4)
	for _, graphName := range GetKeys(nodeMap) {
		graph := nodeMap[graphName].(map[string]interface{})
		// 4.1+4.2)
		var entry map[string]interface{}
		if _, present := defaultGraph[graphName]; !present {
			entry = make(map[string]interface{})
			entry["@id"] = graphName
			defaultGraph[graphName] = entry
		} else {
			entry = defaultGraph[graphName].(map[string]interface{})
		}
		// 4.3)
		// TODO: SPEC doesn't specify that this should only be added if it
		// doesn't exists
		if _, present := entry["@graph"]; !present {
			entry["@graph"] = make([]interface{}, 0)
		}

		for _, id := range GetOrderedKeys(graph) {
			node := graph[id].(map[string]interface{})
			if _, present := node["@id"]; !(present && len(node) == 1) {
				entry["@graph"] = append(entry["@graph"].([]interface{}), node)
			}
		}
	}

	// 5)
	flattened := make([]interface{}, 0)

	// 6)
	for _, id := range GetOrderedKeys(defaultGraph) {
		node := defaultGraph[id].(map[string]interface{})
		if _, present := node["@id"]; !(present && len(node) == 1) {
			flattened = append(flattened, node)
		}
	}
	// 8)
	if context != nil && len(flattened) > 0 {
		activeCtx := NewContext(nil, opts)
		activeCtx, err = activeCtx.Parse(context)
		if err != nil {
			return nil, err
		}

		compacted, err := api.Compact(activeCtx, "", flattened, opts.CompactArrays)
		if err != nil {
			return nil, err
		}

		if _, isList := compacted.([]interface{}); !isList {
			compacted = []interface{}{compacted}
		}
		alias, err := activeCtx.CompactIri("@graph", nil, false, false)
		if err != nil {
			return nil, err
		}
		rval, err := activeCtx.Serialize()
		if err != nil {
			return nil, err
		}
		rval[alias] = compacted
		return rval, nil
	}
	return flattened, nil
}

// FromRDF converts an RDF dataset to JSON-LD (expanded form).
// ldhub: takes the dataset directly; the upstream N-Quads/Turtle serializers were removed.
func (jldp *JsonLdProcessor) FromRDF(dataset *RDFDataset, opts *JsonLdOptions) ([]interface{}, error) {
	if opts == nil {
		opts = NewJsonLdOptions("")
	} else {
		opts = opts.Copy()
	}
	return NewJsonLdApi().FromRDF(dataset, opts)
}

// ToRDF outputs the RDF dataset found in the given JSON-LD object.
func (jldp *JsonLdProcessor) ToRDF(input interface{}, opts *JsonLdOptions) (*RDFDataset, error) {
	if opts == nil {
		opts = NewJsonLdOptions("")
	} else {
		opts = opts.Copy()
	}
	expandedInput, err := jldp.expand(input, opts)
	if err != nil {
		return nil, err
	}
	return NewJsonLdApi().ToRDF(expandedInput, opts)
}

// Copyright 2015-2017 Piprate Limited
// Copyright 2025 Siemens AG
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
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

var (
	ignoredKeywordPattern = regexp.MustCompile("^@[a-zA-Z]+$")
	invalidPrefixPattern  = regexp.MustCompile("[:/]")
	iriLikeTermPattern    = regexp.MustCompile(`(?::[^:])|/`)

	nonTermDefKeys = map[string]bool{
		"@base":      true,
		"@direction": true,
		"@import":    true,
		"@language":  true,
		"@protected": true,
		"@version":   true,
		"@vocab":     true,
	}
)

// Context represents a JSON-LD context and provides easy access to specific
// keys and operations.
type Context struct {
	Values          *Values
	TermDefinitions map[string]*TermDefinition
	Protected       map[string]bool // @protected terms

	options         *JsonLdOptions
	inverse         map[string]interface{} // cache for inverse context
	previousContext *Context
	fastCurieMap    map[string]interface{}

	// ldhub: parsingURL is the URL of the remote context being processed, only while it is processed. Context
	// references inside it resolve against it (JSON-LD 1.1 §4.1.2 step 5.2.1: against the base URL, not @base).
	parsingURL string
	// ldhub: remoteChain is the chain of remote contexts being processed (for scoped-context validation), and
	// validating marks a context processed only to validate a scoped context: there, a remote context already
	// in the chain is skipped instead of being an error (JSON-LD 1.1 §4.1.2 step 5.2.2).
	remoteChain []string
	validating  bool
	// ldhub: parseCache memoises contexts derived from this one by processing the same local context (a scoped
	// context stored in a term definition, a remote context URL). json-gold reprocessed them for every node that
	// used them, which made a 240 KB document with one 1000-term scoped context take minutes.
	parseCache map[parseKey]*Context
	// ldhub: base is Values.Base parsed, for compaction, which made relative every IRI it wrote by parsing the
	// base again (a third of compaction time).
	base *JsonLdUrl
}

type parseKey struct {
	s     string
	p     unsafe.Pointer
	n     int
	flags uint8
}

// parseCacheKey identifies a local context by value (a URL) or identity (a map or array held by a term
// definition or document, which json-gold does not mutate).
func parseCacheKey(local interface{}, flags ...bool) (parseKey, bool) {
	var k parseKey
	for i, f := range flags {
		if f {
			k.flags |= 1 << i
		}
	}
	switch v := local.(type) {
	case string:
		k.s = v
	case map[string]interface{}:
		k.p = reflect.ValueOf(v).UnsafePointer()
	case []interface{}:
		if len(v) == 0 {
			return k, false
		}
		k.p, k.n = unsafe.Pointer(&v[0]), len(v)
	default:
		return k, false
	}
	return k, true
}

type Values struct {
	Vocab       *string  // @vocab
	Base        string   // @base IRI against which to resolve those relative IRI references which are otherwise interpreted relative to the document
	Direction   string   // @direction
	Version     *float64 // @version
	Language    string   // @language
	HasLanguage bool     // whether @language is set

	processingMode string // JSON-LD processingMode based on @version and/or JsonLdOptions
}

// TermDefinition is an expanded term definition, see § 9.15.1 (https://www.w3.org/TR/json-ld11/#expanded-term-definition).
type TermDefinition struct {
	ID           string   // The @id mapping for the term
	Reverse      bool     // Indicates if the term is defined with @reverse
	Container    []string // The @container mapping for the term
	Type         string   // The @type mapping for the term
	Nest         string   // If the expanded term definition contains the @nest keyword, its value MUST be either @nest, or a term which expands to @nest.
	Context      any      // The @context mapping for the term
	HasContext   bool     // Indicates if the @context key is set (might be set to "null" which has a different semantic than being just absent, i.e. nil)
	Prefix       *bool    // Indicates if the term is a prefix (@prefix)
	Index        string   // If the expanded term definition contains the @index keyword, its value MUST be an IRI, a compact IRI, or a term.
	Protected    bool     // Indicates if the term is protected (@protected)
	Direction    *string  // The @direction mapping for the term
	HasDirection bool     // Indicates if the @direction key is set (might be set to "null" which has a different semantic than being just absent, i.e. nil)
	Language     *string  // The @language mapping for the term (optional)
	HasLanguage  bool     // Indicates if the term explicitly specifies a language

	termHasColon bool // whether the term contains a colon (:)
}

func (td *TermDefinition) Copy() *TermDefinition {
	var result TermDefinition
	result.ID = td.ID
	result.Reverse = td.Reverse
	result.Container = td.Container
	result.Type = td.Type
	result.Context = td.Context
	result.HasContext = td.HasContext
	result.Prefix = td.Prefix
	result.Nest = td.Nest
	result.Index = td.Index
	result.Protected = td.Protected
	result.Direction = td.Direction
	result.HasDirection = td.HasDirection
	result.Language = td.Language
	result.HasLanguage = td.HasLanguage
	return &result
}

func DeepCompareTermDef(lhs *TermDefinition, rhs *TermDefinition, listOrderMatters bool) bool {
	return lhs.ID == rhs.ID &&
		lhs.Reverse == rhs.Reverse &&
		lhs.Type == rhs.Type &&
		lhs.HasContext == rhs.HasContext &&
		lhs.Nest == rhs.Nest &&
		lhs.Index == rhs.Index &&
		lhs.Protected == rhs.Protected &&
		reflect.DeepEqual(lhs.Container, rhs.Container) &&
		reflect.DeepEqual(lhs.Direction, rhs.Direction) && lhs.HasDirection == rhs.HasDirection &&
		reflect.DeepEqual(lhs.Language, rhs.Language) && lhs.HasLanguage == rhs.HasLanguage &&
		DeepCompare(lhs.Context, rhs.Context, listOrderMatters)
}

type FastCurieEntry struct {
	iri   string
	terms []string
}

// NewContext creates and returns a new Context object.
func NewContext(values map[string]interface{}, options *JsonLdOptions) *Context {
	if options == nil {
		options = NewJsonLdOptions("")
	}

	context := &Context{
		Values:          &Values{},
		options:         options,
		TermDefinitions: make(map[string]*TermDefinition),
		Protected:       make(map[string]bool),
		fastCurieMap:    make(map[string]any),
	}

	context.Values.Base = options.Base

	if values != nil {
		if val, ok := values["@vocab"]; ok {
			s := val.(string)
			context.Values.Vocab = &s
		}
		if val, ok := values["@language"]; ok {
			context.Values.Language = val.(string)
			context.Values.HasLanguage = true
		}
	}

	context.Values.processingMode = options.ProcessingMode

	return context
}

func (c *Context) AsMap() map[string]interface{} {
	res := map[string]interface{}{
		"values":          c.Values,
		"termDefinitions": c.TermDefinitions,
		"inverse":         c.inverse,
		"protected":       c.Protected,
		"fastCurieMap":    c.fastCurieMap,
	}
	if c.previousContext != nil {
		res["previousContext"] = c.previousContext.AsMap()
	}
	return res
}

// CopyContext creates a full copy of the given context.
func CopyContext(ctx *Context) *Context {
	context := NewContext(nil, ctx.options)
	if ctx.Values != nil {
		values := *ctx.Values
		context.Values = &values
	}

	for k, v := range ctx.TermDefinitions {
		context.TermDefinitions[k] = v
	}

	for k, v := range ctx.Protected {
		context.Protected[k] = v
	}

	// do not copy c.inverse, because it will be regenerated

	if ctx.previousContext != nil {
		context.previousContext = CopyContext(ctx.previousContext)
	}

	return context
}

// Parse processes a local context, retrieving any URLs as necessary, and
// returns a new active context.
// Refer to http://www.w3.org/TR/json-ld-api/#context-processing-algorithms for details
// TODO pyLD is doing a fair bit more in process_context(self, active_ctx, local_ctx, options)
// than just parsing the context. In particular, we need to check if additional logic is required
// to load remote scoped contexts.
func (c *Context) Parse(localContext interface{}) (*Context, error) {
	return c.parse(localContext, make([]string, 0), false, true, false, false)
}

// maxRemoteContexts bounds the chain of remote contexts that include each other (JSON-LD 1.1 context overflow).
const maxRemoteContexts = 32

// parse processes a local context, retrieving any URLs as necessary, and
// returns a new active context.
//
// If parsingARemoteContext is true, localContext represents a remote context
// that has been parsed and sent into this method. This must be set to know
// whether to propagate the @base key from the context to the result.
func (c *Context) parse(localContext interface{}, remoteContexts []string, parsingARemoteContext, propagate,
	protected, overrideProtected bool) (*Context, error) {
	key, cacheable := parseCacheKey(localContext, parsingARemoteContext, propagate, protected, overrideProtected)
	cacheable = cacheable && len(remoteContexts) == 0 && !c.validating && c.parsingURL == ""
	if cacheable {
		if r, ok := c.parseCache[key]; ok {
			return r, nil
		}
	}
	r, err := c.parseInner(localContext, remoteContexts, parsingARemoteContext, propagate, protected, overrideProtected)
	if r != nil && r != c {
		r.parsingURL = ""
		r.remoteChain = nil
	}
	if err == nil && cacheable {
		if c.parseCache == nil {
			c.parseCache = map[parseKey]*Context{}
		}
		c.parseCache[key] = r
	}
	return r, err
}

func (c *Context) parseInner(localContext interface{}, remoteContexts []string, parsingARemoteContext, propagate,
	protected, overrideProtected bool) (_ *Context, err error) { //nolint:unparam
	// ldhub: with pointer tracking on, an error records which entry of this local context it concerns, relative to
	// the context value (ContextPath). The outermost parse, the document's own @context, writes last and wins: an
	// error inside a remote context points at the reference to it.
	track := c.options != nil && c.options.ExpandedElementHandler != nil
	var base, rel string
	entry := func(key string) {
		if track {
			rel = base + "/" + escapeJSONPointerToken(key)
		}
	}
	defer func() {
		var je *JsonLdError
		if track && errors.As(err, &je) {
			je.ContextPath = rel
		}
	}()
	_, ctxIsArray := localContext.([]interface{})
	baseURL := c.parsingURL
	if baseURL == "" {
		baseURL = c.options.Base
	}

	// normalize local context to an array of @context objects
	contexts := Arrayify(localContext)

	// no contexts in array, return current active context w/o changes
	if len(contexts) == 0 {
		return c, nil
	}

	// override propagate if first resolved context has `@propagate`
	firstCtxMap, isMap := contexts[0].(map[string]interface{})
	propagateVal, propagateFound := firstCtxMap["@propagate"]
	if isMap && propagateFound {
		// retrieve early, error checking done later
		if propagateBool, isBool := propagateVal.(bool); isBool {
			propagate = propagateBool
		}
	}

	// 1. Initialize result to the result of cloning active context.
	result := CopyContext(c)
	result.parsingURL = baseURL
	result.remoteChain = remoteContexts
	result.validating = c.validating

	// track the previous context
	// if not propagating, make sure result has a previous context
	if !propagate && result.previousContext == nil {
		result.previousContext = c
	}

	// 3)
	for ctxIndex, context := range contexts {
		if track {
			base = ""
			if ctxIsArray {
				base = "/" + strconv.Itoa(ctxIndex)
			}
			rel = base
		}
		// 3.1)
		if context == nil {
			// We can't nullify if there are protected terms and we're
			// not allowing overrides (e.g. processing a property term scoped context)
			if !overrideProtected && len(result.Protected) != 0 {
				return nil, NewJsonLdError(InvalidContextNullification,
					"tried to nullify a context with protected terms outside of a term definition.")
			}
			nullCtx := NewContext(nil, c.options)
			if !propagate {
				nullCtx.previousContext = result
			}
			result = nullCtx
			continue
		}

		var contextMap map[string]interface{}

		switch ctx := context.(type) {
		case *Context:
			result = ctx
		// 3.2)
		case string:
			uri := Resolve(baseURL, ctx)
			// 3.2.2
			recursive := false
			for _, remoteCtx := range remoteContexts {
				if remoteCtx == uri {
					recursive = true
				}
			}
			if recursive && result.validating {
				continue
			}
			if recursive {
				return nil, NewJsonLdError(RecursiveContextInclusion, uri)
			}
			remoteContexts = append(remoteContexts, uri)
			if len(remoteContexts) > maxRemoteContexts {
				return nil, NewJsonLdError(ContextOverflow, uri)
			}

			// 3.2.3: Dereference context
			rd, err := c.options.DocumentLoader.LoadDocument(uri)
			if err != nil {
				return nil, NewJsonLdError(LoadingRemoteContextFailed,
					fmt.Errorf("dereferencing a URL did not result in a valid JSON-LD context (%s): %w", uri, err))
			}
			remoteContextMap, isMap := rd.Document.(map[string]interface{})
			context, hasContextKey := remoteContextMap["@context"]
			if !isMap || !hasContextKey {
				// If the dereferenced document has no top-level JSON object
				// with an @context member
				return nil, NewJsonLdError(InvalidRemoteContext, context)
			}

			// 3.2.4
			// ldhub: upstream copied into a zero-length slice, so nested remote contexts lost the list and a
			// self-including context recursed until the stack overflowed.
			remoteContextsCpy := append([]string(nil), remoteContexts...)
			result.parsingURL = uri
			resultRef, err := result.parse(context, remoteContextsCpy, true, true, false, overrideProtected)
			if err != nil {
				return nil, err
			}
			result = resultRef
			// 3.2.5
			continue
		case map[string]interface{}:
			contextMap = ctx
		default:
			// 3.3
			return nil, NewJsonLdError(InvalidLocalContext, context)
		}

		// ldhub: upstream silently unwrapped a nested "@context" entry; it is a keyword redefinition.
		entry("@context")
		if _, nested := contextMap["@context"]; nested {
			return nil, NewJsonLdError(KeywordRedefinition, "@context cannot be defined in a context")
		}

		pm := c.Values.processingMode

		entry("@version")
		if versionValue, versionPresent := contextMap["@version"]; versionPresent {
			if versionValue != 1.1 {
				return nil, NewJsonLdError(InvalidVersionValue, fmt.Sprintf("unsupported JSON-LD version: %s", versionValue))
			}
			if pm == JsonLd_1_0 {
				return nil, NewJsonLdError(ProcessingModeConflict, fmt.Sprintf("@version: %v not compatible with %s", versionValue, pm))
			}
			result.Values.processingMode = JsonLd_1_1
			ver := versionValue.(float64)
			result.Values.Version = &ver
		} else if pm == "" {
			// if not set explicitly, set processingMode to "json-ld-1.0"
			result.Values.processingMode = JsonLd_1_0
		} else {
			result.Values.processingMode = pm
		}

		// handle @import
		entry("@import")
		if importValue, importFound := contextMap["@import"]; importFound {
			if result.processingMode(1.0) {
				return nil, NewJsonLdError(InvalidContextEntry, "@import may only be used in 1.1 mode")
			}
			importStr, isString := importValue.(string)
			if !isString {
				return nil, NewJsonLdError(InvalidImportValue, "@import must be a string")
			}
			uri := Resolve(baseURL, importStr)

			rd, err := c.options.DocumentLoader.LoadDocument(uri)
			if err != nil {
				return nil, NewJsonLdError(LoadingRemoteContextFailed,
					fmt.Errorf("dereferencing a URL did not result in a valid JSON-LD context (%s): %w", uri, err))
			}
			importCtxDocMap, isMap := rd.Document.(map[string]interface{})
			context, hasContextKey := importCtxDocMap["@context"]
			if !isMap || !hasContextKey {
				// If the de-referenced document has no top-level JSON object
				// with an @context member
				return nil, NewJsonLdError(InvalidRemoteContext, context)
			}

			if importCtxMap, isMap := context.(map[string]interface{}); isMap {
				if _, found := importCtxMap["@import"]; found {
					return nil, NewJsonLdError(InvalidContextEntry,
						fmt.Sprintf("%s must not include @import entry", importStr))
				}

				// merge import context into the outer context
				for k, v := range contextMap {
					importCtxMap[k] = v
				}
				contextMap = importCtxMap
			} else {
				return nil, NewJsonLdError(InvalidRemoteContext, fmt.Sprintf("%s must be an object", importStr))
			}
		}

		// 3.4
		entry("@base")
		baseValue, basePresent := contextMap["@base"]
		if !parsingARemoteContext && basePresent {
			if baseValue == nil {
				result.Values.Base = ""
			} else if baseString, isString := baseValue.(string); isString {
				if IsAbsoluteIri(baseString) {
					result.Values.Base = baseString
				} else {
					baseURI := result.Values.Base
					if !IsAbsoluteIri(baseURI) {
						return nil, NewJsonLdError(InvalidBaseIRI, baseURI)
					}
					result.Values.Base = Resolve(baseURI, baseString)
				}
			} else {
				return nil, NewJsonLdError(InvalidBaseIRI, "the value of @base in a @context must be a string or null")
			}
		}

		// handle @language
		entry("@language")
		if languageValue, languagePresent := contextMap["@language"]; languagePresent {
			if languageValue == nil {
				result.Values.HasLanguage = false
				result.Values.Language = ""
			} else if languageString, isString := languageValue.(string); isString {
				result.Values.HasLanguage = true
				result.Values.Language = strings.ToLower(languageString)
			} else {
				return nil, NewJsonLdError(InvalidDefaultLanguage, languageValue)
			}
		}

		// handle @direction
		entry("@direction")
		if directionValue, directionPresent := contextMap["@direction"]; directionPresent {
			if directionValue == nil {
				result.Values.Direction = ""
			} else if directionString, isString := directionValue.(string); isString {
				if directionString == "rtl" || directionString == "ltr" {
					result.Values.Direction = strings.ToLower(directionString)
				} else {
					return nil, NewJsonLdError(InvalidBaseDirection, directionValue)
				}
			} else {
				return nil, NewJsonLdError(InvalidBaseDirection, directionValue)
			}
		}

		// 3.7
		// TODO: check JS implementation. This structure is populated with a lot more values
		defined := make(map[string]bool)

		// handle @propagate
		// note: we've already extracted it, here we just do error checking
		entry("@propagate")
		if propagateValue, propagatePresent := contextMap["@propagate"]; propagatePresent {
			if c.processingMode(1.0) {
				return nil, NewJsonLdError(InvalidContextEntry,
					fmt.Sprintf("@propagate not compatible with %s", c.Values.processingMode))
			}
			if _, isBool := propagateValue.(bool); isBool {
				defined["@propagate"] = true
			} else {
				return nil, NewJsonLdError(InvalidPropagateValue, "@propagate value must be a boolean")
			}
		}

		entry("@vocab")
		if vocabValue, vocabPresent := contextMap["@vocab"]; vocabPresent {
			if vocabValue == nil {
				result.Values.Vocab = nil
			} else if vocabString, isString := vocabValue.(string); isString {
				if !IsAbsoluteIri(vocabString) && c.processingMode(1.0) {
					return nil, NewJsonLdError(InvalidVocabMapping, "@vocab must be an absolute IRI in 1.0 mode")
				}
				expandedVocab, err := result.ExpandIri(vocabString, true, true, nil, nil)
				if err != nil {
					return nil, err
				}
				result.Values.Vocab = &expandedVocab
			} else {
				return nil, NewJsonLdError(InvalidVocabMapping, "@vocab must be a string or null")
			}
		}

		// handle @protected; determine whether this sub-context is declaring
		// all its terms to be "protected" (exceptions can be made on a
		// per-definition basis)
		entry("@protected")
		if protectedVal, protectedPresent := contextMap["@protected"]; protectedPresent {
			b, isBool := protectedVal.(bool)
			if !isBool {
				return nil, NewJsonLdError(InvalidProtectedValue, protectedVal)
			}
			defined["@protected"] = b
		} else if protected {
			defined["@protected"] = true
		}

		for key := range contextMap {
			if _, skip := nonTermDefKeys[key]; !skip {
				entry(key)
				if err := result.createTermDefinition(contextMap, key, defined, overrideProtected); err != nil {
					return nil, err
				}
			}
		}
	}

	return result, nil
}

// CompactValue performs value compaction on an object with @value or @id as the only property.
// See https://www.w3.org/TR/2019/CR-json-ld11-api-20191212/#value-compaction
func (c *Context) CompactValue(activeProperty string, value map[string]interface{}) (interface{}, error) {

	// 1
	var result interface{} = value

	// 2
	language := c.GetLanguageMapping(activeProperty)

	// 3
	direction := c.GetDirectionMapping(activeProperty)

	isIndexContainer := c.HasContainerMapping(activeProperty, "@index")
	// whether or not the value has an @index that must be preserved
	_, hasIndex := value["@index"]
	idVal, hasID := value["@id"]
	typeVal, hasType := value["@type"]
	//preserveIndex := hasIndex && !isIndexContainer

	idOrIndex := true
	for k := range value {
		if k != "@id" && k != "@index" {
			idOrIndex = false
			break
		}
	}

	propType := ""
	if td := c.GetTermDefinition(activeProperty); td != nil {
		propType = td.Type
	}

	languageVal := ""
	if s := value["@language"]; s != nil {
		languageVal = s.(string)
	}

	directionVal := ""
	if s := value["@direction"]; s != nil {
		directionVal = s.(string)
	}

	var err error

	if hasID && idOrIndex { // 4
		if propType == "@id" { // 4.1
			result, err = c.CompactIri(idVal.(string), nil, false, false)
			if err != nil {
				return nil, err
			}
		} else if propType == "@vocab" { // 4.2
			result, err = c.CompactIri(idVal.(string), nil, true, false)
			if err != nil {
				return nil, err
			}
		} else {
			compactedID, err := c.CompactIri("@id", nil, true, false)
			if err != nil {
				return nil, err
			}
			compactedValue, err := c.CompactIri(idVal.(string), nil, false, false)
			if err != nil {
				return nil, err
			}
			result = map[string]interface{}{
				compactedID: compactedValue,
			}
		}
	} else if hasType && typeVal == propType { // 5
		// compact common datatype
		result = value["@value"]
	} else if propType == "@none" || (hasType && typeVal != propType) { // 6
		// use original expanded value
		result = value
	} else if _, isString := value["@value"].(string); !isString && ((hasIndex && isIndexContainer) || !hasIndex) { // 7   // && hasIndex && isIndexContainer
		result = value["@value"]
		//if hasIndex && isIndexContainer {
		//	result = value["@value"]
		//}
	} else if (languageVal == language) && directionVal == direction { // 8
		// compact language and direction
		if (hasIndex && isIndexContainer) || !hasIndex {
			result = value["@value"]

			return result, nil
		}
	}

	resultMap, isMap := result.(map[string]interface{})
	if isMap && resultMap["@type"] != nil && value["@type"] != "@json" { // 6.1

		// create a copy of result (because it can be the same map as 'value'
		newMap := make(map[string]interface{}, len(resultMap))
		for k, v := range resultMap {
			newMap[k] = v
		}

		// compact values of @type
		if tt, isArray := newMap["@type"].([]interface{}); isArray {
			newTT := make([]interface{}, len(tt))
			for i, t := range tt {
				newTT[i], err = c.CompactIri(t.(string), nil, true, false)
				if err != nil {
					return nil, err
				}
			}
			newMap["@type"] = newTT
		} else {
			newMap["@type"], err = c.CompactIri(newMap["@type"].(string), nil, true, false)
			if err != nil {
				return nil, err
			}
		}

		result = newMap
	}

	// 9
	resultMap, isMap = result.(map[string]interface{})
	if isMap {
		newMap := make(map[string]interface{}, len(resultMap))
		for k, v := range resultMap {
			if k == "@index" && !(hasIndex && !isIndexContainer) {
				//// don't preserve @index
				continue
			}
			keyAlias, err := c.CompactIri(k, nil, true, false)
			if err != nil {
				return nil, err
			}
			newMap[keyAlias] = v
		}

		result = newMap
	}

	return result, nil
}

// processingMode returns true if the given version is compatible with the current processing mode
func (c *Context) processingMode(version float64) bool {
	mode := c.Values.processingMode
	if version >= 1.1 {
		if mode != "" {
			return mode >= fmt.Sprintf("json-ld-%v", version)
		} else {
			return false
		}
	} else {
		if mode != "" {
			return mode == JsonLd_1_0
		} else {
			return true
		}
	}
}

// createTermDefinition creates a term definition in the active context
// for a term being processed in a local context as described in
// http://www.w3.org/TR/json-ld-api/#create-term-definition
func (c *Context) createTermDefinition(context map[string]interface{}, term string,
	defined map[string]bool, overrideProtected bool) error {

	if definedValue, inDefined := defined[term]; inDefined {
		if definedValue {
			return nil
		}
		return NewJsonLdError(CyclicIRIMapping, term)
	}

	defined[term] = false

	// ldhub: bound the term definitions one document may cause, whatever the caching above misses.
	if w := c.options.work; w != nil {
		w.termDefinitions++
		if w.termDefinitions > w.maxTermDefinitions {
			return NewJsonLdError(ContextOverflow,
				fmt.Sprintf("more than %d term definitions processed", w.maxTermDefinitions))
		}
	}

	// ldhub: the empty string is not a term (JSON-LD 1.1 §4.2.2 step 4).
	if term == "" {
		return NewJsonLdError(InvalidTermDefinition, "the empty string is not a valid term")
	}

	prevDefinition, prevExists := c.TermDefinitions[term]
	// ldhub: a null mapping keeps its protection in c.Protected (upstream dropped it, so a protected null term
	// could be redefined).
	prevProtected := prevExists && ((prevDefinition != nil && prevDefinition.Protected) ||
		(prevDefinition == nil && c.Protected[term]))

	value := context[term]
	mapValue, isMap := value.(map[string]interface{})
	idValue, hasID := mapValue["@id"]
	if value == nil || (isMap && hasID && idValue == nil) {
		if prevProtected && !overrideProtected && prevDefinition != nil {
			return NewJsonLdError(ProtectedTermRedefinition, term)
		}
		protectedVal, protectedFound := mapValue["@protected"].(bool)
		if (protectedFound && protectedVal) || (defined["@protected"] && !protectedFound) || (prevProtected && !overrideProtected) {
			c.Protected[term] = true
		} else {
			delete(c.Protected, term)
		}
		c.TermDefinitions[term] = nil
		defined[term] = true
		return nil
	}
	if prevProtected && !overrideProtected && prevDefinition == nil {
		return NewJsonLdError(ProtectedTermRedefinition, term)
	}

	simpleTerm := false
	if _, isString := value.(string); isString {
		mapValue = map[string]interface{}{"@id": value}
		simpleTerm = true
		isMap = true
	}

	if !isMap {
		return NewJsonLdError(InvalidTermDefinition, value)
	}

	if IsKeyword(term) {
		vmap, isMap := value.(map[string]interface{})
		var hasAllowedKeysOnly = true
		for k := range vmap {
			if k != "@container" && k != "@protected" {
				hasAllowedKeysOnly = false
				break
			}
		}
		// ldhub: an empty map redefines nothing and is an error too.
		isSet := isMap && len(vmap) > 0 && (vmap["@container"] == "@set" || vmap["@container"] == nil)
		if c.processingMode(1.1) && term == "@type" && hasAllowedKeysOnly && isSet {
			// this is the only case were redefining a keyword is allowed
		} else {
			return NewJsonLdError(KeywordRedefinition, term)
		}
	} else if ignoredKeywordPattern.MatchString(term) {
		//log.Printf("Terms beginning with '@' are reserved for future use and ignored: %s.", term)
		return nil
	}

	delete(c.TermDefinitions, term)

	// casting the value so it doesn't have to be done below everytime
	val := mapValue

	// 9) create a new term definition
	var definition = &TermDefinition{}

	// make sure term definition only has expected keywords
	validKeys := map[string]bool{
		"@container": true,
		"@id":        true,
		"@language":  true,
		"@reverse":   true,
		"@type":      true,
	}
	if c.processingMode(1.1) {
		validKeys["@context"] = true
		validKeys["@direction"] = true
		validKeys["@index"] = true
		validKeys["@nest"] = true
		validKeys["@prefix"] = true
		validKeys["@protected"] = true
	}
	for k := range val {
		if _, isValid := validKeys[k]; !isValid {
			return NewJsonLdError(InvalidTermDefinition, fmt.Sprintf("a term definition must not contain %s", k))
		}
	}

	// always compute whether term has a colon as an optimization for _compact_iri
	colIndex := strings.Index(term, ":")
	termHasColon := colIndex > 0

	definition.Reverse = false
	definition.termHasColon = termHasColon

	// 11)
	if reverseValue, present := val["@reverse"]; present {
		if _, idPresent := val["@id"]; idPresent {
			return NewJsonLdError(InvalidReverseProperty, "an @reverse term definition must not contain @id.")
		}
		if _, nestPresent := val["@nest"]; nestPresent {
			return NewJsonLdError(InvalidReverseProperty, "an @reverse term definition must not contain @nest.")
		}
		reverseStr, isString := reverseValue.(string)
		if !isString {
			return NewJsonLdError(InvalidIRIMapping,
				fmt.Sprintf("expected string for @reverse value. got %v", reverseValue))
		}
		// ldhub: a keyword-like @reverse value makes the term ignored (JSON-LD 1.1 §4.2.2 step 14.3), before any
		// attempt to expand it.
		if ignoredKeywordPattern.MatchString(reverseStr) {
			defined[term] = true
			return nil
		}
		id, err := c.ExpandIri(reverseStr, false, true, context, defined)
		if err != nil {
			return err
		}
		if !IsAbsoluteIri(id) {
			return NewJsonLdError(InvalidIRIMapping, fmt.Sprintf(
				"@context @reverse value must be an absolute IRI or a blank node identifier, got %s", id))
		}

		if ignoredKeywordPattern.MatchString(reverseStr) {
			//log.Printf("Values beginning with '@' are reserved for future use and ignored: %s.", reverseStr)
			return nil
		}

		definition.ID = id
		definition.Reverse = true
	} else if idValue, hasID := val["@id"]; hasID { // 13)
		idStr, isString := idValue.(string)
		if !isString {
			return NewJsonLdError(InvalidIRIMapping, "expected value of @id to be a string")
		}

		if term != idStr {

			if !IsKeyword(idStr) && ignoredKeywordPattern.MatchString(idStr) {
				//log.Printf("Values beginning with '@' are reserved for future use and ignored: %s.", idStr)
				return nil
			}

			res, err := c.ExpandIri(idStr, false, true, context, defined)
			if err != nil {
				return err
			}
			if IsKeyword(res) || IsAbsoluteIri(res) {
				if res == "@context" {
					return NewJsonLdError(InvalidKeywordAlias, "cannot alias @context")
				}
				definition.ID = res

				// ldhub: this check is JSON-LD 1.1 (§4.2.2 step 14.2.3); 1.0 documents may map an IRI-like term
				// elsewhere.
				if iriLikeTermPattern.MatchString(term) && !c.processingMode(1.0) {
					defined[term] = true
					termIRI, err := c.ExpandIri(term, false, true, context, defined)
					if err != nil {
						return err
					}
					if termIRI != res {
						return NewJsonLdError(InvalidIRIMapping,
							fmt.Sprintf("term %s expands to %s, not %s", term, res, termIRI),
						)
					}
					delete(defined, term)
				}

				// NOTE: definition["_prefix"] is implemented in Python and JS libraries as follows:
				//
				// definition["_prefix"] = !termHasColon && regexExp.MatchString(res) && (simpleTerm || c.processingMode(1.0))
				//
				// but the test https://json-ld.org/test-suite/tests/compact-manifest.jsonld#t0038 fails. TODO investigate

				termHasSuffix := false
				if len(res) > 0 {
					switch res[len(res)-1] {
					case ':', '/', '?', '#', '[', ']', '@':
						termHasSuffix = true
					default:
						termHasSuffix = false
					}
				}

				// ldhub: a blank node identifier also makes the term a prefix (JSON-LD 1.1 §4.2.2 step 14.2.5).
				prefix := !termHasColon && (termHasSuffix || strings.HasPrefix(res, "_:")) &&
					(simpleTerm || c.processingMode(1.0))
				definition.Prefix = &prefix
			} else {
				return NewJsonLdError(InvalidIRIMapping,
					"resulting IRI mapping should be a keyword, absolute IRI or blank node")
			}
		}
		// 14)
	}

	if definition.ID == "" {
		if termHasColon {
			prefix := term[0:colIndex]
			if _, containsPrefix := context[prefix]; containsPrefix {
				if err := c.createTermDefinition(context, prefix, defined, overrideProtected); err != nil {
					return err
				}
			}
			if termDef, hasTermDef := c.TermDefinitions[prefix]; hasTermDef {
				suffix := term[colIndex+1:]
				definition.ID = termDef.ID + suffix
			} else {
				definition.ID = term
			}
			// 15)
		} else if vocabValue := c.Values.Vocab; vocabValue != nil {
			definition.ID = *vocabValue + term
		} else if term != "@type" {
			return NewJsonLdError(InvalidIRIMapping, "relative term definition without vocab mapping")
		}
	}

	// handle term protection
	valProtected, protectedFound := mapValue["@protected"]
	protectedBool, isBool := valProtected.(bool)
	if protectedFound && !isBool {
		return NewJsonLdError(InvalidProtectedValue, valProtected)
	}
	if (protectedFound && protectedBool) || (defined["@protected"] && !(protectedFound && !protectedBool)) {
		c.Protected[term] = true
		definition.Protected = true
	}

	defined[term] = true

	// 10)
	if typeValue, present := val["@type"]; present {
		typeStr, isString := typeValue.(string)
		if !isString {
			return NewJsonLdError(InvalidTypeMapping, typeValue)
		}
		if (typeStr == "@json" || typeStr == "@none") && c.processingMode(1.0) {
			return NewJsonLdError(InvalidTypeMapping,
				fmt.Sprintf("unknown mapping for @type: %s on term %s", typeStr, term))
		}
		if typeStr != "@id" && typeStr != "@vocab" && typeStr != "@json" && typeStr != "@none" {
			// expand @type to full IRI
			var err error
			typeStr, err = c.ExpandIri(typeStr, false, true, context, defined)
			if err != nil {
				var ldErr *JsonLdError
				if ok := errors.As(err, &ldErr); !ok || ldErr.Code != InvalidIRIMapping {
					return err
				}
				return NewJsonLdError(InvalidTypeMapping, typeStr)
			}
			if !IsAbsoluteIri(typeStr) {
				return NewJsonLdError(InvalidTypeMapping, "an @context @type value must be an absolute IRI")
			}
			if strings.HasPrefix(typeStr, "_:") {
				return NewJsonLdError(InvalidTypeMapping, "an @context @type values must be an IRI, not a blank node identifier")
			}
		}

		// add @type to mapping
		definition.Type = typeStr
	}

	// 16)
	if containerVal, hasContainer := val["@container"]; hasContainer {
		containerArray, isArray := containerVal.([]interface{})
		var container []string
		containerValueMap := make(map[string]bool)
		// ldhub: a container that is neither a string nor an array of strings is an invalid container mapping;
		// the type assertions here panicked on it (found by FuzzDecode: "@container": {}).
		if isArray {
			container = make([]string, 0)
			for _, c := range containerArray {
				cs, ok := c.(string)
				if !ok {
					return NewJsonLdError(InvalidContainerMapping, "@container values must be strings")
				}
				container = append(container, cs)
				containerValueMap[cs] = true
			}
		} else {
			cs, ok := containerVal.(string)
			if !ok {
				return NewJsonLdError(InvalidContainerMapping, "@container must be a string or an array of strings")
			}
			container = []string{cs}
			containerValueMap[cs] = true
		}

		validContainers := map[string]bool{
			"@list":     true,
			"@set":      true,
			"@index":    true,
			"@language": true,
		}
		if c.processingMode(1.1) {
			validContainers["@graph"] = true
			validContainers["@id"] = true
			validContainers["@type"] = true

			// check container length

			if _, hasList := containerValueMap["@list"]; hasList && len(container) != 1 {
				return NewJsonLdError(InvalidContainerMapping,
					"@context @container with @graph must have no other values other than @id, @index, and @set")
			}

			if _, hasGraph := containerValueMap["@graph"]; hasGraph {
				validKeys := map[string]bool{
					"@graph": true,
					"@id":    true,
					"@index": true,
					"@set":   true,
				}
				for key := range containerValueMap {
					if _, found := validKeys[key]; !found {
						return NewJsonLdError(InvalidContainerMapping,
							"@context @container with @list must have no other values.")
					}
				}
			} else {
				maxLen := 1
				if _, hasSet := containerValueMap["@set"]; hasSet {
					maxLen = 2
				}
				if len(container) > maxLen {
					return NewJsonLdError(InvalidContainerMapping, "@set can only be combined with one more type")
				}
			}

			if _, hasType := containerValueMap["@type"]; hasType {
				// if mapping does not have an @type, set it to @id
				if definition.Type == "" {
					definition.Type = "@id"
				}

				if definition.Type != "@id" && definition.Type != "@vocab" {
					return NewJsonLdError(InvalidTypeMapping,
						"container: @type requires @type to be @id or @vocab")
				}
			}
		} else {
			// json-ld-1.0
			if _, isString := containerVal.(string); !isString {
				return NewJsonLdError(InvalidContainerMapping, "@container must be a string")
			}
		}

		// check against valid containers
		for _, v := range container {
			if _, isValidContainer := validContainers[v]; !isValidContainer {
				allowedValues := make([]string, 0)
				for k := range validContainers {
					allowedValues = append(allowedValues, k)
				}
				return NewJsonLdError(InvalidContainerMapping, fmt.Sprintf(
					"@context @container value must be one of the following: %q", allowedValues))
			}
		}

		// @set not allowed with @list
		_, hasSet := containerValueMap["@set"]
		_, hasList := containerValueMap["@list"]
		if hasSet && hasList {
			return NewJsonLdError(InvalidContainerMapping, "@set not allowed with @list")
		}

		if definition.Reverse {

			for key := range containerValueMap {
				if key != "@index" && key != "@set" {
					return NewJsonLdError(InvalidReverseProperty,
						"@context @container value for an @reverse type definition must be @index or @set")
				}
			}
		}

		definition.Container = container

		if term == "@type" {
			definition.ID = "@type"
		}
	}

	// property indexing
	if indexVal, hasIndex := val["@index"]; hasIndex {
		_, hasContainer := val["@container"]
		tdHasContainer := definition.Container != nil
		if !hasContainer || !tdHasContainer {
			return NewJsonLdError(InvalidTermDefinition,
				fmt.Sprintf("@index without @index in @container: %s on term %s", indexVal, term))
		}
		indexStr, isString := indexVal.(string)
		if !isString || strings.HasPrefix(indexStr, "@") {
			return NewJsonLdError(InvalidTermDefinition,
				fmt.Sprintf("@index must expand to an IRI: %s on term %s", indexVal, term))
		}
		definition.Index = indexStr
	}

	// scoped contexts
	if ctxVal, hasCtx := val["@context"]; hasCtx {
		definition.Context = resolveContextRefs(ctxVal, c.parsingURL)
		// ldhub: a scoped context is checked when defined, even if never used (JSON-LD 1.1 §4.2.2 step 21.3).
		v := CopyContext(c)
		v.validating = true
		v.parsingURL = c.parsingURL
		if _, err := v.parse(definition.Context, append([]string(nil), c.remoteChain...), false, true, false, true); err != nil {
			var je *JsonLdError
			if errors.As(err, &je) && je.Code == ContextOverflow {
				return err // the work bound, not a fault of this scoped context
			}
			return NewJsonLdError(InvalidScopedContext, err)
		}
		definition.HasContext = true
	}

	// 17)
	_, hasType := val["@type"]
	if languageVal, hasLanguage := val["@language"]; hasLanguage && !hasType {
		if language, isString := languageVal.(string); isString {
			s := strings.ToLower(language)
			definition.Language = &s
			definition.HasLanguage = true
		} else if languageVal == nil {
			definition.Language = nil
			definition.HasLanguage = true
		} else {
			return NewJsonLdError(InvalidLanguageMapping, "@language must be a string or null")
		}
	}

	// term may be used as prefix
	if prefixVal, hasPrefix := val["@prefix"]; hasPrefix {
		if invalidPrefixPattern.MatchString(term) {
			return NewJsonLdError(InvalidTermDefinition, "@prefix used on compact or relative IRI term")
		}
		prefix, isBool := prefixVal.(bool)
		if !isBool {
			return NewJsonLdError(InvalidPrefixValue, "@context value for @prefix must be boolean")
		}
		if IsKeyword(definition.ID) {
			return NewJsonLdError(InvalidTermDefinition, "keywords may not be used as prefixes")
		}
		definition.Prefix = &prefix
	}

	// handle direction
	if directionVal, hasDirection := val["@direction"]; hasDirection {
		if dir, isString := directionVal.(string); isString {
			s := strings.ToLower(dir)
			definition.Direction = &s
			definition.HasDirection = true
		} else if directionVal == nil {
			definition.Direction = nil
			definition.HasDirection = true
		} else {
			return NewJsonLdError(InvalidBaseDirection,
				fmt.Sprintf("direction must be null, 'ltr', or 'rtl', was %s on term %s", directionVal, term))
		}
	}

	// nesting
	if nestVal, hasNest := val["@nest"]; hasNest {
		nest, isString := nestVal.(string)
		if !isString || (nest != "@nest" && nest[0] == '@') {
			return NewJsonLdError(InvalidNestValue,
				"@context @nest value must be a string which is not a keyword other than @nest")
		}
		definition.Nest = nest
	}

	// disallow aliasing @context and @preserve
	if id := definition.ID; id == "@context" || id == "@preserve" {
		return NewJsonLdError(InvalidKeywordAlias, "@context and @preserve cannot be aliased")
	}

	// Check for overriding protected terms
	if prevDefinition != nil {
		if protectedVal := prevDefinition.Protected; protectedVal && !overrideProtected {
			// force new term to continue to be protected and see if the mappings would be equal
			c.Protected[term] = true
			definition.Protected = true
			if !DeepCompareTermDef(prevDefinition, definition, false) {
				return NewJsonLdError(ProtectedTermRedefinition, "invalid JSON-LD syntax; tried to redefine a protected term")
			}
		}
	}

	// 18)
	c.TermDefinitions[term] = definition

	return nil
}

// RevertToPreviousContext reverts any type-scoped context in this active context to the previous context.
func (c *Context) RevertToPreviousContext() *Context {
	if c.previousContext == nil {
		return c
	} else {
		return CopyContext(c.previousContext)
	}
}

// ExpandIri expands a string value to a full IRI.
//
// The string may be a term, a prefix, a relative IRI, or an absolute IRI.
// The associated absolute IRI will be returned.
//
// value: the string value to expand.
// relative: true to resolve IRIs against the base IRI, false not to.
// vocab: true to concatenate after @vocab, false not to.
// context: the local context being processed (only given if called during context processing).
// defined: a map for tracking cycles in context definitions (only given if called during context processing).
func (c *Context) ExpandIri(value string, relative bool, vocab bool, context map[string]interface{},
	defined map[string]bool) (string, error) {
	// 1)
	if IsKeyword(value) {
		return value, nil
	}

	if !IsKeyword(value) && ignoredKeywordPattern.MatchString(value) {
		return "", nil
	}

	// 2)
	if context != nil {
		if _, containsKey := context[value]; containsKey && !defined[value] {
			if err := c.createTermDefinition(context, value, defined, false); err != nil {
				return "", err
			}
		}
	}
	// 3)
	if termDef, hasTermDef := c.TermDefinitions[value]; vocab && hasTermDef {
		if termDef != nil {
			return termDef.ID, nil
		}

		return "", nil
	}

	// 4)
	// check if value contains a colon (`:`) anywhere but as the first character
	colIndex := strings.Index(value, ":")
	if colIndex > 0 {
		// 4.1)
		prefix := value[0:colIndex]
		suffix := value[colIndex+1:]
		// 4.2)
		if prefix == "_" || strings.HasPrefix(suffix, "//") {
			return value, nil
		}
		// 4.3)
		if context != nil {
			if _, containsPrefix := context[prefix]; containsPrefix && !defined[prefix] {
				if err := c.createTermDefinition(context, prefix, defined, false); err != nil {
					return "", err
				}
			}
		}
		// 4.4)
		// If active context contains a term definition for prefix, return the result of concatenating
		// the IRI mapping associated with prefix and suffix.
		termDef, hasPrefix := c.TermDefinitions[prefix]
		if hasPrefix && termDef.ID != "" && termDef.Prefix != nil && *termDef.Prefix {
			return termDef.ID + suffix, nil
		} else if IsAbsoluteIri(value) {
			// Otherwise, if the value has the form of an absolute IRI, return it
			return value, nil
		}
		// Otherwise, it is a relative IRI
	}

	// 5)
	if vocabValue := c.Values.Vocab; vocab && vocabValue != nil {
		return *vocabValue + value, nil
	} else if relative {
		// 6)
		baseValue := c.Values.Base
		hasBase := baseValue != ""
		var base string
		if hasBase {
			base = baseValue
		} else {
			base = ""
		}
		return Resolve(base, value), nil
	} else if context != nil && IsRelativeIri(value) {
		return "", NewJsonLdError(InvalidIRIMapping, "not an absolute IRI: "+value)
	}
	// 7)
	return value, nil
}

// CompactIri compacts an IRI or keyword into a term or CURIE if it can be.
// If the IRI has an associated value it may be passed.
//
// iri: the IRI to compact.
// value: the value to check or None.
// relativeToVocab: true to compact using @vocab if available, false not to.
// reverse: true if a reverse property is being compacted, false if not.
//
// Returns the compacted term, prefix, keyword alias, or original IRI.
func (c *Context) CompactIri(iri string, value interface{}, relativeToVocab bool, reverse bool) (string, error) {
	// 1)
	if iri == "" {
		return "", nil
	}

	inverseCtx := c.GetInverse()

	// term is a keyword, force relativeToVocab to True
	if IsKeyword(iri) {
		// look for an alias
		if v, found := inverseCtx[iri]; found {
			if v, found = v.(map[string]interface{})["@none"]; found {
				if v, found = v.(map[string]interface{})["@type"]; found {
					if v, found = v.(map[string]interface{})["@none"]; found {
						return v.(string), nil
					}
				}
			}
		}
		relativeToVocab = true
	}

	// 2)
	if relativeToVocab {
		if _, containsIRI := inverseCtx[iri]; containsIRI {
			var defaultLanguage string
			langVal, hasLang := c.Values.Language, c.Values.HasLanguage
			if dir := c.Values.Direction; hasLang && dir != "" {
				defaultLanguage = fmt.Sprintf("%s_%s", langVal, dir)
			} else {
				if hasLang {
					defaultLanguage = langVal
				} else {
					defaultLanguage = "@none"
				}
			}

			// 2.2)

			// prefer @index if available in value
			containers := make([]string, 0)

			valueMap, isObject := value.(map[string]interface{})
			if isObject {

				_, hasIndex := valueMap["@index"]
				_, hasGraph := valueMap["@graph"]
				if hasIndex && !hasGraph {
					containers = append(containers, "@index", "@index@set")
				}

				// if value is a preserve object, use its value
				if pv, hasPreserve := valueMap["@preserve"]; hasPreserve {
					value = pv.([]interface{})[0]
					valueMap, isObject = value.(map[string]interface{})
				}
			}

			// prefer most specific container including @graph
			if IsGraph(value) {

				_, hasIndex := valueMap["@index"]
				_, hasID := valueMap["@id"]

				if hasIndex {
					containers = append(containers, "@graph@index", "@graph@index@set", "@index", "@index@set")
				}
				if hasID {
					containers = append(containers, "@graph@id", "@graph@id@set")
				}
				containers = append(containers, "@graph", "@graph@set", "@set")
				if !hasIndex {
					containers = append(containers, "@graph@index", "@graph@index@set", "@index", "@index@set")
				}
				if !hasID {
					containers = append(containers, "@graph@id", "@graph@id@set")
				}
			} else if isObject && !IsValue(value) {
				containers = append(containers, "@id", "@id@set", "@type", "@set@type")
			}

			// 2.3)

			// defaults for term selection based on type/language
			typeLanguage := "@language"
			typeLanguageValue := "@null"

			// 2.5)
			if reverse {
				typeLanguage = "@type"
				typeLanguageValue = "@reverse"
				containers = append(containers, "@set")
			} else if valueList, containsList := valueMap["@list"]; containsList {

				if _, containsIndex := valueMap["@index"]; !containsIndex {
					containers = append(containers, "@list")
				}

				list := valueList.([]interface{})

				var commonType string
				var commonLanguage string
				if len(list) == 0 {
					commonLanguage = defaultLanguage
					commonType = "@id"
				}

				for _, item := range list {
					// 2.6.4.1)
					itemLanguage := "@none"
					itemType := "@none"
					// 2.6.4.2)
					if IsValue(item) {
						// 2.6.4.2.1)
						itemMap := item.(map[string]interface{})
						dirVal, hasDir := itemMap["@direction"]
						langVal, hasLang := itemMap["@language"]
						if hasDir {
							if hasLang {
								itemLanguage = fmt.Sprintf("%s_%s", itemMap["@language"], dirVal)
							} else {
								itemLanguage = fmt.Sprintf("_%s", dirVal)
							}
						} else if hasLang {
							itemLanguage = langVal.(string)
						} else if typeVal, hasType := itemMap["@type"]; hasType {
							itemType = typeVal.(string)
						} else {
							itemLanguage = "@null"
						}
					} else {
						itemType = "@id"
					}

					if commonLanguage == "" {
						commonLanguage = itemLanguage
					} else if commonLanguage != itemLanguage && IsValue(item) {
						commonLanguage = "@none"
					}

					if commonType == "" {
						commonType = itemType
					} else if commonType != itemType {
						commonType = "@none"
					}

					if commonLanguage == "@none" && commonType == "@none" {
						break
					}
				}

				if commonLanguage == "" {
					commonLanguage = "@none"
				}

				if commonType == "" {
					commonType = "@none"
				}

				if commonType != "@none" {
					typeLanguage = "@type"
					typeLanguageValue = commonType
				} else {
					typeLanguageValue = commonLanguage
				}
			} else {
				// 2.7)
				// 2.7.1)
				if IsValue(value) {

					// 2.7.1.1)
					langVal, hasLang := valueMap["@language"]
					_, hasIndex := valueMap["@index"]
					if hasLang && !hasIndex {
						containers = append(containers, "@language", "@language@set")
						if dir, hasDir := valueMap["@direction"]; hasDir {
							typeLanguageValue = fmt.Sprintf("%s_%s", langVal, dir)
						} else {
							typeLanguageValue = langVal.(string)
						}
					} else if dir, hasDir := valueMap["@direction"]; hasDir && !hasIndex {
						typeLanguageValue = fmt.Sprintf("_%s", dir)
					} else if typeVal, hasType := valueMap["@type"]; hasType {
						// 2.7.1.2)
						typeLanguage = "@type"
						typeLanguageValue = typeVal.(string)
					}
				} else {
					// 2.7.2)
					typeLanguage = "@type"
					typeLanguageValue = "@id"
				}
				// 2.7.3)
				containers = append(containers, "@set")
			}
			// 2.8)
			containers = append(containers, "@none")

			// an index map can be used to index values using @none, so add as
			// a low priority
			if isObject {
				if _, hasIndex := valueMap["@index"]; !hasIndex {
					containers = append(containers, "@index", "@index@set")
				}
			}

			// values without type or language can use @language map
			if IsValue(value) && len(value.(map[string]interface{})) == 1 {
				containers = append(containers, "@language", "@language@set")
			}

			// 2.9)
			if typeLanguageValue == "" {
				typeLanguageValue = "@null"
			}
			// 2.10)
			preferredValues := make([]string, 0)
			// 2.11)

			// 2.12)
			idVal, hasID := valueMap["@id"]
			if (typeLanguageValue == "@reverse" || typeLanguageValue == "@id") && isObject && hasID {

				if typeLanguageValue == "@reverse" {
					preferredValues = append(preferredValues, "@reverse")
				}

				// 2.12.1)
				result, err := c.CompactIri(idVal.(string), nil, true, false)
				if err != nil {
					return "", err
				}
				resultVal, hasResult := c.TermDefinitions[result]
				check := false
				if hasResult {
					resultIDVal, hasResultID := resultVal.ID, resultVal.ID != ""
					check = hasResultID && idVal == resultIDVal
				}
				if check {
					preferredValues = append(preferredValues, "@vocab", "@id", "@none")
				} else {
					preferredValues = append(preferredValues, "@id", "@vocab", "@none")
				}
			} else {
				if valueList, containsList := valueMap["@list"]; containsList && valueList == nil {
					typeLanguage = "@any"
				}
				preferredValues = append(preferredValues, typeLanguageValue, "@none")
			}

			preferredValues = append(preferredValues, "@any")

			// if containers included `@language` and preferred_values includes something
			// of the form language-tag_direction, add just the _direction part, to select
			//terms that have that direction.
			for _, pv := range preferredValues {
				if idx := strings.LastIndex(pv, "_"); idx != -1 {
					preferredValues = append(preferredValues, pv[idx:])
				}
			}

			// 2.14)
			term := c.SelectTerm(iri, containers, typeLanguage, preferredValues)

			// 2.15)
			if term != "" {
				return term, nil
			}
		}

		// 3)
		if vocabVal := c.Values.Vocab; vocabVal != nil {
			// determine if vocab is a prefix of the iri
			vocab := *vocabVal
			// 3.1)
			if strings.HasPrefix(iri, vocab) && iri != vocab {
				// use suffix as relative iri if it is not a term in the
				// active context
				suffix := iri[len(vocab):]
				if _, hasSuffix := c.TermDefinitions[suffix]; !hasSuffix {
					return suffix, nil
				}
			}
		}
	}

	// 4)
	compactIRI := ""

	// 5)
	partialMatches := make([]FastCurieEntry, 0)
	iriMap := c.fastCurieMap
	// check for partial matches of against `iri`, which means look until
	// iri.length - 1, not full length
	maxPartialLength := len(iri) - 1
	for i := 0; i < maxPartialLength; i++ {
		iriAny, ok := iriMap[string(iri[i])]
		if !ok {
			break
		}
		iriMap = iriAny.(map[string]interface{})
		if arrAny, ok := iriMap[""]; ok {
			entry := arrAny.([]FastCurieEntry)[0]
			partialMatches = append(partialMatches, entry)
		}
	}
	// check partial matches in reverse order to prefer longest ones first
	for i := len(partialMatches) - 1; i >= 0; i-- {
		entry := partialMatches[i]
		for _, term := range entry.terms {
			termDefinitionAny, ok := c.TermDefinitions[term]
			if !ok {
				continue
			}

			// a CURIE is usable if:
			// 1. it has no mapping, OR
			// 2. value is null, which means we're not compacting an @value, AND
			//   the mapping matches the IRI
			curie := term + ":" + iri[len(entry.iri):]
			prefix := termDefinitionAny.Prefix
			curieMapping, hasCurie := c.TermDefinitions[curie]

			isUsableCurie := prefix != nil && *prefix && (!hasCurie || value == nil && curieMapping.ID == iri)

			// select curie if it is shorter or the same length but lexicographically
			// less than the current choice
			if isUsableCurie && (compactIRI == "" || CompareShortestLeast(curie, compactIRI)) {
				compactIRI = curie
			}
		}
	}

	if compactIRI != "" {
		return compactIRI, nil
	}

	// If iri could be confused with a compact IRI using a term in this context,
	// signal an error
	for term, td := range c.TermDefinitions {
		if td != nil {
			prefix := td.Prefix
			if prefix != nil && *prefix && strings.HasPrefix(iri, term+":") {
				return "", NewJsonLdError(IRIConfusedWithPrefix, fmt.Sprintf("Absolute IRI %s confused with prefix %s", iri, term))
			}
		}
	}

	// compact IRI relative to base
	if !relativeToVocab {
		return RemoveBase(c.parsedBase(), iri), nil
	}

	// return IRI as is
	return iri, nil
}

// GetPrefixes returns a map of potential RDF prefixes based on the JSON-LD Term Definitions
// in this context. No guarantees of the prefixes are given, beyond that it will not contain ":".
//
// onlyCommonPrefixes: If true, the result will not include "not so useful" prefixes, such as
// "term1": "http://example.com/term1", e.g. all IRIs will end with "/" or "#".
// If false, all potential prefixes are returned.
//
// Returns a map from prefix string to IRI string
func (c *Context) GetPrefixes(onlyCommonPrefixes bool) map[string]string {
	prefixes := make(map[string]string)

	for term, termDefinition := range c.TermDefinitions {
		if strings.Contains(term, ":") || termDefinition == nil || termDefinition.ID == "" {
			continue
		}
		id := termDefinition.ID
		if strings.HasPrefix(term, "@") || strings.HasPrefix(id, "@") {
			continue
		}
		if !onlyCommonPrefixes || strings.HasSuffix(id, "/") || strings.HasSuffix(id, "#") {
			prefixes[term] = id
		}
	}

	return prefixes
}

// GetInverse generates an inverse context for use in the compaction algorithm,
// if not already generated for the given active context.
// See http://www.w3.org/TR/json-ld-api/#inverse-context-creation for further details.
func (c *Context) GetInverse() map[string]interface{} {

	// lazily create inverse
	if c.inverse != nil {
		return c.inverse
	}

	// 1)
	c.inverse = make(map[string]interface{})

	// 2)
	defaultLanguage := "@none"
	if c.Values.HasLanguage {
		defaultLanguage = c.Values.Language
	}

	// create term selections for each mapping in the context, ordered by
	// shortest and then lexicographically least
	terms := GetKeys(c.TermDefinitions)
	sort.Sort(ShortestLeast(terms))

	// variables for building fast CURIE map
	irisToTerms := make(map[string][]string, 0)

	for _, term := range terms {
		definition := c.TermDefinitions[term]
		// 3.1)
		if definition == nil {
			continue
		}

		// 3.2)
		var containerJoin string // this implementation was adapted from pyLD
		if definition.Container == nil {
			containerJoin = "@none" // see Ruby, as_set?
		} else {
			container := definition.Container
			strList := make([]string, len(container))
			copy(strList, container)
			sort.Strings(strList)
			containerJoin = strings.Join(strList, "")
		}

		// 3.3)
		iri := definition.ID

		// 3.4 + 3.5)
		var containerMap map[string]interface{}
		containerMapVal, present := c.inverse[iri]
		isKeyword := IsKeyword(iri)
		termHasColon := definition.termHasColon
		if !present {
			containerMap = make(map[string]interface{})
			c.inverse[iri] = containerMap

			if !isKeyword && !termHasColon {
				// init IRI to term map and fast CURIE map
				irisToTerms[iri] = []string{term}
				entry := FastCurieEntry{iri: iri, terms: irisToTerms[iri]}
				letter := string(iri[0])
				if val, ok := c.fastCurieMap[letter]; ok {
					arr := val.([]FastCurieEntry)
					arr = append(arr, entry)
					c.fastCurieMap[letter] = arr
				} else {
					c.fastCurieMap[letter] = []FastCurieEntry{entry}
				}
			}
		} else {
			containerMap = containerMapVal.(map[string]interface{})
			if !isKeyword && !termHasColon {
				// add IRI to term match
				irisToTerms[iri] = append(irisToTerms[iri], term)
			}
		}

		// 3.6 + 3.7)
		var typeLanguageMap map[string]interface{}
		typeLanguageMapVal, present := containerMap[containerJoin]
		if !present {
			typeLanguageMap = make(map[string]interface{})
			typeLanguageMap["@language"] = make(map[string]interface{})
			typeLanguageMap["@type"] = make(map[string]interface{})
			typeLanguageMap["@any"] = map[string]interface{}{
				"@none": term,
			}
			containerMap[containerJoin] = typeLanguageMap
		} else {
			typeLanguageMap = typeLanguageMapVal.(map[string]interface{})
		}

		langVal, hasLang := definition.Language, definition.HasLanguage
		dirVal, hasDir := definition.Direction, definition.HasDirection
		typeVal := definition.Type

		// 3.8)
		if definition.Reverse {
			typeMap := typeLanguageMap["@type"].(map[string]interface{})
			if _, hasValue := typeMap["@reverse"]; !hasValue {
				typeMap["@reverse"] = term
			}
		} else if typeVal == "@none" {
			typeMap := typeLanguageMap["@type"].(map[string]interface{})
			if _, hasAny := typeMap["@any"]; !hasAny {
				typeMap["@any"] = term
			}
			languageMap := typeLanguageMap["@language"].(map[string]interface{})
			if _, hasAny := languageMap["@any"]; !hasAny {
				languageMap["@any"] = term
			}
			anyMap := typeLanguageMap["@any"].(map[string]interface{})
			if _, hasAny := anyMap["@any"]; !hasAny {
				anyMap["@any"] = term
			}
		} else if typeVal != "" {
			typeMap := typeLanguageMap["@type"].(map[string]interface{})
			if _, hasValue := typeMap["@type"]; !hasValue {
				typeMap[typeVal] = term
			}
		} else if hasLang && hasDir {
			languageMap := typeLanguageMap["@language"].(map[string]interface{})
			langDir := "@null"

			if langVal != nil && dirVal != nil {
				langDir = fmt.Sprintf("%s_%s", *langVal, *dirVal)
			} else if langVal != nil {
				langDir = *langVal
			} else if dirVal != nil {
				langDir = "_" + *dirVal
			}
			if _, hasLang := languageMap[langDir]; !hasLang {
				languageMap[langDir] = term
			}
		} else if hasLang {
			languageMap := typeLanguageMap["@language"].(map[string]interface{})
			language := "@null"
			if langVal != nil {
				language = *langVal
			}
			if _, hasLang := languageMap[language]; !hasLang {
				languageMap[language] = term
			}
		} else if hasDir {
			languageMap := typeLanguageMap["@language"].(map[string]interface{})
			dir := "@none"
			if dirVal != nil {
				dir = "_" + *dirVal
			}
			if _, hasLang := languageMap[dir]; !hasLang {
				languageMap[dir] = term
			}
		} else if defDir := c.Values.Direction; defDir != "" {
			languageMap := typeLanguageMap["@language"].(map[string]interface{})
			typeMap := typeLanguageMap["@type"].(map[string]interface{})
			var langDir string
			if hasLang {
				// does this ever happen? There is a check above for hasLang
				langDir = fmt.Sprintf("%s_%s", *langVal, defDir)
			} else {
				langDir = "_" + defDir
			}
			if _, hasLang := languageMap[langDir]; !hasLang {
				languageMap[langDir] = term
			}
			if _, found := languageMap["@none"]; !found {
				languageMap["@none"] = term
			}
			if _, found := typeMap["@none"]; !found {
				typeMap["@none"] = term
			}
		} else {
			// 3.11.1)
			languageMap := typeLanguageMap["@language"].(map[string]interface{})
			// 3.11.2)
			if _, hasLang := languageMap[defaultLanguage]; !hasLang {
				languageMap[defaultLanguage] = term
			}
			// 3.11.3)
			if _, hasNone := languageMap["@none"]; !hasNone {
				languageMap["@none"] = term
			}
			// 3.11.4)
			typeMap := typeLanguageMap["@type"].(map[string]interface{})
			// 3.11.5)
			if _, hasNone := typeMap["@none"]; !hasNone {
				typeMap["@none"] = term
			}
		}
	}

	// build fast CURIE map
	for key := range c.fastCurieMap {
		buildIriMap(c.fastCurieMap, key, 1)
	}

	// 4)
	return c.inverse
}

// buildIriMap runs a recursive algorithm to build a lookup map for quickly finding
// potential CURIEs.
//
// iriMap is the map to build.
// key is the current key in the map to work on.
// idx is the index into the IRI to compare.
func buildIriMap(iriMap map[string]interface{}, key string, idx int) {
	entries := iriMap[key].([]FastCurieEntry)
	next := make(map[string]interface{}, 0)
	iriMap[key] = next

	for _, entry := range entries {
		letter := ""
		iri := entry.iri
		if idx < len(iri) {
			letter = string(iri[idx])
		}
		if val, ok := next[letter]; ok {
			arr := val.([]FastCurieEntry)
			arr = append(arr, entry)
			next[letter] = arr
		} else {
			next[letter] = []FastCurieEntry{entry}
		}
	}
	for key := range next {
		if key == "" {
			continue
		}
		buildIriMap(next, key, idx+1)
	}
}

// SelectTerm picks the preferred compaction term from the inverse context entry.
// See http://www.w3.org/TR/json-ld-api/#term-selection
//
// This algorithm, invoked via the IRI Compaction algorithm, makes use of an
// active context's inverse context to find the term that is best used to
// compact an IRI. Other information about a value associated with the IRI
// is given, including which container mappings and which type mapping or
// language mapping would be best used to express the value.
func (c *Context) SelectTerm(iri string, containers []string, typeLanguage string, preferredValues []string) string {
	inv := c.GetInverse()
	// 1)
	containerMap := inv[iri].(map[string]interface{})
	// 2)
	for _, container := range containers {
		// 2.1)
		containerVal, hasContainer := containerMap[container]
		if !hasContainer {
			continue
		}
		// 2.2)
		typeLanguageMap := containerVal.(map[string]interface{})
		// 2.3)
		valueMap := typeLanguageMap[typeLanguage].(map[string]interface{})

		// 2.4 )
		for _, item := range preferredValues {
			// 2.4.1
			itemVal, containsItem := valueMap[item]
			if !containsItem {
				continue
			}
			// 2.4.2
			return itemVal.(string)
		}
	}
	// 3)
	return ""
}

// GetContainer retrieves container mapping for the given property.
func (c *Context) GetContainer(property string) []string {
	td, ok := c.TermDefinitions[property]
	if ok && td != nil && td.Container != nil {
		return td.Container
	}

	return []string{}
}

// GetContainer retrieves container mapping for the given property.
func (c *Context) HasContainerMapping(property string, val string) bool {
	td, ok := c.TermDefinitions[property]
	if ok && td != nil && td.Container != nil {
		for _, container := range td.Container {
			if container == val {
				return true
			}
		}
	}

	return false
}

// IsReverseProperty returns true if the given property is a reverse property
func (c *Context) IsReverseProperty(property string) bool {
	td := c.GetTermDefinition(property)
	if td == nil {
		return false
	}
	return td.Reverse
}

// GetTypeMapping returns type mapping for the given property
func (c *Context) GetTypeMapping(property string) string {
	// default type
	td := c.GetTermDefinition(property)
	if td != nil && td.Type != "" {
		return td.Type
	}
	return ""
}

// GetLanguageMapping returns language mapping for the given property
func (c *Context) GetLanguageMapping(property string) string {
	td := c.GetTermDefinition(property)
	if td != nil && td.HasLanguage {
		if td.Language != nil {
			return *td.Language
		}
		return ""
	}

	if c.Values.HasLanguage {
		return c.Values.Language
	}

	return ""
}

// GetDirectionMapping returns direction mapping for the given property
func (c *Context) GetDirectionMapping(property string) string {
	td := c.GetTermDefinition(property)
	if td != nil && td.HasDirection {
		if td.Direction != nil {
			return *td.Direction
		}
		return ""
	}

	if defaultDir := c.Values.Direction; defaultDir != "" {
		return defaultDir
	}

	return ""
}

// GetTermDefinition returns a term definition for the given key
func (c *Context) GetTermDefinition(key string) *TermDefinition {
	if value, ok := c.TermDefinitions[key]; ok {
		return value
	}
	return nil
}

// ExpandValue expands the given value by using the coercion and keyword rules in the context.
func (c *Context) ExpandValue(activeProperty string, value interface{}) (interface{}, error) {
	var rval = make(map[string]interface{})
	td := c.GetTermDefinition(activeProperty)

	// If the active property has a type mapping in active context that is @id, return a new JSON object
	// containing a single key-value pair where the key is @id and the value is the result of using
	// the IRI Expansion algorithm, passing active context, value, and true for document relative.
	if td != nil && td.Type == "@id" {
		if strVal, isString := value.(string); isString {
			var err error
			rval["@id"], err = c.ExpandIri(strVal, true, false, nil, nil)
			if err != nil {
				return nil, err
			}
		} else {
			rval["@value"] = value
		}
		return rval, nil
	}
	// If active property has a type mapping in active context that is @vocab, return a new JSON object
	// containing a single key-value pair where the key is @id and the value is the result of using
	// the IRI Expansion algorithm, passing active context, value, true for vocab, and true for document relative.
	if td != nil && td.Type == "@vocab" {
		if strVal, isString := value.(string); isString {
			var err error
			rval["@id"], err = c.ExpandIri(strVal, true, true, nil, nil)
			if err != nil {
				return nil, err
			}
		} else {
			rval["@value"] = value
		}
		return rval, nil
	}

	// 3)
	rval["@value"] = value
	// 4)
	if td != nil && td.Type != "" && td.Type != "@id" && td.Type != "@vocab" &&
		td.Type != "@none" {
		rval["@type"] = td.Type
	} else if _, isString := value.(string); isString {
		// 5.1)
		if containsLang := td != nil && td.HasLanguage; containsLang {
			langVal := td.Language
			if langVal != nil {
				rval["@language"] = *langVal
			}
		} else if defaultLangVal := c.Values.Language; c.Values.HasLanguage {
			rval["@language"] = defaultLangVal
		}

		if containsDir := td != nil && td.HasDirection; containsDir {
			dirVal := td.Direction
			if dirVal != nil {
				rval["@direction"] = *dirVal
			}
		} else if dirVal := c.Values.Direction; dirVal != "" {
			rval["@direction"] = dirVal
		}
	}
	return rval, nil
}

// Serialize transforms the context back into JSON form.
func (c *Context) Serialize() (map[string]interface{}, error) {
	ctx := make(map[string]interface{})

	baseVal := c.Values.Base
	hasBase := baseVal != ""
	if hasBase && baseVal != c.options.Base {
		ctx["@base"] = baseVal
	}
	if versionVal := c.Values.Version; versionVal != nil {
		ctx["@version"] = *versionVal
	}
	if langVal := c.Values.Language; c.Values.HasLanguage {
		ctx["@language"] = langVal
	}
	if dirVal := c.Values.Direction; dirVal != "" {
		ctx["@direction"] = dirVal
	}
	if vocabVal := c.Values.Vocab; vocabVal != nil {
		ctx["@vocab"] = *vocabVal
	}
	for term, definition := range c.TermDefinitions {
		// Note: definitionVal may be nil for terms which are set to be ignored
		// (see the definition for null value in JSON-LD spec)
		langVal, hasLang := definition.Language, definition.HasLanguage
		containerVal, hasContainer := definition.Container, definition.Container != nil
		typeMapping := definition.Type
		if !hasLang && !hasContainer && typeMapping == "" && !definition.Reverse {
			var cid interface{}
			id := definition.ID
			if id == "" {
				cid = nil
				ctx[term] = cid
			} else if IsKeyword(id) {
				ctx[term] = id
			} else {
				var err error
				cid, err = c.CompactIri(id, nil, false, false)
				if err != nil {
					return nil, err
				}
				if term == cid {
					ctx[term] = id
				} else {
					ctx[term] = cid
				}
				ctx[term] = cid
			}
		} else {
			defn := make(map[string]interface{})
			id := definition.ID
			cid, err := c.CompactIri(id, nil, false, false)
			if err != nil {
				return nil, err
			}
			reverseProperty := definition.Reverse
			if !(term == cid && !reverseProperty) {
				if reverseProperty {
					defn["@reverse"] = cid
				} else {
					defn["@id"] = cid
				}
			}
			if typeMapping != "" {
				if IsKeyword(typeMapping) {
					defn["@type"] = typeMapping
				} else {
					defn["@type"], err = c.CompactIri(typeMapping, nil, true, false)
					if err != nil {
						return nil, err
					}
				}
			}
			if hasContainer {
				if len(containerVal) == 1 {
					defn["@container"] = containerVal[0]
				} else {
					defn["@container"] = containerVal
				}
			}
			if hasLang {
				if langVal == nil {
					defn["@language"] = nil
				} else {
					defn["@language"] = *langVal
				}
			}
			ctx[term] = defn
		}
	}

	rval := make(map[string]interface{})
	if len(ctx) != 0 {
		rval["@context"] = ctx
	}
	return rval, nil
}

// resolveContextRefs resolves the remote context references of a scoped context against the URL of the remote
// context that defines it, which is no longer known when the scoped context is applied.
func resolveContextRefs(ctx interface{}, base string) interface{} {
	if base == "" {
		return ctx
	}
	switch v := ctx.(type) {
	case string:
		return Resolve(base, v)
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, e := range v {
			if s, ok := e.(string); ok {
				out[i] = Resolve(base, s)
			} else {
				out[i] = e
			}
		}
		return out
	}
	return ctx
}

// parsedBase returns Values.Base parsed, or nil when there is no base.
func (c *Context) parsedBase() interface{} {
	if c.Values.Base == "" {
		return nil
	}
	if c.base == nil || c.base.Href != c.Values.Base {
		c.base = ParseURL(c.Values.Base)
	}
	return c.base
}

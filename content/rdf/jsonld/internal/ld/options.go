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

type Embed string

const (
	JsonLd_1_0       = "json-ld-1.0"              //nolint:stylecheck
	JsonLd_1_1       = "json-ld-1.1"              //nolint:stylecheck
	JsonLd_1_1_Frame = "json-ld-1.1-expand-frame" //nolint:stylecheck

	EmbedLast   Embed = "@last"
	EmbedOnce   Embed = "@once"
	EmbedAlways Embed = "@always"
	EmbedNever  Embed = "@never"
)

// JsonLdOptions type as specified in the JSON-LD-API specification:
// http://www.w3.org/TR/json-ld-api/#the-jsonldoptions-type
type JsonLdOptions struct { //nolint:stylecheck

	// Base options: http://www.w3.org/TR/json-ld-api/#idl-def-JsonLdOptions

	// http://www.w3.org/TR/json-ld-api/#widl-JsonLdOptions-base
	Base string
	// http://www.w3.org/TR/json-ld-api/#widl-JsonLdOptions-compactArrays
	CompactArrays bool
	// http://www.w3.org/TR/json-ld-api/#widl-JsonLdOptions-expandContext
	ExpandContext interface{}
	// http://www.w3.org/TR/json-ld-api/#widl-JsonLdOptions-processingMode
	ProcessingMode string
	// http://www.w3.org/TR/json-ld-api/#widl-JsonLdOptions-documentLoader
	DocumentLoader DocumentLoader

	// Frame options: https://www.w3.org/TR/json-ld-framing/#jsonldoptions
	Embed        Embed
	Explicit     bool
	FrameDefault bool
	OmitDefault  bool
	OmitGraph    bool
	Ordered      bool
	RequireAll   bool

	// RDF conversion options: http://www.w3.org/TR/json-ld-api/#serialize-rdf-as-json-ld-algorithm

	UseRdfType            bool
	UseNativeTypes        bool
	ProduceGeneralizedRdf bool
	// ldhub: work, when set, bounds the processing one document may cause; shared by copies of the options.
	work *Work

	// ldhub: RDFDirection is "", "i18n-datatype" or "compound-literal" (JSON-LD 1.1 rdfDirection).
	RDFDirection string

	// The following properties aren't in the spec

	InputFormat   string
	Format        string
	Algorithm     string
	UseNamespaces bool
	OutputForm    string
	SafeMode      bool

	// ExpandedElementHandler, when set, is called during expansion for each
	// node object expansion keeps, with that object's JSON Pointer and the
	// result of expanding it. See ElementHandler.
	//
	// Nil by default, and nil costs nothing: no pointer is built and no
	// callback is made.
	ExpandedElementHandler ElementHandler
}

// NewJsonLdOptions creates and returns new instance of JsonLdOptions with the given base.
func NewJsonLdOptions(base string) *JsonLdOptions { //nolint:stylecheck
	return &JsonLdOptions{
		Base:                  base,
		CompactArrays:         true,
		ProcessingMode:        JsonLd_1_1,
		Embed:                 EmbedOnce,
		Explicit:              false,
		RequireAll:            true,
		FrameDefault:          false,
		OmitDefault:           false,
		OmitGraph:             true,
		Ordered:               false,
		UseRdfType:            false,
		UseNativeTypes:        false,
		ProduceGeneralizedRdf: false,
		InputFormat:           "",
		Format:                "",
		UseNamespaces:         false,
		OutputForm:            "",
		SafeMode:              false,
	}
}

// Copy creates a deep copy of JsonLdOptions object.
func (opt *JsonLdOptions) Copy() *JsonLdOptions {
	return &JsonLdOptions{
		Base:                   opt.Base,
		CompactArrays:          opt.CompactArrays,
		ExpandContext:          opt.ExpandContext,
		ProcessingMode:         opt.ProcessingMode,
		DocumentLoader:         opt.DocumentLoader,
		Embed:                  opt.Embed,
		Explicit:               opt.Explicit,
		RequireAll:             opt.RequireAll,
		FrameDefault:           opt.FrameDefault,
		OmitDefault:            opt.OmitDefault,
		OmitGraph:              opt.OmitGraph,
		Ordered:                opt.Ordered,
		UseRdfType:             opt.UseRdfType,
		UseNativeTypes:         opt.UseNativeTypes,
		ProduceGeneralizedRdf:  opt.ProduceGeneralizedRdf,
		RDFDirection:           opt.RDFDirection,
		work:                   opt.work,
		InputFormat:            opt.InputFormat,
		Format:                 opt.Format,
		Algorithm:              opt.Algorithm,
		UseNamespaces:          opt.UseNamespaces,
		OutputForm:             opt.OutputForm,
		SafeMode:               opt.SafeMode,
		ExpandedElementHandler: opt.ExpandedElementHandler,
	}
}

// Work counts what one document makes the processor do. ldhub: not in upstream.
type Work struct {
	termDefinitions    int
	maxTermDefinitions int
}

// SetMaxTermDefinitions makes processing with these options fail with a context overflow error after n term
// definitions (counting every reprocessing of a context).
func (opt *JsonLdOptions) SetMaxTermDefinitions(n int) {
	opt.work = &Work{maxTermDefinitions: n}
}

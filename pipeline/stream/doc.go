// Package stream holds the pipeline's paths for large dumps, where statements pass one at a time: the encoders
// that write expanded JSON-LD, Turtle and N-Triples/N-Quads as statements come instead of grouping the whole graph,
// and RawQuads, which reads an N-Triples/N-Quads upload through the decoder's zero-copy reader. Each is tested
// against the general codec it replaces (same statements, same bytes, or a read-back isomorphic graph).
//
// It depends on content/rdf only, so its fuzz target runs at the speed of the code it checks.
package stream

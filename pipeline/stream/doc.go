// Package stream holds the pipeline's paths for large dumps, where statements pass one at a time: the N-Triples/
// N-Quads encoder for statements read from N-Triples (the streaming JSON-LD, Turtle, TriG and RDF/XML writers live
// with their syntaxes in content/rdf), and RawQuads, which reads an N-Triples/N-Quads upload through the decoder's zero-copy reader. Each is tested
// against the general codec it replaces (same statements, same bytes, or a read-back isomorphic graph).
//
// It depends on content/rdf only, so its fuzz target runs at the speed of the code it checks.
package stream

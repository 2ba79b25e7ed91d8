// Package layering holds a test of the module's import graph: the rules that keep
// the dependencies one-way (only frames imports gota; the draws exchange type, the
// diagnostics and the plots do not depend on gota or golang.org/x/net; nmc/dist
// does not import the sampler). It has no non-test code besides this comment.
package layering

// Package reliability holds cross-package tests of nmc-go's behaviour on bad input
// and under faults: malformed files, declarations and options across the public
// APIs and the nmc command line, interrupted and failing runs, output files that
// cannot be written, and byte-identical output for a fixed seed. It has no
// non-test code besides this comment.
package reliability

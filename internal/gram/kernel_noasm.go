//go:build !amd64 || purego || (openblas && cgo)

package gram

// useGramAsm reports whether addWeightedGram runs the assembly kernel: never on
// architectures other than amd64, under the purego build tag, or when built with
// the openblas tag and cgo (the go tool does not accept Go assembly files in a
// package that uses cgo).
const useGramAsm = false

// addWeightedGramAsm is never called when useGramAsm is false; it is defined so
// that the dispatch in addWeightedGram compiles everywhere.
func addWeightedGramAsm(h []float64, k int, m dataMatrix, rows []int, w []float64) {
	addWeightedGramGeneric(h, k, m, rows, w)
}

//go:build !amd64 || purego

package graph

// useGramAsm reports whether addWeightedGram runs the assembly kernel: never on
// this architecture or under the purego build tag.
const useGramAsm = false

// addWeightedGramAsm is never called when useGramAsm is false; it is defined so
// that the dispatch in addWeightedGram compiles everywhere.
func addWeightedGramAsm(h []float64, k int, m *dataMatrix, rows []int, w []float64) {
	addWeightedGramGeneric(h, k, m, rows, w)
}

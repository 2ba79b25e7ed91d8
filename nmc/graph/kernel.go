package graph

import "github.com/nmc-go/nmc/internal/gram"

// addWeightedGram adds Σ_r w[r]·a_r a_rᵀ to the upper triangle of the k×k row-major
// matrix h, where a_r is row r of m (see gram.AddWeighted).
func addWeightedGram(h []float64, k int, m *dataMatrix, rows []int, w []float64) {
	gram.AddWeighted(h, k, m.data, rows, w)
}

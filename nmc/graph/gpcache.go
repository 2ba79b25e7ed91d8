package graph

import (
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The scorer's memory for Gaussian-process nodes: Cholesky factors of a matrix
// node kept between scores, and the sites a node reads.

// gpScratch is a scorer's working memory for multivariate normals and Cholesky
// products, made on first use.
type gpScratch struct {
	mvn     []*mvnScratch             // per factor
	cholMul map[*Node]*cholMulScratch // per CholeskyMul node
	kernel  map[*Node]*kernelTable    // per kernel node (covkernel.go)
}

// factorCache keeps the Cholesky factors of a matrix node at the last two points
// seen: a point is the value of the coordinates of the sites the matrix reads, so
// that a factor is reused while they do not move (the latent values of a Gaussian
// process scored as a site) and is never stale.
type factorCache struct {
	n     int
	slots [2]mvnSlot
	clock uint64
	key   []float64
}

// nodeDeps holds, per element of a node, the sites it reads and their families,
// computed on first use.
type nodeDeps struct {
	deps [][]int
	fams [][]*family
	ok   []bool
}

// mvnSlot is a factorised matrix at one point: the key is the value of the
// coordinates of the sites the matrix parameter's element e reads.
type mvnSlot struct {
	ok     bool
	e      int
	key    []float64
	l      []float64 // n×n, lower Cholesky factor (upper triangle zero)
	logDet float64
	kinv   []float64 // n×n, K⁻¹ (both triangles), when kinvOK
	kinvOK bool
	used   uint64
}

func (fc *factorCache) init(n int) {
	fc.n = n
	for i := range fc.slots {
		fc.slots[i].l = make([]float64, n*n)
		fc.slots[i].kinv = make([]float64, n*n)
	}
}

// of returns the sites element e of node c reads and their families.
func (d *nodeDeps) of(m *Model, c *Node, e int) ([]int, []*family) {
	if d.ok == nil {
		d.deps, d.fams, d.ok = make([][]int, c.length), make([][]*family, c.length), make([]bool, c.length)
	}
	if !d.ok[e] {
		d.deps[e] = collectDeps(c, e, nil)
		slices.Sort(d.deps[e])
		for _, site := range d.deps[e] {
			f := m.siteFamily(site)
			if !slices.Contains(d.fams[e], f) {
				d.fams[e] = append(d.fams[e], f)
			}
		}
		d.ok[e] = true
	}
	return d.deps[e], d.fams[e]
}

// siteFamily returns the family of site i.
func (m *Model) siteFamily(i int) *family {
	for _, f := range m.fams {
		if i >= f.first && i < f.first+len(m.sitesOf(f)) {
			return f
		}
	}
	return nil
}

// moves reports whether the active coordinates move a node that reads the sites
// deps of families fams.
func (s *scorer) moves(deps []int, fams []*family) bool {
	if s.orbit != nil {
		for _, f := range fams {
			if s.orbit.member[f.id] {
				return true
			}
		}
		return false
	}
	return s.active >= 0 && slices.Contains(deps, s.active)
}

// slot returns the slot holding the factor of element e of the matrix at the
// current values of its sites deps, and true; or the slot to refill, and false.
// keep is false when the matrix is evaluated at a summed-out site's value
// (fixSite) rather than the state: then nothing is looked up and what is
// computed must not be kept.
func (ws *factorCache) slot(s *scorer, e int, deps []int) (sl *mvnSlot, found, keep bool) {
	ws.key = ws.key[:0]
	keep = true
	for _, site := range deps {
		if s.fixSite == site+1 {
			keep = false
		}
		o := s.m.offsets[site]
		ws.key = append(ws.key, s.x[o:o+s.m.sites[site].Size]...)
	}
	ws.clock++
	if keep {
		for i := range ws.slots {
			if sl := &ws.slots[i]; sl.ok && sl.e == e && slices.Equal(sl.key, ws.key) {
				sl.used = ws.clock
				return sl, true, true
			}
		}
	}
	sl = &ws.slots[0]
	if ws.slots[1].used < sl.used {
		sl = &ws.slots[1]
	}
	sl.ok, sl.kinvOK, sl.e, sl.used = false, false, e, ws.clock
	sl.key = append(sl.key[:0], ws.key...)
	return sl, false, keep
}

// inverse computes K⁻¹ from the factor in sl, once per slot.
func (ws *factorCache) inverse(sl *mvnSlot) {
	if sl.kinvOK {
		return
	}
	n := ws.n
	copy(sl.kinv, sl.l)
	lapack64.Potri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: sl.kinv})
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			sl.kinv[j*n+i] = sl.kinv[i*n+j]
		}
	}
	sl.kinvOK = true
}

// eachGrad calls fn(p, ∂_p j) for every coordinate p in which j may move.
func (s *scorer) eachGrad(j *jet, fn func(p int, g float64)) {
	switch j.kind {
	case jUnit:
		fn(j.i, j.gc)
	case jRow:
		for p, v := range j.m.row(j.i) {
			if v != 0 {
				fn(p, j.gc*v)
			}
		}
	case jDense:
		for p, v := range j.g {
			if v != 0 {
				fn(p, v)
			}
		}
	}
}

func dot(a, b []float64) float64 {
	if len(a) <= dotShort {
		return dotShortOf(a, b)
	}
	return blas64.Dot(blas64.Vector{N: len(a), Data: a, Inc: 1}, blas64.Vector{N: len(a), Data: b, Inc: 1})
}

// dotShort is the longest vectors dot takes in Go rather than through blas64, whose
// checks and call cost more than the arithmetic there (a regression's row of a few
// predictors).
const dotShort = 16

// dotShortOf returns a·b (len(b) ≥ len(a)) bit for bit as gonum's amd64 DotUnitary
// does, so that either path gives the same value: four partial sums over the
// elements 4i, 4i+1, 4i+2 and 4i+3, the 0–3 left over added to the first in order,
// then (s₀ + s₂) + (s₁ + s₃). Each product is rounded before it is added (the
// float64 conversions keep the compiler from fusing them).
func dotShortOf(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i] * b[i])
		s1 += float64(a[i+1] * b[i+1])
		s2 += float64(a[i+2] * b[i+2])
		s3 += float64(a[i+3] * b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i] * b[i])
	}
	return (s0 + s2) + (s1 + s3)
}

// growClear returns buf resized to n zeros.
func growClear(buf []float64, n int) []float64 {
	buf = slices.Grow(buf[:0], n)[:n]
	clear(buf)
	return buf
}

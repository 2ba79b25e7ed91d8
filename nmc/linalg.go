package nmc

import "math"

// Small dense kernels for the proposers. Matrices are n×n, row-major. None of these
// allocate; the caller owns every buffer.

// cholesky overwrites the symmetric matrix a with its lower Cholesky factor L
// (a = L Lᵀ), zeroing the strict upper triangle. It reports false, leaving a
// partly overwritten, if a is not positive definite (or holds NaN).
func cholesky(a []float64, n int) bool {
	for j := 0; j < n; j++ {
		rj := a[j*n : j*n+n]
		d := rj[j]
		for k := 0; k < j; k++ {
			d -= rj[k] * rj[k]
		}
		if !(d > 0) || math.IsInf(d, 0) {
			return false
		}
		d = math.Sqrt(d)
		rj[j] = d
		for i := j + 1; i < n; i++ {
			ri := a[i*n : i*n+n]
			s := ri[j]
			for k := 0; k < j; k++ {
				s -= ri[k] * rj[k]
			}
			ri[j] = s / d
		}
		for k := j + 1; k < n; k++ {
			rj[k] = 0
		}
	}
	return true
}

// solveLower solves L y = b for y in place of b, L lower triangular.
func solveLower(l []float64, n int, b []float64) {
	for i := 0; i < n; i++ {
		ri := l[i*n : i*n+i]
		s := b[i]
		for k, v := range ri {
			s -= v * b[k]
		}
		b[i] = s / l[i*n+i]
	}
}

// solveLowerT solves Lᵀ y = b for y in place of b, L lower triangular.
func solveLowerT(l []float64, n int, b []float64) {
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*n+i] * b[k]
		}
		b[i] = s / l[i*n+i]
	}
}

// mulLowerT writes Lᵀ x into dst (dst and x distinct).
func mulLowerT(l []float64, n int, x, dst []float64) {
	for i := 0; i < n; i++ {
		s := 0.0
		for k := i; k < n; k++ {
			s += l[k*n+i] * x[k]
		}
		dst[i] = s
	}
}

// symEigen computes the eigendecomposition a = V diag(w) Vᵀ of the symmetric matrix a
// by cyclic Jacobi rotations. a is destroyed. Column j of v (v[i*n+j]) is the
// eigenvector of w[j]. It reports false if the rotations did not converge.
func symEigen(a []float64, n int, w, v []float64) bool {
	for i := range v[:n*n] {
		v[i] = 0
	}
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	ok := false
	for sweep := 0; sweep < 100; sweep++ {
		off, diag := 0.0, 0.0
		for p := 0; p < n; p++ {
			diag += a[p*n+p] * a[p*n+p]
			for q := p + 1; q < n; q++ {
				off += a[p*n+q] * a[p*n+q]
			}
		}
		if off == 0 || off <= 1e-30*diag {
			ok = true
			break
		}
		if math.IsNaN(off) || math.IsInf(off, 0) {
			return false
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if apq == 0 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = c*akp - s*akq
					a[k*n+q] = s*akp + c*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = c*apk - s*aqk
					a[q*n+k] = s*apk + c*aqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p] = c*vkp - s*vkq
					v[k*n+q] = s*vkp + c*vkq
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		w[i] = a[i*n+i]
	}
	return ok
}

// allFinite reports whether every element of x is finite.
func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// isFinite reports whether v is neither NaN nor infinite.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// sortedUnique sorts small slices of site indices and drops repeats, in place.
func sortedUnique(v []int) []int {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
	out := v[:0]
	for i, s := range v {
		if i == 0 || s != v[i-1] {
			out = append(out, s)
		}
	}
	return out
}

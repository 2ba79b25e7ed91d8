package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/nmc-go/nmc/nmc"
)

// The observed elements of a model are the elements of its observations (Observe,
// ObserveInts), in declaration order and element order within each. Factor terms
// are not observations: they have no data and no distribution to draw from, so
// they are left out of the pointwise log-likelihood and of replicated data, like
// the priors of the latent variables.

var _ nmc.Replicator = (*Model)(nil)

// compileObserved sets m.obs, m.numReplicated and m.logLik: what the calls made at
// every draw (PointwiseLogLik, Replicate) would otherwise make anew each time.
func (m *Model) compileObserved() {
	m.obs = m.observed()
	m.numReplicated, m.logLik = 0, &observedLogLik{m: m, obs: m.obs}
	for _, fi := range m.obs {
		fc := m.factors[fi]
		m.numReplicated += fc.length * fc.width
		m.logLik.n += fc.length
	}
}

// observed returns the indices in m.factors of the observations, in declaration order.
func (m *Model) observed() []int {
	var out []int
	for fi, fc := range m.factors {
		if fc.fam != nil {
			continue // a latent family's prior
		}
		if _, ok := fc.d.fam.(exprFactor); ok {
			continue // a Factor term
		}
		out = append(out, fi)
	}
	return out
}

// NumObserved returns the number of observed elements: one per element of every
// observation (a scalar for scalar families, a vector for vector families).
func (m *Model) NumObserved() int {
	return m.logLik.n
}

// ObservedNames names the observed elements in the order of PointwiseLogLik:
// name[i] for an observation of several elements, name for one of a single element.
func (m *Model) ObservedNames() []string {
	var out []string
	for _, fi := range m.obs {
		fc := m.factors[fi]
		for e := 0; e < fc.length; e++ {
			if fc.length == 1 {
				out = append(out, fc.name)
			} else {
				out = append(out, fmt.Sprintf("%s[%d]", fc.name, e))
			}
		}
	}
	return out
}

// PointwiseLogLik writes into dst (length NumObserved()) the log density of every
// observed element at state x, log p(y_i | x), in the order of ObservedNames. Their
// sum plus the log priors of the latent variables and the Factor terms is LogJoint.
// It is safe for concurrent use and reuses its evaluators between calls (those of
// LogLik).
func (m *Model) PointwiseLogLik(x, dst []float64) {
	m.logLik.LogLik(x, dst)
}

// LogLik returns the pointwise log-likelihood of the observed elements as an
// nmc.HeldOut (Len is NumObserved, LogLik is PointwiseLogLik), for the
// log-likelihood draws of PSIS-LOO (nmc.PointwiseDraws). The value is safe for
// concurrent use and reuses its evaluators between calls; every call returns the
// model's one value.
func (m *Model) LogLik() nmc.HeldOut {
	return m.logLik
}

// observedLogLik is the nmc.HeldOut of Model.LogLik.
type observedLogLik struct {
	m    *Model
	obs  []int
	n    int
	pool sync.Pool // *scorer
}

// Len is the number of observed elements.
func (h *observedLogLik) Len() int { return h.n }

// LogLik writes log p(y_i | x) of every observed element into dst.
func (h *observedLogLik) LogLik(x, dst []float64) {
	s, _ := h.pool.Get().(*scorer)
	if s == nil {
		s = h.m.newScorer()
	}
	s.x, s.active = x, -1
	s.newCall()
	i := 0
	for _, fi := range h.obs {
		for e := 0; e < h.m.factors[fi].length; e++ {
			dst[i] = s.factorElem(fi, e, false, false)
			i++
		}
	}
	s.x = nil
	h.pool.Put(s)
}

// NumReplicated returns the number of scalar values of one replicated data set:
// the observed elements times their widths.
func (m *Model) NumReplicated() int {
	return m.numReplicated
}

// ReplicatedNames names the values of Replicate: prefix[i] for the i-th scalar
// observed element over all observations in declaration order (0-based), and
// prefix[i,c] for component c of a vector element. With prefix "y_rep" these are
// Stan's names of posterior predictive draws.
func (m *Model) ReplicatedNames(prefix string) []string {
	var out []string
	i := 0
	for _, fi := range m.obs {
		fc := m.factors[fi]
		for e := 0; e < fc.length; e++ {
			if fc.width == 1 {
				out = append(out, fmt.Sprintf("%s[%d]", prefix, i))
			} else {
				for c := 0; c < fc.width; c++ {
					out = append(out, fmt.Sprintf("%s[%d,%d]", prefix, i, c))
				}
			}
			i++
		}
	}
	return out
}

// Replicate draws a replicated data set at state x: every observed element drawn
// from its distribution given x, written into dst (length NumReplicated()) in the
// order of ReplicatedNames. At posterior draws x these are posterior predictive
// draws; at prior draws (Init), prior predictive ones. An error names the
// observation whose parameters are invalid at x.
func (m *Model) Replicate(rng *rand.Rand, x, dst []float64) error {
	if len(x) != m.dim {
		return fmt.Errorf("graph: Replicate: state has %d coordinates, want %d", len(x), m.dim)
	}
	if len(dst) != m.numReplicated {
		return fmt.Errorf("graph: Replicate: %d values, want %d", len(dst), m.numReplicated)
	}
	// Called at every draw: the value scorer and its scratch are reused.
	sc := m.pooledValueScorer(x)
	err := sc.replicate(rng, dst)
	m.releaseValueScorer(sc)
	return err
}

// replicate draws every observed element at state s.x into dst (Replicate).
func (s *scorer) replicate(rng *rand.Rand, dst []float64) error {
	i := 0
	for _, fi := range s.m.obs {
		fc := s.m.factors[fi]
		for e := 0; e < fc.length; e++ {
			s.params = s.params[:0]
			for _, p := range fc.d.params {
				s.params = s.values(p, elem(p, e), s.params)
			}
			if err := fc.d.fam.CheckParams(s.params, fc.d.k); err != nil {
				return fmt.Errorf("graph: Replicate: observed %q element %d: %w", fc.name, e, err)
			}
			fc.d.fam.Rand(rng, slices.Clip(s.params), fc.d.k, dst[i:i+fc.width])
			i += fc.width
		}
	}
	return nil
}

// PriorPredictive draws one state x from the prior (the latent families in
// declaration order, as Init) and a replicated data set y at it (as Replicate):
// a draw of the prior predictive distribution, ignoring the observed values.
// Latents with no prior to draw from — Flat, HalfFlat and the raw sites of
// constrained latents (Ordered, Bounded), which Init starts by Stan's rule — and
// Factor terms make it a draw of another distribution. x has
// the model's state length, y NumReplicated(). Repeated calls with one rng give
// independent draws, reproducible for the rng's seed.
func (m *Model) PriorPredictive(rng *rand.Rand, x, y []float64) error {
	if err := m.Init(rng, x); err != nil {
		return err
	}
	return m.Replicate(rng, x, y)
}

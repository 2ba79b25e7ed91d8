package nmc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// wideHier: mu ~ N(0, 10²), w ~ N(0, 1), theta_k ~ N(mu + w/10, 1) for k < n, and an
// independent z ~ N(0, 1). Sites: mu, w, theta_0 … theta_{n-1}, z. With n above
// trackedReads, mu and w read too many sites to be tracked by flags (each reads the
// other and every theta), so their caches are stamped while those of the thetas
// and z are flagged. It counts Score calls; wideHierNb adds the Neighborer.
type wideHier struct {
	n     int
	calls atomic64
}

func (m *wideHier) Sites() []Site {
	s := make([]Site, m.n+3)
	for i := range s {
		s[i] = Site{Name: fmt.Sprintf("s%d", i), Size: 1}
	}
	return s
}
func (m *wideHier) NewScorer() Scorer { return m }
func (m *wideHier) Init(rng *rand.Rand, x []float64) error {
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return nil
}

func (m *wideHier) LogJoint(x []float64) float64 {
	f := 0.0
	for i := range x {
		if i != 1 {
			f += m.Score(x, i, nil, nil)
		}
	}
	return f
}

func (m *wideHier) Score(x []float64, i int, g, h []float64) float64 {
	m.calls.add()
	mu, w, z := x[0], x[1], x[m.n+2]
	var f, gi, hi float64
	switch {
	case i == 0 || i == 1: // mu or w: its prior and every theta's likelihood
		var c float64 // d(theta mean)/d(site)
		if i == 0 {
			f, gi, hi, c = -0.5*mu*mu/100, -mu/100, -1.0/100, 1
		} else {
			f, gi, hi, c = -0.5*w*w, -w, -1, 0.1
		}
		for k := 0; k < m.n; k++ {
			r := x[2+k] - mu - w/10
			f -= 0.5 * r * r
			gi += c * r
			hi -= c * c
		}
	case i == m.n+2:
		f, gi, hi = -0.5*z*z, -z, -1
	default:
		r := x[i] - mu - w/10
		f, gi, hi = -0.5*r*r, -r, -1
	}
	if g != nil {
		g[0], h[0] = gi, hi
	}
	return f
}

type wideHierNb struct{ *wideHier }

func (m wideHierNb) Neighbors(i int) []int {
	switch {
	case i == 0 || i == 1:
		nb := []int{1 - i}
		for k := 0; k < m.n; k++ {
			nb = append(nb, 2+k)
		}
		return nb
	case i == m.n+2:
		return nil
	default:
		return []int{0, 1}
	}
}

// TestCacheTrackingSplit: with sites that read more than trackedReads others, the
// split bookkeeping gives the draws of the model without a Neighborer bit for bit,
// with fewer Score calls (z's cache survives the other sites' changes).
func TestCacheTrackingSplit(t *testing.T) {
	t.Parallel()
	n := trackedReads + 8
	plain, nb := &wideHier{n: n}, wideHierNb{&wideHier{n: n}}
	o := Options{Warmup: NoWarmup, Chains: 1, Draws: 300, Seed: 17}
	a, b := sample(t, plain, &o), sample(t, nb, &o)
	for i := range a.Draws.Chains[0] {
		if math.Float64bits(a.Draws.Chains[0][i]) != math.Float64bits(b.Draws.Chains[0][i]) {
			t.Fatalf("value %d: %v without Neighborer, %v with", i, a.Draws.Chains[0][i], b.Draws.Chains[0][i])
		}
	}
	if !(nb.calls.n < plain.calls.n) {
		t.Errorf("Score calls: %d with Neighborer, %d without; want fewer", nb.calls.n, plain.calls.n)
	}
}

// TestCacheTrackingChanged: a change makes stale every cache that reads the changed
// site, keeps the changed site's own cache, and keeps the flagged caches that do
// not read it; stamped (broad) and flagged sites alike.
func TestCacheTrackingChanged(t *testing.T) {
	t.Parallel()
	n := trackedReads + 8
	m := wideHierNb{&wideHier{n: n}}
	sites := m.Sites()
	c := newTestChain(t, m, nil)
	broad := c.run.broad
	if !broad[0] || !broad[1] || broad[2] || broad[n+2] {
		t.Fatalf("broad %v: want mu and w only", broad)
	}
	reads := func(i, j int) bool { // whether site i's score reads site j
		for _, k := range m.Neighbors(i) {
			if k == j {
				return true
			}
		}
		return false
	}
	for j := range sites {
		for i := range sites {
			c.setValid(i)
		}
		c.changed(j)
		for i := range sites {
			switch {
			case i == j && !c.isValid(i):
				t.Errorf("changed(%d) made its own cache stale", j)
			case i != j && reads(i, j) && c.isValid(i):
				t.Errorf("changed(%d) left the cache of site %d, which reads it, valid", j, i)
			case i != j && !reads(i, j) && !broad[i] && !c.isValid(i):
				t.Errorf("changed(%d) made the flagged cache of site %d, which does not read it, stale", j, i)
			}
		}
		c.invalidate(j)
		if c.isValid(j) {
			t.Errorf("invalidate(%d) left its cache valid", j)
		}
	}
	for i := range sites {
		c.setValid(i)
	}
	c.invalidateAll()
	for i := range sites {
		if c.isValid(i) {
			t.Errorf("invalidateAll left the cache of site %d valid", i)
		}
	}
}

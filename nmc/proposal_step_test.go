package nmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// isoNormalModel is one Real site of k coordinates with the density N(0, sd²I):
// f(x) = −|x|²/(2sd²), ∇f = −x/sd², ∇²f = −I/sd².
type isoNormalModel struct {
	k  int
	sd float64
}

func (m isoNormalModel) Sites() []Site                { return []Site{{Name: "z", Size: m.k, Support: Real}} }
func (m isoNormalModel) NewScorer() Scorer            { return m }
func (m isoNormalModel) LogJoint(x []float64) float64 { return m.Score(x, 0, nil, nil) }
func (isoNormalModel) Init(_ *rand.Rand, x []float64) error {
	for j := range x {
		x[j] = 0.1 * float64(j+1)
	}
	return nil
}
func (m isoNormalModel) Score(x []float64, _ int, grad, hess []float64) float64 {
	f, a := 0.0, 1/(m.sd*m.sd)
	for j, v := range x {
		f -= a * v * v / 2
		if grad != nil {
			grad[j] = -a * v
			for l := range x {
				hess[j*m.k+l] = 0
			}
			hess[j*m.k+j] = -a
		}
	}
	return f
}

// TestProposeStepIllConditioned checks the log ratio of the single-site Newton
// step (proposeStep) against its exact value, at a current point where the
// fitted precision's Cholesky factor is very ill conditioned (ones on its
// diagonal, entries of 1e40 below it, as TestDrawLogqIllConditioned; a Gaussian
// process's latent values fitted at an absurd amplitude) and, as a control,
// where it is not. The target is N(0, sd²I), whose Newton fit at the draw y is
// N(y + γ(−y), s²sd²I), s the step rule's scale at γ; the forward density is
// the current fit's at the |z|² the draw was made of, z replayed from the
// chain's random stream. The ill-conditioned fit's draws lie near 2e119, where
// the target (sd = 1e45) lies 2e148 nats below its value at the current point:
// the step must be rejected. logq's recomputation of the forward density
// through Lᵀ(y − centre) cancels terms of 1e119 and is 1e159 nats too low there
// (6e206 at γ = 0.4), which made the log ratio positive and accepted every such
// move. Both the full Newton step and a Crank–Nicolson step (γ = 0.4) are
// checked, 50 draws each.
func TestProposeStepIllConditioned(t *testing.T) {
	const k = 4
	for _, rule := range []struct {
		name  string
		step  StepRule
		gamma float64
	}{
		{"full step", nil, 1},
		{"Crank-Nicolson", CrankNicolson{Gamma: 0.4}, 0.4},
	} {
		for _, c := range []struct {
			name      string
			diag, sub float64
			sd        float64 // the target's
			ill       bool
		}{
			{"well conditioned", 1.5, 0.5, 1, false},
			{"ill conditioned", 1, 1e40, 1e45, true},
		} {
			name := rule.name + ", " + c.name
			ch := newTestChain(t, isoNormalModel{k, c.sd}, &Options{Seed: 5, Warmup: NoWarmup})
			p := newRealProposer(k, RealProposal{Step: rule.step})
			cur, nxt := &ch.sites[0].slots[0], &ch.sites[0].slots[1]
			x := append([]float64(nil), ch.x...)
			copy(cur.x, x)
			cur.f = ch.sc.sc.Score(ch.x, 0, cur.g, cur.h)
			cur.mode, cur.c = realChol, 0 // the fit: centre x + γd, precision L·Lᵀ
			for i := range k {
				cur.d[i] = -0.05
				cur.l[i*k+i] = c.diag
				for j := range i {
					cur.l[i*k+j] = c.sub * float64(1+(i+2*j)%3) / 3
				}
				cur.c += math.Log(c.diag)
			}
			sc := p.sdScale(rule.gamma)
			for trial := range uint64(50) {
				// The draw's standard normals, as proposeStep will take them.
				replay := rand.New(rand.NewPCG(77, trial))
				zz := 0.0
				for range k {
					v := replay.NormFloat64()
					zz += v * v
				}
				ch.rng = rand.New(rand.NewPCG(77, trial))
				logr, valid, accept := ch.proposeStep(ch.sc.sc, p, 0, cur, nxt, rule.gamma)
				y := nxt.x
				if !valid {
					t.Fatalf("%s: the draw %v was scored invalid", name, y)
				}
				// f(y) − f(x) + log N(x; (1−γ)y, s²sd²I) − (c − k log s − |z|²/2),
				// the terms k log √(2π) of both densities left out.
				a := 1 / (c.sd * c.sd)
				fy, fx, back := 0.0, 0.0, -k*math.Log(sc*c.sd)
				for j := range k {
					fy -= a * y[j] * y[j] / 2
					fx -= a * x[j] * x[j] / 2
					r := (x[j] - (1-rule.gamma)*y[j]) / (sc * c.sd)
					back -= r * r / 2
				}
				want := fy - fx + back - (cur.c - k*math.Log(sc) - zz/2)
				if math.Abs(logr-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Fatalf("%s, trial %d: log ratio %v, exact %v (draw %v)", name, trial, logr, want, y)
				}
				if c.ill && accept {
					t.Fatalf("%s, trial %d: the step to %v was accepted, log ratio %v", name, trial, y, logr)
				}
				if !accept && !equalBits(ch.x, x) {
					t.Fatalf("%s, trial %d: rejected, the state is %v, want %v", name, trial, ch.x, x)
				}
				// The case tested: logq's recomputation of the forward density
				// agrees where the fit is well conditioned, and where it is not it
				// would have made the log ratio positive.
				old := fy - fx + back - k*logSqrt2Pi - p.logq(cur, rule.gamma, y)
				switch {
				case !c.ill && math.Abs(old-want) > 1e-9*math.Max(1, math.Abs(want)):
					t.Fatalf("%s, trial %d: recomputed log ratio %v, exact %v", name, trial, old, want)
				case c.ill && !(want < -1e100 && old > 0):
					t.Fatalf("%s, trial %d: exact log ratio %v, recomputed %v: not the case tested", name, trial, want, old)
				}
				copy(ch.x, x)
			}
		}
	}
}

// equalBits reports whether a and b hold the same bits.
func equalBits(a, b []float64) bool {
	for j, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[j]) {
			return false
		}
	}
	return len(a) == len(b)
}

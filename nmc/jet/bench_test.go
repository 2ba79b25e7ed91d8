package jet

import (
	"testing"
)

// pkRate is the right-hand side of the one-compartment pharmacokinetic ODE
// dC/dt = e^{−k_a t}·D·k_a/V − (V_m/V)·C/(K_m + C), with dkaV = D·k_a/V and
// vmV = V_m/V computed once per solve.
func pkRate(t float64, c, ka, dkaV, vmV, km Number) Number {
	return ka.MulConst(-t).Exp().Mul(dkaV).Sub(vmV.Mul(c).Div(km.Add(c)))
}

// pkSolve integrates the PK ODE from C(0) = 0 by steps RK4 steps of h over the
// four variables (k_a, V, V_m, K_m), releasing each step's temporaries.
func pkSolve(s *Space, theta []float64, dose, h float64, steps int) Number {
	s.Reset()
	ka, v, vm, km := s.Var(0, theta[0]), s.Var(1, theta[1]), s.Var(2, theta[2]), s.Var(3, theta[3])
	dkaV, vmV := ka.MulConst(dose).Div(v), vm.Div(v)
	c := Const(0)
	m := s.Mark()
	for i := 0; i < steps; i++ {
		t := float64(i) * h
		k1 := pkRate(t, c, ka, dkaV, vmV, km)
		k2 := pkRate(t+h/2, c.AddScaled(h/2, k1), ka, dkaV, vmV, km)
		k3 := pkRate(t+h/2, c.AddScaled(h/2, k2), ka, dkaV, vmV, km)
		k4 := pkRate(t+h, c.AddScaled(h, k3), ka, dkaV, vmV, km)
		c = c.AddScaled(h/6, k1.AddScaled(2, k2).AddScaled(2, k3).Add(k4))
		s.Release(m, &c)
	}
	return c
}

var benchSink float64

// BenchmarkRK4StepPK4 measures one RK4 step of the PK ODE over 4 variables (value,
// gradient and 4×4 Hessian of the concentration): ns/op is per step.
func BenchmarkRK4StepPK4(b *testing.B) {
	const steps = 100
	s := NewSpace(4)
	theta := []float64{1.2, 10, 4, 2}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		c := pkSolve(s, theta, 100, 0.1, steps)
		benchSink += c.Deriv2(0, 3)
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*steps), "ns/step")
}

// BenchmarkRK4StepPKValue is BenchmarkRK4StepPK4 on constants: the float64 cost.
func BenchmarkRK4StepPKValue(b *testing.B) {
	const steps = 100
	s := NewSpace(0)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		s.Reset()
		ka, v, vm, km := Const(1.2), Const(10), Const(4), Const(2)
		dkaV, vmV := ka.MulConst(100).Div(v), vm.Div(v)
		c := Const(0)
		h := 0.1
		for i := 0; i < steps; i++ {
			t := float64(i) * h
			k1 := pkRate(t, c, ka, dkaV, vmV, km)
			k2 := pkRate(t+h/2, c.AddScaled(h/2, k1), ka, dkaV, vmV, km)
			k3 := pkRate(t+h/2, c.AddScaled(h/2, k2), ka, dkaV, vmV, km)
			k4 := pkRate(t+h, c.AddScaled(h, k3), ka, dkaV, vmV, km)
			c = c.AddScaled(h/6, k1.AddScaled(2, k2).AddScaled(2, k3).Add(k4))
		}
		benchSink += c.Value()
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*steps), "ns/step")
}

// TestNoAllocation checks that a warm Space computes the PK solve without
// allocating.
func TestNoAllocation(t *testing.T) {
	s := NewSpace(4)
	theta := []float64{1.2, 10, 4, 2}
	pkSolve(s, theta, 100, 0.1, 100)
	if a := testing.AllocsPerRun(20, func() { benchSink += pkSolve(s, theta, 100, 0.1, 100).Value() }); a != 0 {
		t.Errorf("%v allocations per solve once warm, want 0", a)
	}
}

package jet_test

import (
	"fmt"
	"math"

	"github.com/nmc-go/nmc/nmc/jet"
)

// An ODE integrated by a fixed-step fourth-order Runge-Kutta method, written once
// over Numbers: the solution y(T) of dy/dt = −k·y, y(0) = y₀ comes with its
// derivatives in k and y₀, which match the closed form y₀e^{−kT}.
func Example() {
	const steps, T = 100, 2.0
	s := jet.NewSpace(2)
	k, y0 := s.Var(0, 0.8), s.Var(1, 3)
	rate := func(y jet.Number) jet.Number { return k.Mul(y).Neg() }

	h := T / steps
	y := y0
	m := s.Mark()
	for i := 0; i < steps; i++ {
		k1 := rate(y)
		k2 := rate(y.AddScaled(h/2, k1))
		k3 := rate(y.AddScaled(h/2, k2))
		k4 := rate(y.AddScaled(h, k3))
		y = y.AddScaled(h/6, k1.AddScaled(2, k2).AddScaled(2, k3).Add(k4))
		s.Release(m, &y) // keep y, free the step's temporaries
	}
	e := math.Exp(-0.8 * T)
	fmt.Printf("y(T)       %.6f  exact %.6f\n", y.Value(), 3*e)
	fmt.Printf("∂y/∂k      %.6f  exact %.6f\n", y.Deriv(0), -T*3*e)
	fmt.Printf("∂²y/∂k²    %.6f  exact %.6f\n", y.Deriv2(0, 0), T*T*3*e)
	fmt.Printf("∂²y/∂k∂y₀  %.6f  exact %.6f\n", y.Deriv2(0, 1), -T*e)
	fmt.Printf("∂²y/∂y₀²   %.6f  exact %.6f\n", y.Deriv2(1, 1), 0.0)
	// Output:
	// y(T)       0.605690  exact 0.605690
	// ∂y/∂k      -1.211379  exact -1.211379
	// ∂²y/∂k²    2.422758  exact 2.422758
	// ∂²y/∂k∂y₀  -0.403793  exact -0.403793
	// ∂²y/∂y₀²   0.000000  exact 0.000000
}

// Space.Derivs gives the value, gradient and Hessian of a function of a few
// variables as float64s, here the Rosenbrock function at (1.5, 0.5).
func ExampleSpace_Derivs() {
	rosenbrock := func(_ *jet.Space, x []jet.Number) jet.Number {
		a := jet.Const(1).Sub(x[0])
		b := x[1].Sub(x[0].Square())
		return a.Square().Add(b.Square().MulConst(100))
	}
	s := jet.NewSpace(2)
	grad, hess := make([]float64, 2), make([]float64, 4)
	f := s.Derivs(rosenbrock, []float64{1.5, 0.5}, grad, hess)
	fmt.Println("f", f)
	fmt.Println("∇f", grad)
	fmt.Println("∇²f", hess)
	// Output:
	// f 306.5
	// ∇f [1051 -350]
	// ∇²f [2502 -600 -600 200]
}

package ports

import (
	"embed"
	"fmt"
	"math/rand/v2"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc/graph"
)

// programs holds the Stan programs, one file per program.
//
//go:embed stan/*.stan
var programs embed.FS

// StanProgram returns the text of the Stan program called name (without ".stan"):
// arma11, garch11, hmm_poisson, normal_mixture, gp_pois_regr, gp_pois_regr_nc,
// gp_regr, linreg, varying_intercept, one_comp_mm_elim_abs, roaches_negbin,
// ordinal_regr, multi_logit, glmm_poisson or glmm_poisson_nc.
func StanProgram(name string) (string, error) {
	b, err := programs.ReadFile("stan/" + name + ".stan")
	if err != nil {
		return "", fmt.Errorf("ports: no Stan program %q", name)
	}
	return string(b), nil
}

// data is what every model's data type provides to the registry.
type data interface {
	StanVars() []frames.StanVar
	Size() int
	Describe() string
}

// dataset adapts a model's data, its builder and the values it was generated with
// to models.PortData.
type dataset struct {
	name  string
	data  data
	build func() (*graph.Model, error)
	// truthNames and truthValues are the generating values; nil for data read from
	// a file.
	truthNames  []string
	truthValues []float64
}

var _ models.PortData = (*dataset)(nil)

func (d *dataset) Build() (*models.Built, error) {
	m, err := d.build()
	if err != nil {
		return nil, err
	}
	return &models.Built{Name: d.name, Model: m, Graph: m}, nil
}

func (d *dataset) StanVars() []frames.StanVar              { return d.data.StanVars() }
func (d *dataset) Size() int                               { return d.data.Size() }
func (d *dataset) Describe() string                        { return d.data.Describe() }
func (d *dataset) Truth() (names []string, vals []float64) { return d.truthNames, d.truthValues }

// named is a set of parameter values with 0-based names, as the draws name them.
type named interface {
	Named() (names []string, values []float64)
}

// port returns the registry entry of a model: spec, its Stan program (program.stan),
// the help line of its sizes, a generator of data of n rows (k is refused by the
// registry unless spec.DefaultK is set) and a loader.
func port[D data](spec models.Spec, program, sizes string,
	generate func(rng *rand.Rand, n, k int) (D, named, error),
	load func(sd *frames.StanData) (D, error),
	build func(D) (*graph.Model, error)) *models.Port {
	stan, err := StanProgram(program)
	if err != nil {
		panic(err) // the programs are embedded: a missing one is a bug of this package
	}
	return &models.Port{
		Spec: spec, Program: program, Stan: stan, Sizes: sizes,
		Generate: func(rng *rand.Rand, n, k int) (models.PortData, error) {
			d, truth, err := generate(rng, n, k)
			if err != nil {
				return nil, err
			}
			ds := &dataset{name: spec.Name, data: d, build: func() (*graph.Model, error) { return build(d) }}
			ds.truthNames, ds.truthValues = truth.Named()
			return ds, nil
		},
		Load: func(sd *frames.StanData) (models.PortData, error) {
			d, err := load(sd)
			if err != nil {
				return nil, err
			}
			return &dataset{name: spec.Name, data: d, build: func() (*graph.Model, error) { return build(d) }}, nil
		},
	}
}

// built builds b, an error naming the model: what every port's builder returns.
func built(model string, b *graph.Builder) (*graph.Model, error) {
	m, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("ports: %s: %w", model, err)
	}
	return m, nil
}

// sizeErr returns the registry's error for a data size a generator cannot use.
func sizeErr(model, size string, v int, format string, args ...any) error {
	return &models.SizeError{Model: model, Size: size, Value: v, Reason: fmt.Sprintf(format, args...)}
}

// stanErr returns an error naming a variable of a Stan data file.
func stanErr(sd *frames.StanData, name, format string, args ...any) error {
	src := sd.Source
	if src == "" {
		src = "stan json"
	}
	return fmt.Errorf("ports: %s: %q: %s", src, name, fmt.Sprintf(format, args...))
}

// stanInt reads the integer scalar name and checks that it is at least lo.
func stanInt(sd *frames.StanData, name string, lo int) (int, error) {
	v, err := sd.Int(name)
	if err != nil {
		return 0, err
	}
	if v < lo {
		return 0, stanErr(sd, name, "is %d, want at least %d", v, lo)
	}
	return v, nil
}

// stanFloats reads the real array name and checks that it has n values.
func stanFloats(sd *frames.StanData, name string, n int, sizeName string) ([]float64, error) {
	v, err := sd.Floats(name)
	if err != nil {
		return nil, err
	}
	if len(v) != n {
		return nil, stanErr(sd, name, "has %d values, want %s = %d", len(v), sizeName, n)
	}
	return v, nil
}

// stanInts reads the integer array name, checks that it has n values in [lo, hi]
// (hi < lo: no upper bound).
func stanInts(sd *frames.StanData, name string, n int, sizeName string, lo, hi int) ([]int, error) {
	v, err := sd.Ints(name)
	if err != nil {
		return nil, err
	}
	if len(v) != n {
		return nil, stanErr(sd, name, "has %d values, want %s = %d", len(v), sizeName, n)
	}
	for i, x := range v {
		if x < lo || hi >= lo && x > hi {
			bound := fmt.Sprintf("at least %d", lo)
			if hi >= lo {
				bound = fmt.Sprintf("in %d…%d", lo, hi)
			}
			return nil, stanErr(sd, name, "element [%d] is %d, want %s", i, x, bound)
		}
	}
	return v, nil
}

// names returns base[0], …, base[n−1].
func indexed(base string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%s[%d]", base, i)
	}
	return s
}

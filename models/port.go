package models

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/internal/fileio"
)

// Port is a model ported from a Stan program, added to the registry by Register from
// a package of its own (package models/ports registers the reference models users
// port from Stan). Its data are CmdStan JSON data files, the format the Stan program
// reads: Generate draws them, Load reads them, and Dataset.Write writes them with
// the Stan program beside them, so that Stan and nmc can sample the same data.
type Port struct {
	// Spec describes the model. Name must be new to the registry and DefaultN
	// positive (every port has data); SummaryVariables are the Stan program's
	// parameters, the quantities whose ESS and R-hat compare the two (nmc records
	// them under the same names, with 0-based indices).
	Spec Spec
	// Program is the name of the Stan program, without ".stan": several models may
	// share one program when they differ only in how nmc declares the same model
	// (linreg_2scalar and linreg_vector) or in the data generated.
	Program string
	// Stan is the text of the Stan program (the array syntax of Stan 2.21, real
	// y[N], which rstan from Debian compiles).
	Stan string
	// Sizes describes -n (and -k) for the command line's help, e.g.
	// "-n time steps [200]".
	Sizes string
	// Generate draws the model's data with n rows (time steps, observations) and a
	// second size k (Spec.DefaultN and DefaultK substituted for 0) from rng.
	Generate func(rng *rand.Rand, n, k int) (PortData, error)
	// Load takes the model's data from a CmdStan JSON data file, with errors that
	// name the variable.
	Load func(d *frames.StanData) (PortData, error)
}

// PortData is the data of a ported model.
type PortData interface {
	// Build compiles the model on the data.
	Build() (*Built, error)
	// StanVars returns the data as the Stan program's data block declares them,
	// ready for frames.WriteStanJSON.
	StanVars() []frames.StanVar
	// Size returns the number of observations (time steps, rows, points).
	Size() int
	// Describe describes the data in a phrase: "200 time steps".
	Describe() string
	// Truth returns the parameter values the data were generated with (0-based
	// names), or nil for data read from a file.
	Truth() (names []string, values []float64)
}

// ports holds the registered Ports, by name.
var ports = map[string]*Port{}

// Register adds p to the registry: Names lists it after the models already there,
// Lookup describes it, Generate and Load make its data, Dataset.Build builds it and
// Dataset.Write writes its data and Stan program. Packages register their models
// from init functions; Register is not safe for concurrent use. A name already in
// the registry, an empty name or program, a DefaultN below 1, and a missing Stan
// program, Generate or Load are errors.
func Register(p *Port) error {
	switch name := p.Spec.Name; {
	case name == "":
		return errors.New("models: Register: a port without a name")
	case specs[name] != nil:
		return fmt.Errorf("models: Register: model %q is already registered", name)
	case p.Program == "" || p.Stan == "":
		return fmt.Errorf("models: Register: %s: no Stan program", name)
	case p.Spec.DefaultN < 1:
		return fmt.Errorf("models: Register: %s: DefaultN = %d, want a default data size", name, p.Spec.DefaultN)
	case p.Generate == nil || p.Load == nil:
		return fmt.Errorf("models: Register: %s: Generate and Load are required", name)
	}
	c := *p
	c.Spec.SummaryVariables = slices.Clone(p.Spec.SummaryVariables)
	spec := c.Spec
	spec.port = &c
	specs[spec.Name] = &spec
	ports[spec.Name] = &c
	names = append(names, spec.Name)
	return nil
}

// StanProgram returns the name (without ".stan") and the text of the Stan program
// of a ported model, or an error for an unknown model or one that is not a port.
func StanProgram(model string) (name, text string, err error) {
	spec, err := Lookup(model)
	if err != nil {
		return "", "", err
	}
	if spec.port == nil {
		return "", "", fmt.Errorf("models: model %s has no Stan program", model)
	}
	return spec.port.Program, spec.port.Stan, nil
}

// LoadStanJSON reads the data of the ported model called model from a CmdStan JSON
// data file. A model that is not a port is an error, as are the reader's and the
// model's errors, which name the file and the variable.
func LoadStanJSON(model, path string) (*Dataset, error) {
	spec, err := Lookup(model)
	if err != nil {
		return nil, err
	}
	if spec.port == nil {
		return nil, fmt.Errorf("models: model %s does not read CmdStan JSON data", model)
	}
	sd, err := frames.ReadStanJSONFile(path)
	if err != nil {
		return nil, err
	}
	pd, err := spec.port.Load(sd)
	if err != nil {
		return nil, fmt.Errorf("models: %s: %s: %w", model, path, err)
	}
	return &Dataset{Model: model, Port: pd}, nil
}

// generatePort draws the data of a ported model (Generate has checked the sizes
// against the spec and substituted the defaults).
func generatePort(p *Port, rng *rand.Rand, n, k int) (*Dataset, error) {
	pd, err := p.Generate(rng, n, k)
	if err != nil {
		if se := (*SizeError)(nil); errors.As(err, &se) {
			return nil, err
		}
		return nil, fmt.Errorf("models: %s: %w", p.Spec.Name, err)
	}
	d := &Dataset{Model: p.Spec.Name, Port: pd}
	d.TruthNames, d.TruthValues = pd.Truth()
	return d, nil
}

// writePort writes the data of a ported model as DIR/MODEL.json and its Stan program
// as DIR/PROGRAM.stan, and returns the paths.
func (d *Dataset) writePort(p *Port, dir string) ([]string, error) {
	data := filepath.Join(dir, d.Model+".json")
	if err := frames.WriteStanJSONFile(data, d.Port.StanVars()...); err != nil {
		return nil, err
	}
	prog := filepath.Join(dir, p.Program+".stan")
	if err := writeText(prog, p.Stan); err != nil {
		return nil, err
	}
	return []string{data, prog}, nil
}

// writeText writes text to the file at path.
func writeText(path, text string) error {
	return fileio.WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

package ports

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/nmc-go/nmc/models"
)

// portNames lists the models this package registers.
var portNames = []string{"arma11", "garch11", "linreg_2scalar", "linreg_vector", "varying_intercept",
	"normal_mixture", "normal_mixture_overlap", "hmm_poisson", "hmm_poisson_overlap", "gp_pois_regr", "gp_pois_regr_nc",
	"gp_regr", "one_comp_mm_elim_abs", "roaches_negbin", "ordinal_regr", "multi_logit",
	"glmm_poisson", "glmm_poisson_nc"}

// tinySizes are data sizes of the registry's test (default 20 rows, no k).
var tinySizes = map[string][2]int{"varying_intercept": {30, 5}, "glmm_poisson": {20, 4}, "glmm_poisson_nc": {20, 4}}

// TestRegistry: every model is in the registry after the built-in ones; data
// generated through it are written as MODEL.json and PROGRAM.stan (the embedded
// program) and read back to the same Stan variables and the same truth file; both
// build alike.
func TestRegistry(t *testing.T) {
	t.Parallel()
	names := models.Names()
	if got := names[len(names)-len(portNames):]; !slices.Equal(got, portNames) {
		t.Fatalf("the registry ends with %v, want %v", got, portNames)
	}
	for _, name := range portNames {
		t.Run(name, func(t *testing.T) {
			spec, err := models.Lookup(name)
			if err != nil || !spec.StanJSON() || spec.Sizes() == "" || len(spec.SummaryVariables) == 0 {
				t.Fatalf("Lookup: %+v, %v", spec, err)
			}
			n, k := tinySizes[name][0], tinySizes[name][1]
			if n == 0 {
				n = 20
			}
			d, err := models.Generate(name, n, k, 7)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := models.Generate(name, n, k, 7)
			if !reflect.DeepEqual(d.Port.StanVars(), again.Port.StanVars()) {
				t.Error("the same seed gave other data")
			}
			if d.TruthNames == nil || len(d.TruthNames) != len(d.TruthValues) {
				t.Errorf("truth %v %v", d.TruthNames, d.TruthValues)
			}
			dir := t.TempDir()
			files, err := d.Write(dir)
			if err != nil {
				t.Fatal(err)
			}
			prog, text, err := models.StanProgram(name)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{filepath.Join(dir, name+".json"), filepath.Join(dir, prog+".stan"), filepath.Join(dir, name+"_truth.csv")}
			if !slices.Equal(files, want) {
				t.Errorf("wrote %v, want %v", files, want)
			}
			if b, err := os.ReadFile(want[1]); err != nil || string(b) != text {
				t.Errorf("%s differs from the embedded program: %v", want[1], err)
			}
			back, err := models.LoadStanJSON(name, want[0])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.Port.StanVars(), d.Port.StanVars()) || back.Size() != d.Size() {
				t.Errorf("read back other data")
			}
			if back.TruthNames != nil {
				t.Errorf("data read from a file have a truth: %v", back.TruthNames)
			}
			_, _, err1 := d.Build()
			_, _, err2 := back.Build()
			if err1 != nil || err2 != nil {
				t.Errorf("Build: %v, %v", err1, err2)
			}
		})
	}
}

// TestRegistryErrors: sizes a model cannot use and files of another model are
// refused with errors that name them.
func TestRegistryErrors(t *testing.T) {
	t.Parallel()
	var se *models.SizeError
	if _, err := models.Generate("garch11", 1, 0, 1); !errors.As(err, &se) || se.Size != "n" {
		t.Errorf("garch11 with one step: %v", err)
	}
	if _, err := models.Generate("arma11", 10, 3, 1); !errors.As(err, &se) || se.Size != "k" {
		t.Errorf("arma11 with -k: %v", err)
	}
	if _, err := models.Generate("varying_intercept", 5, 10, 1); !errors.As(err, &se) {
		t.Errorf("varying_intercept with fewer rows than groups: %v", err)
	}
	dir := t.TempDir()
	d, _ := models.Generate("arma11", 10, 0, 1)
	files, err := d.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.LoadStanJSON("garch11", files[0]); err == nil {
		t.Error("garch11 read arma11's data")
	}
	if _, err := models.LoadStanJSON("blr", files[0]); err == nil {
		t.Error("blr read CmdStan JSON data")
	}
	if _, _, err := models.StanProgram("blr"); err == nil {
		t.Error("blr has a Stan program")
	}
}

package models

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/nmc"
)

func TestRegistryLookup(t *testing.T) {
	names := Names()
	if len(names) != 9 || names[0] != "funnel" || names[8] != "dirichlet_categorical" {
		t.Errorf("Names() = %v", names)
	}
	names[0] = "changed"
	if Names()[0] != "funnel" {
		t.Error("Names returns the registry's own slice")
	}
	conjugate := 0
	for _, name := range Names() {
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != name {
			t.Errorf("Lookup(%q).Name = %q", name, s.Name)
		}
		if s.Conjugate {
			conjugate++
			if _, ok := ConjugateHyperparameters()[name]; !ok {
				t.Errorf("%s: no hyperparameters", name)
			}
		}
		if s.HeldOut && !s.HasData() {
			t.Errorf("%s: held-out data but no data", name)
		}
	}
	if conjugate != 4 {
		t.Errorf("%d conjugate models, want 4", conjugate)
	}
	_, err := Lookup("bogus")
	if err == nil || !strings.Contains(err.Error(), `unknown model "bogus"`) || !strings.Contains(err.Error(), "eight_schools") {
		t.Errorf("Lookup(bogus): error %v, want one listing the models", err)
	}
	a, _ := Lookup("annotation")
	a.SummaryVariables[0] = "changed"
	if b, _ := Lookup("annotation"); b.SummaryVariables[0] != "pi" {
		t.Error("Lookup returns the registry's own Spec")
	}
}

// TestGenerateSameAsGenerators: Generate's data are those of the generator with the
// registry's hyperparameters on the data stream of the seed, and the same seed gives
// the same data.
func TestGenerateSameAsGenerators(t *testing.T) {
	d, err := Generate("gamma_poisson", 0, 0, 9)
	if err != nil {
		t.Fatal(err)
	}
	want, lambda, err := GenerateGammaPoisson(rand.New(rand.NewPCG(9, 0x64617461)), 40, GammaPoissonA, GammaPoissonB)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Counts, want) || d.TruthValues[0] != lambda || d.Size() != 40 {
		t.Errorf("gamma_poisson data %v (λ %v), want %v (λ %v)", d.Counts, d.TruthValues, want, lambda)
	}
	for _, name := range Names() {
		a, err := Generate(name, 0, 0, 4)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate(name, 0, 0, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.TruthValues, b.TruthValues) || a.Size() != b.Size() {
			t.Errorf("%s: two runs with seed 4 differ", name)
		}
		spec, _ := Lookup(name)
		if got := a.Size(); (got > 0) != spec.HasData() {
			t.Errorf("%s: size %d, has data %v", name, got, spec.HasData())
		}
		built, post, err := a.Build()
		if err != nil {
			t.Fatal(err)
		}
		if built.Model == nil || (post != nil) != spec.Conjugate || (built.HeldOut != nil) != spec.HeldOut {
			t.Errorf("%s: model %v, posterior %v, held-out %v", name, built.Model, post, built.HeldOut)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, c := range []struct {
		model      string
		n, k       int
		size, want string
	}{
		{"blr", -3, 0, "n", "positive"},
		{"blr", 10, -1, "k", "positive"},
		{"blr", 1, 0, "n", "at least 2 rows"},
		{"annotation", 1, 0, "n", "at least 2 items"},
		{"funnel", 10, 0, "n", "funnel has no data"},
		{"eight_schools", 0, 3, "k", "has no data"},
		{"gamma_poisson", 10, 3, "k", "no second size"},
		{"dirichlet_categorical", 10, 3, "k", "4 categories"},
	} {
		_, err := Generate(c.model, c.n, c.k, 1)
		var se *SizeError
		if !errors.As(err, &se) || se.Size != c.size || se.Model != c.model || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Generate(%s, %d, %d): error %v, want a SizeError of %s containing %q", c.model, c.n, c.k, err, c.size, c.want)
		}
	}
	if _, err := Generate("bogus", 0, 0, 1); err == nil || !strings.Contains(err.Error(), "unknown model") {
		t.Errorf("unknown model: error %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		model, train, test, want string
	}{
		{"funnel", "x.csv", "", "funnel has no data"},
		{"blr", "", "", "no training data"},
		{"gamma_poisson", "x.csv", "y.csv", "no held-out data"},
		{"blr", filepath.Join(dir, "none.csv"), "", "none.csv"},
		{"annotation", filepath.Join(dir, "annotation_train.csv"), "", AnnotationMetaFile},
		{"bogus", "x.csv", "", "unknown model"},
	} {
		if _, err := Load(c.model, c.train, c.test, ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s, %q, %q): error %v, want it to contain %q", c.model, c.train, c.test, err, c.want)
		}
	}
}

func TestWriteLoadRoundTrip(t *testing.T) {
	for _, name := range []string{"normal_known_sigma", "beta_binomial", "dirichlet_categorical", "robust"} {
		dir := t.TempDir()
		d, err := Generate(name, 0, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		files, err := d.Write(dir)
		if err != nil {
			t.Fatal(err)
		}
		test := ""
		if d.RegressionTest != nil {
			test = files[1]
		}
		got, err := Load(name, files[0], test, "")
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := d.Build()
		_, post, err := got.Build()
		if err != nil {
			t.Fatal(err)
		}
		if want != nil && !slices.Equal(post.Params, want.Params) {
			t.Errorf("%s: posterior of the files %v, of the data %v", name, post.Params, want.Params)
		}
		if got.Size() != d.Size() || !strings.HasSuffix(files[len(files)-1], name+"_truth.csv") {
			t.Errorf("%s: size %d read back, %d written; files %v", name, got.Size(), d.Size(), files)
		}
	}
	if _, err := (&Dataset{Model: "funnel"}).Write(t.TempDir()); err == nil {
		t.Error("writing funnel's data: no error")
	}
	if _, _, err := (&Dataset{Model: "blr"}).Build(); err == nil || !strings.Contains(err.Error(), "no regression training data") {
		t.Errorf("building blr without data: error %v", err)
	}
}

// TestCompareSampledConjugate samples normal_known_sigma of the registry by NMC
// and checks that diagnostics.CompareExact with the closed form's references finds
// the exact posterior mean within 4 MCSEs.
func TestCompareSampledConjugate(t *testing.T) {
	t.Parallel()
	d, err := Generate("normal_known_sigma", 0, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	b, post, err := d.Build()
	if err != nil {
		t.Fatal(err)
	}
	res, err := nmc.Sample(context.Background(), b.Model, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 4, Draws: 500, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := diagnostics.Summarize(res.Draws, nil)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := post.References()
	if err != nil {
		t.Fatal(err)
	}
	mean, _ := post.Mean("mu")
	sd, _ := post.SD("mu")
	if len(refs) != 1 || refs[0] != (diagnostics.Reference{Variable: "mu", Mean: mean, SD: sd}) {
		t.Fatalf("references %+v, want mu with mean %v and sd %v", refs, mean, sd)
	}
	cs, err := diagnostics.CompareExact(rows, refs)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cs[0].Z) > 4 {
		t.Errorf("mu: sampled mean %v, exact %v, z = %.2f", cs[0].Mean, mean, cs[0].Z)
	}
}

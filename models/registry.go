package models

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// names lists the models of the registry, in the order Names returns them.
var names = []string{
	"funnel", "blr", "robust", "annotation", "eight_schools",
	"normal_known_sigma", "gamma_poisson", "beta_binomial", "dirichlet_categorical",
}

// The hyperparameters of the conjugate models of the registry, as in the shared data
// set's conjugate/hyperparameters.csv (a test checks them against that file).
const (
	// NormalKnownSigmaMu0 and NormalKnownSigmaTau0 are the prior mean and standard
	// deviation of mu in normal_known_sigma; NormalKnownSigmaSigma is the known
	// standard deviation of y.
	NormalKnownSigmaMu0, NormalKnownSigmaTau0, NormalKnownSigmaSigma = 0.0, 10.0, 2.0
	// GammaPoissonA and GammaPoissonB are the shape and rate of lambda's prior in
	// gamma_poisson.
	GammaPoissonA, GammaPoissonB = 2.0, 0.5
	// BetaBinomialA and BetaBinomialB are the parameters of p's Beta prior in
	// beta_binomial.
	BetaBinomialA, BetaBinomialB = 2.0, 3.0
)

// DirichletCategoricalAlpha returns the concentrations of p's Dirichlet prior in
// dirichlet_categorical, (1, 2, 3, 4): four categories. The slice is a new copy.
func DirichletCategoricalAlpha() []float64 { return []float64{1, 2, 3, 4} }

// ConjugateHyperparameters returns the hyperparameters of the registry's conjugate
// models in the layout of hyperparameters.csv as ReadHyperparameters returns it:
// model → 0-based name ("mu0", "alpha[2]") → value.
func ConjugateHyperparameters() map[string]map[string]float64 {
	h := map[string]map[string]float64{
		"normal_known_sigma":    {"mu0": NormalKnownSigmaMu0, "tau0": NormalKnownSigmaTau0, "sigma": NormalKnownSigmaSigma},
		"gamma_poisson":         {"a": GammaPoissonA, "b": GammaPoissonB},
		"beta_binomial":         {"a": BetaBinomialA, "b": BetaBinomialB},
		"dirichlet_categorical": {},
	}
	for i, a := range DirichletCategoricalAlpha() {
		h["dirichlet_categorical"]["alpha["+strconv.Itoa(i)+"]"] = a
	}
	return h
}

// Spec describes one model of the registry: what data it has and what its run
// reports.
type Spec struct {
	// Name is the model's name ("blr").
	Name string
	// Conjugate reports whether the model has a closed-form posterior, which
	// Dataset.Build returns.
	Conjugate bool
	// HeldOut reports whether the model's data has a held-out half (the test set of
	// the predictive log-likelihood): blr, robust and annotation.
	HeldOut bool
	// DefaultN and DefaultK are the sizes Generate uses for n and k = 0: rows,
	// items, observations or groups; predictors, labelers, categories or trials.
	// DefaultK is 0 for a model with one size; both are 0 for a model without data
	// (funnel, eight_schools).
	DefaultN, DefaultK int
	// SummaryVariables are the quantities a run summarises and judges convergence
	// by (a family name selects all its elements): for annotation the continuous
	// parameters pi and theta (the classes z are discrete and many); nil, meaning
	// every quantity, for the other models.
	SummaryVariables []string

	// port is the model's Port when another package registered it (Register).
	port *Port
}

// HasData reports whether the model conditions on data (generated or read from
// files).
func (s *Spec) HasData() bool { return s.DefaultN > 0 }

// StanJSON reports whether the model reads its data from CmdStan JSON files: a
// model ported from a Stan program (Register). The others read CSV files in the
// shared schemas.
func (s *Spec) StanJSON() bool { return s.port != nil }

// Sizes describes the data sizes of a ported model for the command line's help
// (Port.Sizes); "" for the other models.
func (s *Spec) Sizes() string {
	if s.port == nil {
		return ""
	}
	return s.port.Sizes
}

// specs holds the registry, by name.
var specs = map[string]*Spec{
	"funnel":                {Name: "funnel"},
	"eight_schools":         {Name: "eight_schools"},
	"blr":                   {Name: "blr", HeldOut: true, DefaultN: 1000, DefaultK: 10},
	"robust":                {Name: "robust", HeldOut: true, DefaultN: 1000, DefaultK: 10},
	"annotation":            {Name: "annotation", HeldOut: true, DefaultN: 1000, DefaultK: 100, SummaryVariables: []string{"pi", "theta"}},
	"normal_known_sigma":    {Name: "normal_known_sigma", Conjugate: true, DefaultN: 50},
	"gamma_poisson":         {Name: "gamma_poisson", Conjugate: true, DefaultN: 40},
	"dirichlet_categorical": {Name: "dirichlet_categorical", Conjugate: true, DefaultN: 100, DefaultK: 4},
	"beta_binomial":         {Name: "beta_binomial", Conjugate: true, DefaultN: 10, DefaultK: 20},
}

// Names returns the names of the registry's models: funnel, blr, robust,
// annotation, eight_schools and the conjugate models normal_known_sigma,
// gamma_poisson, beta_binomial, dirichlet_categorical. The slice is a new copy.
func Names() []string { return slices.Clone(names) }

// Lookup returns the description of the model called name, or an error listing the
// known names.
func Lookup(name string) (*Spec, error) {
	s, ok := specs[name]
	if !ok {
		return nil, fmt.Errorf("models: unknown model %q (want one of %s)", name, strings.Join(names, ", "))
	}
	c := *s
	c.SummaryVariables = slices.Clone(s.SummaryVariables)
	return &c, nil
}

// Dataset holds the data of one registry model, generated (Generate) or read from
// files (Load). Only the fields of its model are set.
type Dataset struct {
	// Model is the registry name of the model.
	Model string

	// RegressionTrain and RegressionTest are the data of blr and robust;
	// RegressionTest is nil without held-out data.
	RegressionTrain, RegressionTest *RegressionData

	// AnnotationTrain, AnnotationTest and AnnotationConfig are the data of
	// annotation and the sizes and prior it was generated with (or read from the
	// metadata file); AnnotationTest is nil without held-out data.
	AnnotationTrain, AnnotationTest *AnnotationData
	AnnotationConfig                AnnotationConfig
	// ExplicitClasses makes Build keep the annotation model's classes in the sweep,
	// as the paper has them (AnnotationPrior.ExplicitClasses; by default they are
	// summed out); the other models ignore it.
	ExplicitClasses bool

	Y          []float64 // normal_known_sigma: the observations
	Counts     []int     // gamma_poisson: the counts
	Categories []int     // dirichlet_categorical: the categories, 0-based
	Trials     []int     // beta_binomial: the trials of each group
	Successes  []int     // beta_binomial: the successes of each group

	// Port holds the data of a model registered by another package (Register): a
	// model ported from a Stan program.
	Port PortData

	// TruthNames and TruthValues are the generating values (0-based names) of
	// generated data; nil for data read from files.
	TruthNames  []string
	TruthValues []float64
}

// Size returns the number of observations the model conditions on plus the held-out
// ones, the N of the paper's table: rows for regression, items for annotation,
// observations (groups for beta_binomial) for conjugate models, 0 without data.
func (d *Dataset) Size() int {
	switch {
	case d.Port != nil:
		return d.Port.Size()
	case d.RegressionTrain != nil:
		n, _ := d.RegressionTrain.Dims()
		if d.RegressionTest != nil {
			m, _ := d.RegressionTest.Dims()
			n += m
		}
		return n
	case d.AnnotationTrain != nil:
		n := d.AnnotationTrain.NumItems
		if d.AnnotationTest != nil {
			n += d.AnnotationTest.NumItems
		}
		return n
	case d.Y != nil:
		return len(d.Y)
	case d.Counts != nil:
		return len(d.Counts)
	case d.Categories != nil:
		return len(d.Categories)
	case d.Trials != nil:
		return len(d.Trials)
	}
	return 0
}

// dataRNG returns the random generator of the data generated with seed: a PCG
// stream apart from the sampler's chains, which use streams 0, 1, ….
func dataRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x64617461)) // "data"
}

// SizeError is the error of Generate for a data size it cannot use.
type SizeError struct {
	// Model is the registry model; Size is "n" or "k" and Value the size given.
	Model, Size string
	Value       int
	// Reason says what is wrong, e.g. "want 0 (the default) or more".
	Reason string
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("models: %s data: %s = %d: %s", e.Model, e.Size, e.Value, e.Reason)
}

// Generate draws the data of the registry model called model from its generative
// process, with n rows (items, observations, groups) and k predictors (labelers,
// categories, trials); 0 means the model's default (Spec.DefaultN, DefaultK). blr,
// robust and annotation put half of the rows (items) in the training set and half
// in the held-out set. The same seed gives the same data: the generator is PCG
// seeded with seed on a stream of its own, apart from the sampler's chains.
//
// A model without data (funnel, eight_schools) gets an empty Dataset when n and k
// are 0. A size out of range is a *SizeError; an unknown model an error listing
// the known ones.
func Generate(model string, n, k int, seed uint64) (*Dataset, error) {
	spec, err := Lookup(model)
	if err != nil {
		return nil, err
	}
	sizeErr := func(size string, v int, format string, args ...any) error {
		return &SizeError{Model: model, Size: size, Value: v, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case n < 0:
		return nil, sizeErr("n", n, "want a positive size")
	case k < 0:
		return nil, sizeErr("k", k, "want a positive size")
	case !spec.HasData() && n != 0:
		return nil, sizeErr("n", n, "model %s has no data", model)
	case !spec.HasData() && k != 0:
		return nil, sizeErr("k", k, "model %s has no data", model)
	case !spec.HasData():
		return &Dataset{Model: model}, nil
	case spec.DefaultK == 0 && k != 0:
		return nil, sizeErr("k", k, "model %s has no second size", model)
	}
	if n == 0 {
		n = spec.DefaultN
	}
	if k == 0 {
		k = spec.DefaultK
	}
	rng := dataRNG(seed)
	if spec.port != nil {
		return generatePort(spec.port, rng, n, k)
	}
	d := &Dataset{Model: model}
	switch model {
	case "blr", "robust":
		if n < 2 {
			return nil, sizeErr("n", n, "%s needs at least 2 rows (half train, half test)", model)
		}
		gen := GenerateLogistic
		if model == "robust" {
			gen = GenerateRobust
		}
		train, test, truth, err := gen(rng, n, k)
		if err != nil {
			return nil, err
		}
		d.RegressionTrain, d.RegressionTest = &train, &test
		d.TruthNames, d.TruthValues = truth.Named()
	case "annotation":
		if n < 2 {
			return nil, sizeErr("n", n, "annotation needs at least 2 items (half train, half test)")
		}
		cfg := DefaultAnnotationConfig(n)
		cfg.Labelers = k
		train, test, truth, err := GenerateAnnotation(rng, cfg)
		if err != nil {
			return nil, err
		}
		d.AnnotationTrain, d.AnnotationTest, d.AnnotationConfig = &train, &test, cfg
		d.TruthNames, d.TruthValues = truth.Named()
	case "normal_known_sigma":
		var mu float64
		d.Y, mu, err = GenerateNormalKnownSigma(rng, n, NormalKnownSigmaMu0, NormalKnownSigmaTau0, NormalKnownSigmaSigma)
		d.TruthNames, d.TruthValues = []string{"mu"}, []float64{mu}
	case "gamma_poisson":
		var lambda float64
		d.Counts, lambda, err = GenerateGammaPoisson(rng, n, GammaPoissonA, GammaPoissonB)
		d.TruthNames, d.TruthValues = []string{"lambda"}, []float64{lambda}
	case "dirichlet_categorical":
		if k != 4 {
			return nil, sizeErr("k", k, "dirichlet_categorical has 4 categories (prior Dirichlet(1, 2, 3, 4))")
		}
		var p []float64
		d.Categories, p, err = GenerateDirichletCategorical(rng, n, DirichletCategoricalAlpha())
		for i, v := range p {
			d.TruthNames = append(d.TruthNames, "p["+strconv.Itoa(i)+"]")
			d.TruthValues = append(d.TruthValues, v)
		}
	case "beta_binomial":
		d.Trials = make([]int, n)
		for i := range d.Trials {
			d.Trials[i] = k
		}
		var p float64
		d.Successes, p, err = GenerateBetaBinomial(rng, d.Trials, BetaBinomialA, BetaBinomialB)
		d.TruthNames, d.TruthValues = []string{"p"}, []float64{p}
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Load reads the data of the registry model called model from files in the shared
// schemas: train is required; test, the held-out data, is optional and only for
// models with held-out data (blr, robust, annotation); meta is annotation's
// metadata file ("" means annotation_meta.csv beside train) and ignored for the
// other models. A ported model (Register) reads train as a CmdStan JSON data file
// (LoadStanJSON). It returns an error for an unknown model, a model without data or
// held-out data given to one that has none, and the readers' errors, which name
// the file, line and column.
func Load(model, train, test, meta string) (*Dataset, error) {
	spec, err := Lookup(model)
	if err != nil {
		return nil, err
	}
	switch {
	case !spec.HasData():
		return nil, fmt.Errorf("models: model %s has no data", model)
	case train == "":
		return nil, fmt.Errorf("models: %s: no training data file", model)
	case test != "" && !spec.HeldOut:
		return nil, fmt.Errorf("models: model %s has no held-out data (%s)", model, test)
	}
	if spec.port != nil {
		return LoadStanJSON(model, train)
	}
	d := &Dataset{Model: model}
	switch model {
	case "blr", "robust":
		tr, err := ReadRegressionCSV(train)
		if err != nil {
			return nil, err
		}
		d.RegressionTrain = &tr
		if test != "" {
			te, err := ReadRegressionCSV(test)
			if err != nil {
				return nil, err
			}
			d.RegressionTest = &te
		}
	case "annotation":
		if meta == "" {
			meta = filepath.Join(filepath.Dir(train), AnnotationMetaFile)
		}
		m, err := ReadAnnotationMeta(meta)
		if err != nil {
			return nil, err
		}
		tr, err := ReadAnnotationCSV(train, m.NTrain, m.K, m.C)
		if err != nil {
			return nil, err
		}
		d.AnnotationTrain, d.AnnotationConfig = &tr, m.Config()
		if test != "" {
			te, err := ReadAnnotationCSV(test, m.NTest, m.K, m.C)
			if err != nil {
				return nil, err
			}
			d.AnnotationTest = &te
		}
	case "normal_known_sigma":
		d.Y, err = ReadNormalData(train)
	case "gamma_poisson":
		d.Counts, err = ReadCountData(train)
	case "dirichlet_categorical":
		d.Categories, err = ReadCategoricalData(train, len(DirichletCategoricalAlpha()))
	case "beta_binomial":
		d.Trials, d.Successes, err = ReadBinomialData(train)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Build compiles the model of d with the registry's priors (the paper's for blr,
// robust and annotation, the conjugate hyperparameters above for the conjugate
// models). For conjugate models it also returns the exact posterior of the data;
// otherwise that is nil.
func (d *Dataset) Build() (*Built, *Posterior, error) {
	var (
		b    *Built
		post *Posterior
		err  error
	)
	missing := func(what string, ok bool) {
		if !ok && err == nil {
			err = fmt.Errorf("models: %s: the dataset has no %s", d.Model, what)
		}
	}
	switch d.Model {
	case "blr", "robust":
		missing("regression training data", d.RegressionTrain != nil)
	case "annotation":
		missing("annotation training data", d.AnnotationTrain != nil)
	}
	if err != nil {
		return nil, nil, err
	}
	if d.Port != nil {
		b, err := d.Port.Build()
		if err != nil {
			return nil, nil, err
		}
		return b, nil, nil
	}
	if p := ports[d.Model]; p != nil {
		return nil, nil, fmt.Errorf("models: %s: the dataset has no data", d.Model)
	}
	switch d.Model {
	case "funnel":
		b, err = Funnel()
	case "eight_schools":
		b, err = EightSchools(EightSchoolsData.Y, EightSchoolsData.Sigma, false)
	case "blr":
		b, err = Logistic(*d.RegressionTrain, d.RegressionTest, nil)
	case "robust":
		b, err = Robust(*d.RegressionTrain, d.RegressionTest, nil)
	case "annotation":
		prior := &AnnotationPrior{Gamma: d.AnnotationConfig.Gamma, Rho: d.AnnotationConfig.Rho, ExplicitClasses: d.ExplicitClasses}
		b, err = Annotation(*d.AnnotationTrain, d.AnnotationTest, prior)
	case "normal_known_sigma":
		mu0, tau0, sigma := NormalKnownSigmaMu0, NormalKnownSigmaTau0, NormalKnownSigmaSigma
		if b, err = NormalKnownSigma(d.Y, mu0, tau0, sigma); err == nil {
			post, err = NormalKnownSigmaPosterior(d.Y, mu0, tau0, sigma)
		}
	case "gamma_poisson":
		if b, err = GammaPoisson(d.Counts, GammaPoissonA, GammaPoissonB); err == nil {
			post, err = GammaPoissonPosterior(d.Counts, GammaPoissonA, GammaPoissonB)
		}
	case "dirichlet_categorical":
		if b, err = DirichletCategorical(d.Categories, DirichletCategoricalAlpha()); err == nil {
			post, err = DirichletCategoricalPosterior(d.Categories, DirichletCategoricalAlpha())
		}
	case "beta_binomial":
		if b, err = BetaBinomial(d.Trials, d.Successes, BetaBinomialA, BetaBinomialB); err == nil {
			post, err = BetaBinomialPosterior(d.Trials, d.Successes, BetaBinomialA, BetaBinomialB)
		}
	default:
		_, err = Lookup(d.Model)
	}
	if err != nil {
		return nil, nil, err
	}
	return b, post, nil
}

// Write writes d into dir, which must exist, in the shared data schemas and
// returns the paths written: blr and robust: MODEL_train.csv, MODEL_test.csv;
// annotation: the five annotation files; conjugate models: MODEL.csv (the data
// file); ported models: MODEL.json (CmdStan JSON data) and PROGRAM.stan (the Stan
// program, see Port); then MODEL_truth.csv for generated data. It returns an error
// for a model without data.
func (d *Dataset) Write(dir string) ([]string, error) {
	p := func(name string) string { return filepath.Join(dir, name) }
	var files []string
	switch port := ports[d.Model]; {
	case port != nil:
		if d.Port == nil {
			return nil, fmt.Errorf("models: %s: the dataset has no data to write", d.Model)
		}
		var err error
		if files, err = d.writePort(port, dir); err != nil {
			return nil, err
		}
	case d.Model == "blr" || d.Model == "robust":
		if d.RegressionTrain == nil || d.RegressionTest == nil {
			return nil, fmt.Errorf("models: %s: the dataset has no training and held-out data to write", d.Model)
		}
		files = []string{p(d.Model + "_train.csv"), p(d.Model + "_test.csv")}
		if err := WriteRegressionCSV(files[0], *d.RegressionTrain); err != nil {
			return nil, err
		}
		if err := WriteRegressionCSV(files[1], *d.RegressionTest); err != nil {
			return nil, err
		}
	case d.Model == "annotation":
		if d.AnnotationTrain == nil || d.AnnotationTest == nil {
			return nil, errors.New("models: annotation: the dataset has no training and held-out data to write")
		}
		if err := WriteAnnotationDir(dir, d.AnnotationConfig, *d.AnnotationTrain, *d.AnnotationTest); err != nil {
			return nil, err
		}
		files = []string{p(AnnotationTrainFile), p(AnnotationTestFile),
			p(AnnotationTrainZFile), p(AnnotationTestZFile), p(AnnotationMetaFile)}
	default:
		path := p(d.Model + ".csv")
		if err := d.writeConjugate(path); err != nil {
			return nil, err
		}
		files = []string{path}
	}
	if d.TruthNames != nil {
		path := p(d.Model + "_truth.csv")
		names := d.TruthNames
		if d.Model == "annotation" {
			// The shared files call the prevalences prev[m] (Stan's name for pi).
			names = slices.Clone(names)
			for i, n := range names {
				if strings.HasPrefix(n, "pi[") {
					names[i] = "prev" + n[len("pi"):]
				}
			}
		}
		if err := WriteTruthCSV(path, names, d.TruthValues); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// writeConjugate writes the data file of a conjugate model in the shared schema:
// a y column (1-based categories for dirichlet_categorical) or trials,successes.
func (d *Dataset) writeConjugate(path string) error {
	var fill func(w *bufio.Writer)
	switch d.Model {
	case "normal_known_sigma":
		fill = func(w *bufio.Writer) {
			w.WriteString("y\n")
			for _, v := range d.Y {
				w.WriteString(strconv.FormatFloat(v, 'g', 17, 64) + "\n")
			}
		}
	case "gamma_poisson":
		fill = func(w *bufio.Writer) {
			w.WriteString("y\n")
			for _, v := range d.Counts {
				w.WriteString(strconv.Itoa(v) + "\n")
			}
		}
	case "dirichlet_categorical":
		fill = func(w *bufio.Writer) {
			w.WriteString("y\n")
			for _, v := range d.Categories {
				w.WriteString(strconv.Itoa(v+1) + "\n")
			}
		}
	case "beta_binomial":
		if len(d.Successes) != len(d.Trials) {
			return fmt.Errorf("models: beta_binomial: %d groups of trials but %d of successes", len(d.Trials), len(d.Successes))
		}
		fill = func(w *bufio.Writer) {
			w.WriteString("trials,successes\n")
			for i, t := range d.Trials {
				w.WriteString(strconv.Itoa(t) + "," + strconv.Itoa(d.Successes[i]) + "\n")
			}
		}
	default:
		return fmt.Errorf("models: model %s has no data file", d.Model)
	}
	return writeCSV(path, fill)
}

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nmc-go/nmc/models"
)

// modelNames lists the names -model accepts, in the order the help shows them.
var modelNames = []string{
	"funnel", "blr", "robust", "annotation", "eight_schools",
	"normal_known_sigma", "gamma_poisson", "beta_binomial", "dirichlet_categorical",
}

// The hyperparameters of the conjugate models, as in the shared data set's
// conjugate/hyperparameters.csv (TestHyperparametersMatchFile checks them against
// that file when it is present).
const (
	// normalMu0 and normalTau0 are the prior mean and standard deviation of mu in
	// normal_known_sigma; normalSigma is the known standard deviation of y.
	normalMu0, normalTau0, normalSigma = 0.0, 10.0, 2.0
	// gammaPoissonA and gammaPoissonB are the shape and rate of lambda's prior.
	gammaPoissonA, gammaPoissonB = 2.0, 0.5
	// betaBinomialA and betaBinomialB are the parameters of p's Beta prior.
	betaBinomialA, betaBinomialB = 2.0, 3.0
	// dirichletAlpha1 … dirichletAlpha4 are the concentrations of p's Dirichlet prior.
	dirichletAlpha1, dirichletAlpha2, dirichletAlpha3, dirichletAlpha4 = 1.0, 2.0, 3.0, 4.0
)

// dirichletAlpha returns the Dirichlet concentrations of dirichlet_categorical.
func dirichletAlpha() []float64 {
	return []float64{dirichletAlpha1, dirichletAlpha2, dirichletAlpha3, dirichletAlpha4}
}

// hyperparameters returns the conjugate hyperparameters in the layout of
// hyperparameters.csv as models.ReadHyperparameters returns it: model → 0-based
// name → value.
func hyperparameters() map[string]map[string]float64 {
	h := map[string]map[string]float64{
		"normal_known_sigma":    {"mu0": normalMu0, "tau0": normalTau0, "sigma": normalSigma},
		"gamma_poisson":         {"a": gammaPoissonA, "b": gammaPoissonB},
		"beta_binomial":         {"a": betaBinomialA, "b": betaBinomialB},
		"dirichlet_categorical": {},
	}
	for i, a := range dirichletAlpha() {
		h["dirichlet_categorical"]["alpha["+strconv.Itoa(i)+"]"] = a
	}
	return h
}

// isConjugate reports whether model has a closed-form posterior.
func isConjugate(model string) bool {
	switch model {
	case "normal_known_sigma", "gamma_poisson", "beta_binomial", "dirichlet_categorical":
		return true
	}
	return false
}

// checkModel returns an error unless name is a known model.
func checkModel(name string) error {
	if name == "" {
		return fmt.Errorf("-model is required (one of %s)", strings.Join(modelNames, ", "))
	}
	if !slices.Contains(modelNames, name) {
		return fmt.Errorf("-model: unknown model %q (want one of %s)", name, strings.Join(modelNames, ", "))
	}
	return nil
}

// dataset holds the data of one model: generated or read from files. Only the
// fields of its model are set.
type dataset struct {
	model string

	regTrain, regTest *models.RegressionData // blr, robust

	annTrain, annTest *models.AnnotationData // annotation
	annCfg            models.AnnotationConfig

	normalY           []float64 // normal_known_sigma
	counts            []int     // gamma_poisson
	cats              []int     // dirichlet_categorical, 0-based
	trials, successes []int     // beta_binomial

	// truthNames and truthValues are the generating values (0-based names) of
	// generated data; nil for data read from files.
	truthNames  []string
	truthValues []float64
}

// size returns the number of observations the model conditions on plus the held-out
// ones, the N of the paper's table: rows for regression, items for annotation,
// observations (groups for beta_binomial) for conjugate models, 0 without data.
func (d *dataset) size() int {
	switch {
	case d.regTrain != nil:
		n, _ := d.regTrain.Dims()
		if d.regTest != nil {
			m, _ := d.regTest.Dims()
			n += m
		}
		return n
	case d.annTrain != nil:
		n := d.annTrain.NumItems
		if d.annTest != nil {
			n += d.annTest.NumItems
		}
		return n
	case d.normalY != nil:
		return len(d.normalY)
	case d.counts != nil:
		return len(d.counts)
	case d.cats != nil:
		return len(d.cats)
	case d.trials != nil:
		return len(d.trials)
	}
	return 0
}

// dataRNG returns the random generator of the data generated with seed: a PCG
// stream apart from the sampler's chains, which use streams 0, 1, ….
func dataRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x64617461)) // "data"
}

// genSizes are the default sizes of generated data for nmc sample and nmc gen.
var genSizes = map[string][2]int{
	"blr":                   {1000, 10},
	"robust":                {1000, 10},
	"annotation":            {1000, 100},
	"normal_known_sigma":    {50, 0},
	"gamma_poisson":         {40, 0},
	"dirichlet_categorical": {100, 4},
	"beta_binomial":         {10, 20},
}

// sizeHelp describes what -n and -k mean for each model with data.
const sizeHelp = `Sizes of generated data (-n, -k; defaults in brackets):
  blr, robust            -n rows, half train and half test [1000]; -k predictors [10]
  annotation             -n items, half train and half test [1000]; -k labelers [100]
  normal_known_sigma     -n observations [50]
  gamma_poisson          -n observations [40]
  dirichlet_categorical  -n observations [100]; -k categories, must be 4
  beta_binomial          -n groups [10]; -k trials per group [20]
funnel and eight_schools have no generated data.`

// generate draws the data of model with n rows (items, observations, groups) and
// k predictors (labelers, trials); 0 means the default of genSizes.
func generate(model string, n, k int, seed uint64) (*dataset, error) {
	if n < 0 {
		return nil, fmt.Errorf("-n = %d, want a positive size", n)
	}
	if k < 0 {
		return nil, fmt.Errorf("-k = %d, want a positive size", k)
	}
	def, ok := genSizes[model]
	if !ok {
		if n != 0 || k != 0 {
			return nil, fmt.Errorf("-n, -k: model %s has no data", model)
		}
		return &dataset{model: model}, nil
	}
	if n == 0 {
		n = def[0]
	}
	if k == 0 {
		k = def[1]
	} else if def[1] == 0 {
		return nil, fmt.Errorf("-k: model %s has no second size", model)
	}
	rng := dataRNG(seed)
	d := &dataset{model: model}
	var err error
	switch model {
	case "blr", "robust":
		if n < 2 {
			return nil, fmt.Errorf("-n = %d: %s needs at least 2 rows (half train, half test)", n, model)
		}
		gen := models.GenerateLogistic
		if model == "robust" {
			gen = models.GenerateRobust
		}
		train, test, truth, err := gen(rng, n, k)
		if err != nil {
			return nil, err
		}
		d.regTrain, d.regTest = &train, &test
		d.truthNames, d.truthValues = truth.Named()
	case "annotation":
		if n < 2 {
			return nil, fmt.Errorf("-n = %d: annotation needs at least 2 items (half train, half test)", n)
		}
		cfg := models.DefaultAnnotationConfig(n)
		cfg.Labelers = k
		train, test, truth, err := models.GenerateAnnotation(rng, cfg)
		if err != nil {
			return nil, err
		}
		d.annTrain, d.annTest, d.annCfg = &train, &test, cfg
		d.truthNames, d.truthValues = truth.Named()
	case "normal_known_sigma":
		var mu float64
		d.normalY, mu, err = models.GenerateNormalKnownSigma(rng, n, normalMu0, normalTau0, normalSigma)
		d.truthNames, d.truthValues = []string{"mu"}, []float64{mu}
	case "gamma_poisson":
		var lambda float64
		d.counts, lambda, err = models.GenerateGammaPoisson(rng, n, gammaPoissonA, gammaPoissonB)
		d.truthNames, d.truthValues = []string{"lambda"}, []float64{lambda}
	case "dirichlet_categorical":
		if k != 4 {
			return nil, fmt.Errorf("-k = %d: dirichlet_categorical has 4 categories (prior Dirichlet(1, 2, 3, 4))", k)
		}
		var p []float64
		d.cats, p, err = models.GenerateDirichletCategorical(rng, n, dirichletAlpha())
		for i, v := range p {
			d.truthNames = append(d.truthNames, "p["+strconv.Itoa(i)+"]")
			d.truthValues = append(d.truthValues, v)
		}
	case "beta_binomial":
		d.trials = make([]int, n)
		for i := range d.trials {
			d.trials[i] = k
		}
		var p float64
		d.successes, p, err = models.GenerateBetaBinomial(rng, d.trials, betaBinomialA, betaBinomialB)
		d.truthNames, d.truthValues = []string{"p"}, []float64{p}
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// load reads the data of model from files: train is required for models with
// data; test is optional (regression and annotation only); meta is annotation's
// metadata file ("" means annotation_meta.csv beside train).
func load(model, train, test, meta string) (*dataset, error) {
	d := &dataset{model: model}
	if _, ok := genSizes[model]; !ok {
		return nil, usagef("-train: model %s has no data", model)
	}
	if train == "" {
		return nil, usagef("-test %s given without -train", test)
	}
	if test != "" && (isConjugate(model)) {
		return nil, usagef("-test: model %s has no held-out data", model)
	}
	var err error
	switch model {
	case "blr", "robust":
		tr, err := models.ReadRegressionCSV(train)
		if err != nil {
			return nil, err
		}
		d.regTrain = &tr
		if test != "" {
			te, err := models.ReadRegressionCSV(test)
			if err != nil {
				return nil, err
			}
			d.regTest = &te
		}
	case "annotation":
		if meta == "" {
			meta = filepath.Join(filepath.Dir(train), models.AnnotationMetaFile)
		}
		m, err := models.ReadAnnotationMeta(meta)
		if err != nil {
			return nil, err
		}
		tr, err := models.ReadAnnotationCSV(train, m.NTrain, m.K, m.C)
		if err != nil {
			return nil, err
		}
		d.annTrain, d.annCfg = &tr, m.Config()
		if test != "" {
			te, err := models.ReadAnnotationCSV(test, m.NTest, m.K, m.C)
			if err != nil {
				return nil, err
			}
			d.annTest = &te
		}
	case "normal_known_sigma":
		d.normalY, err = models.ReadNormalData(train)
	case "gamma_poisson":
		d.counts, err = models.ReadCountData(train)
	case "dirichlet_categorical":
		d.cats, err = models.ReadCategoricalData(train, len(dirichletAlpha()))
	case "beta_binomial":
		d.trials, d.successes, err = models.ReadBinomialData(train)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// build compiles the model of d. For conjugate models it also returns the exact
// posterior; otherwise that is nil.
func (d *dataset) build() (*models.Built, *models.Posterior, error) {
	var (
		b    *models.Built
		post *models.Posterior
		err  error
	)
	switch d.model {
	case "funnel":
		b, err = models.Funnel()
	case "eight_schools":
		b, err = models.EightSchools(models.EightSchoolsData.Y, models.EightSchoolsData.Sigma, false)
	case "blr":
		b, err = models.Logistic(*d.regTrain, d.regTest, nil)
	case "robust":
		b, err = models.Robust(*d.regTrain, d.regTest, nil)
	case "annotation":
		prior := &models.AnnotationPrior{Gamma: d.annCfg.Gamma, Rho: d.annCfg.Rho}
		b, err = models.Annotation(*d.annTrain, d.annTest, prior)
	case "normal_known_sigma":
		if b, err = models.NormalKnownSigma(d.normalY, normalMu0, normalTau0, normalSigma); err == nil {
			post, err = models.NormalKnownSigmaPosterior(d.normalY, normalMu0, normalTau0, normalSigma)
		}
	case "gamma_poisson":
		if b, err = models.GammaPoisson(d.counts, gammaPoissonA, gammaPoissonB); err == nil {
			post, err = models.GammaPoissonPosterior(d.counts, gammaPoissonA, gammaPoissonB)
		}
	case "dirichlet_categorical":
		if b, err = models.DirichletCategorical(d.cats, dirichletAlpha()); err == nil {
			post, err = models.DirichletCategoricalPosterior(d.cats, dirichletAlpha())
		}
	case "beta_binomial":
		if b, err = models.BetaBinomial(d.trials, d.successes, betaBinomialA, betaBinomialB); err == nil {
			post, err = models.BetaBinomialPosterior(d.trials, d.successes, betaBinomialA, betaBinomialB)
		}
	default:
		err = fmt.Errorf("-model: unknown model %q", d.model)
	}
	if err != nil {
		return nil, nil, err
	}
	return b, post, nil
}

// write writes d into dir in the shared data schemas and returns the paths
// written: blr and robust: MODEL_train.csv, MODEL_test.csv, MODEL_truth.csv;
// annotation: the five annotation files and annotation_truth.csv; conjugate
// models: MODEL.csv (the data file) and MODEL_truth.csv.
func (d *dataset) write(dir string) ([]string, error) {
	p := func(name string) string { return filepath.Join(dir, name) }
	var files []string
	switch d.model {
	case "blr", "robust":
		files = []string{p(d.model + "_train.csv"), p(d.model + "_test.csv")}
		if err := models.WriteRegressionCSV(files[0], *d.regTrain); err != nil {
			return nil, err
		}
		if err := models.WriteRegressionCSV(files[1], *d.regTest); err != nil {
			return nil, err
		}
	case "annotation":
		if err := models.WriteAnnotationDir(dir, d.annCfg, *d.annTrain, *d.annTest); err != nil {
			return nil, err
		}
		files = []string{p(models.AnnotationTrainFile), p(models.AnnotationTestFile),
			p(models.AnnotationTrainZFile), p(models.AnnotationTestZFile), p(models.AnnotationMetaFile)}
	default:
		path := p(d.model + ".csv")
		if err := d.writeConjugate(path); err != nil {
			return nil, err
		}
		files = []string{path}
	}
	if d.truthNames != nil {
		path := p(d.model + "_truth.csv")
		names := d.truthNames
		if d.model == "annotation" {
			// The shared files call the prevalences prev[m] (Stan's name for pi).
			names = slices.Clone(names)
			for i, n := range names {
				if strings.HasPrefix(n, "pi[") {
					names[i] = "prev" + n[len("pi"):]
				}
			}
		}
		if err := models.WriteTruthCSV(path, names, d.truthValues); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// writeConjugate writes the data file of a conjugate model in the shared schema:
// a y column (1-based categories for dirichlet_categorical) or trials,successes.
func (d *dataset) writeConjugate(path string) error {
	return writeOutput(path, func(out io.Writer) error {
		w := bufio.NewWriter(out)
		switch d.model {
		case "normal_known_sigma":
			w.WriteString("y\n")
			for _, v := range d.normalY {
				w.WriteString(strconv.FormatFloat(v, 'g', 17, 64) + "\n")
			}
		case "gamma_poisson":
			w.WriteString("y\n")
			for _, v := range d.counts {
				w.WriteString(strconv.Itoa(v) + "\n")
			}
		case "dirichlet_categorical":
			w.WriteString("y\n")
			for _, v := range d.cats {
				w.WriteString(strconv.Itoa(v+1) + "\n")
			}
		case "beta_binomial":
			w.WriteString("trials,successes\n")
			for i, t := range d.trials {
				w.WriteString(strconv.Itoa(t) + "," + strconv.Itoa(d.successes[i]) + "\n")
			}
		default:
			return errors.New("model " + d.model + " has no data file")
		}
		return w.Flush()
	})
}

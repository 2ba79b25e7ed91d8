package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/nmc-go/nmc/models"
)

var genCommand = &command{
	name:     "gen",
	args:     "-model NAME [-n N] [-k K] [-seed S] -out DIR",
	synopsis: "generate a data set for one of the paper's models",
	help: `Gen draws a data set from a model's generative process and writes it into
DIR (created if missing) in the schemas shared with the Stan and JAGS
versions, ids 1-based:

  blr, robust   MODEL_train.csv, MODEL_test.csv (y,x1,…,xK), MODEL_truth.csv
  annotation    annotation_train.csv, annotation_test.csv (item,labeler,label),
                annotation_train_z.csv, annotation_test_z.csv (item,z),
                annotation_meta.csv, annotation_truth.csv
  conjugate     MODEL.csv (y, or trials,successes for beta_binomial), MODEL_truth.csv
  ported        MODEL.json (CmdStan JSON data), PROGRAM.stan (the Stan program),
                MODEL_truth.csv

"nmc sample -model MODEL -train DIR/MODEL_train.csv -test DIR/MODEL_test.csv"
(or -train DIR/MODEL.csv, or -data DIR/MODEL.json) samples the data back, and
"Rscript scripts/stan/run.R DIR/PROGRAM.stan DIR/MODEL.json SEED" runs Stan on
the same data. Models with data: ` +
		"blr, robust, annotation, normal_known_sigma, gamma_poisson, beta_binomial, dirichlet_categorical;\nported from Stan: " + strings.Join(stanModels(), ", ") + ".\n\n" + sizeHelp(),
	flags: genFlags,
}

// genFlags declares the flags of "nmc gen".
func genFlags(fs *flag.FlagSet) func(*env, []string) error {
	model := fs.String("model", "", "the model whose data to generate (required)")
	n := fs.Int("n", 0, "rows, items, observations or groups (0: the model's default)")
	k := fs.Int("k", 0, "predictors, labelers, categories or trials (0: the model's default)")
	seed := fs.Uint64("seed", 1, "seed of the random generator")
	out := fs.String("out", "", "write the files into `dir` (required; created if missing)")
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (gen takes flags only)", args[0])
		}
		if err := checkModel(*model); err != nil {
			return usage(err)
		}
		if spec, _ := models.Lookup(*model); !spec.HasData() {
			return usagef("-model: model %s has no data to generate", *model)
		}
		if *out == "" {
			return usagef("-out DIR is required")
		}
		d, err := generateData(*model, *n, *k, *seed)
		if err != nil {
			return err
		}
		if err := makeDir("-out", *out); err != nil {
			return err
		}
		files, err := d.Write(*out)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: %s, seed %d\nwrote %s\n", *model, describeData(d), *seed, strings.Join(files, ", "))
		if spec, _ := models.Lookup(*model); spec.StanJSON() {
			// The quantities nmc sample summarises, named as in the Stan program: the
			// ones to compare (scripts/stan/compare.sh reads this line).
			fmt.Fprintf(e.stdout, "parameters: %s\n", strings.Join(spec.SummaryVariables, ","))
		}
		return nil
	}
}

// sizeHelp describes what -n and -k mean for each model with data.
func sizeHelp() string {
	text := sizeHelpBuiltin
	for _, name := range stanModels() {
		spec, _ := models.Lookup(name)
		text += fmt.Sprintf("\n  %-22s %s", name, spec.Sizes())
	}
	return text + "\nfunnel and eight_schools have no generated data."
}

// stanModels returns the names of the registry's models ported from Stan
// programs, which read CmdStan JSON data.
func stanModels() []string {
	var names []string
	for _, name := range models.Names() {
		if spec, _ := models.Lookup(name); spec.StanJSON() {
			names = append(names, name)
		}
	}
	return names
}

// sizeHelpBuiltin describes -n and -k for the models of package models.
const sizeHelpBuiltin = `Sizes of generated data (-n, -k; defaults in brackets):
  blr, robust            -n rows, half train and half test [1000]; -k predictors [10]
  annotation             -n items, half train and half test [1000]; -k labelers [100]
  normal_known_sigma     -n observations [50]
  gamma_poisson          -n observations [40]
  dirichlet_categorical  -n observations [100]; -k categories, must be 4
  beta_binomial          -n groups [10]; -k trials per group [20]`

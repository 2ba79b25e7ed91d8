package models_test

import (
	"fmt"
	"log"

	"github.com/nmc-go/nmc/models"
)

// A registry model by name: its data generated with a seed, the model built with
// the registry's hyperparameters, and its exact posterior.
func ExampleGenerate() {
	spec, err := models.Lookup("gamma_poisson")
	if err != nil {
		log.Fatal(err)
	}
	d, err := models.Generate(spec.Name, 0, 0, 1) // default size, seed 1
	if err != nil {
		log.Fatal(err)
	}
	built, exact, err := d.Build()
	if err != nil {
		log.Fatal(err)
	}
	mean, _ := exact.Mean("lambda")
	fmt.Printf("%s: conjugate %v, %d observations, sites %d, prior Gamma(%g, %g)\n",
		spec.Name, spec.Conjugate, d.Size(), len(built.Model.Sites()), models.GammaPoissonA, models.GammaPoissonB)
	fmt.Printf("exact posterior mean of lambda %.3f (generated with %.3f)\n", mean, d.TruthValues[0])
	// Output:
	// gamma_poisson: conjugate true, 40 observations, sites 1, prior Gamma(2, 0.5)
	// exact posterior mean of lambda 2.000 (generated with 2.283)
}

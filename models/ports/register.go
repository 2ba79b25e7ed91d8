package ports

import "github.com/nmc-go/nmc/models"

// The ported models, registered in this order.
func init() {
	for _, p := range []*models.Port{
		arma11Port(),
		garch11Port(),
		linRegPort("linreg_2scalar", LinReg2Scalar),
		linRegPort("linreg_vector", LinRegVector),
		varyingInterceptPort(),
		normalMixturePort("normal_mixture", NormalMixtureSeparated),
		normalMixturePort("normal_mixture_overlap", NormalMixtureOverlapping),
		hmmPoissonPort("hmm_poisson", HMMPoissonSeparated),
		hmmPoissonPort("hmm_poisson_overlap", HMMPoissonOverlapping),
		gpPoisPort(),
		gpPoisPortOf("gp_pois_regr_nc", GPPoisNC),
		gpRegrPort(),
		pkPort(),
		roachesPort(),
		ordinalPort(),
		multiLogitPort(),
		glmmPoissonPort(),
		glmmPoissonPortOf("glmm_poisson_nc", "z", GLMMPoissonNC),
	} {
		if err := models.Register(p); err != nil {
			panic(err) // a name registered twice is a bug of this package
		}
	}
}

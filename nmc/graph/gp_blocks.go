package graph

import (
	"slices"

	"github.com/nmc-go/nmc/nmc"
)

var _ nmc.BlockHinter = (*Model)(nil)

// BlockHints names, for each observed multivariate normal whose covariance reads
// two or more continuous sites (the marginal likelihood of a Gaussian process
// regression: MultivariateNormalCov over a kernel of latent hyperparameters, a
// noise scale added with AddDiag), those sites, for
// nmc.AutoBlocks to move by one block Newton step (nmc.BlockHinter): on a
// Gaussian process regression of 40 points their coupling measured 0.14 at the
// pilot states, below AutoBlocks' threshold, yet the block of length scale,
// amplitude and noise moved the amplitude with 6 times the bulk ESS of its
// single-site steps. A latent Gaussian process is not named: its
// hyperparameters' coupling runs through the latent values, which AutoBlocks
// measures (gp_pois_regr: 0.62 to 0.68 at the pilot states). Sites summed out or
// discrete are left out; sets of one site are not named.
func (m *Model) BlockHints() [][]int {
	var out [][]int
	for _, fc := range m.factors {
		f, ok := fc.jf.(*mvnFamily)
		if !ok || f.chol || fc.obs == nil {
			continue
		}
		c := fc.d.params[1]
		var deps []int
		for e := 0; e < fc.length; e++ {
			deps = collectDeps(c, elem(c, e), deps)
		}
		slices.Sort(deps)
		deps = slices.Compact(deps)
		deps = slices.DeleteFunc(deps, func(i int) bool {
			s := m.sites[i]
			return s.Support == nmc.Discrete || s.Marginalised
		})
		if len(deps) >= 2 && !slices.ContainsFunc(out, func(set []int) bool { return slices.Equal(set, deps) }) {
			out = append(out, deps)
		}
	}
	return out
}

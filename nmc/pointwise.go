package nmc

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/nmc-go/nmc/draws"
)

// PointwiseDraws evaluates h at every draw of d, draws sampled from m (the first
// Dim(m.Sites()) columns of each row are the state; derived quantities may follow):
// per chain, row-major draws × h.Len(), the layout of Result.HeldOut and of
// diagnostics.LogLik. With h the pointwise log-likelihood of the training data
// (graph.Model.LogLik), this is the input of PSIS-LOO and WAIC. Chains are evaluated
// in parallel; every value is computed alone, so the result does not depend on
// GOMAXPROCS. h must be safe for concurrent use (as HeldOut requires).
func PointwiseDraws(m Model, d *draws.Draws, h HeldOut) ([][]float64, error) {
	dim := Dim(m.Sites())
	if len(d.Names) < dim {
		return nil, fmt.Errorf("nmc: PointwiseDraws: draws have %d columns, the model's state %d", len(d.Names), dim)
	}
	n := h.Len()
	if n < 0 {
		return nil, fmt.Errorf("nmc: PointwiseDraws: HeldOut.Len() = %d is negative", n)
	}
	out := make([][]float64, d.NumChains())
	var wg sync.WaitGroup
	for c := range out {
		nd := d.NumDraws(c)
		out[c] = make([]float64, nd*n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := len(d.Names)
			for i := 0; i < nd; i++ {
				h.LogLik(d.Chains[c][i*w:i*w+dim], out[c][i*n:(i+1)*n])
			}
		}()
	}
	wg.Wait()
	return out, nil
}

// Replicator draws replicated data at a state: the observations drawn again from
// their distributions given the latent variables (graph.Model implements it).
type Replicator interface {
	// NumReplicated is the number of scalar values of one replicated data set.
	NumReplicated() int
	// Replicate draws one replicated data set at state x into dst (length
	// NumReplicated()). It must be safe for concurrent use with distinct rng and dst.
	Replicate(rng *rand.Rand, x, dst []float64) error
}

// PredictiveDraws draws one replicated data set at every draw of d, draws sampled
// from m: at posterior draws, posterior predictive draws (y_rep); at draws from the
// prior, prior predictive ones. The result is per chain, row-major draws ×
// r.NumReplicated(). Chain c of d uses the PCG stream (seed, firstChain+c), the
// numbering of Options.FirstChain, so the result is reproducible for a seed
// whatever GOMAXPROCS is, and chains sampled in split runs get the replicates of
// one whole run. Pass a seed other than the sampler's so that the replicates'
// random numbers are not the chains' own.
func PredictiveDraws(m Model, d *draws.Draws, r Replicator, seed uint64, firstChain int) ([][]float64, error) {
	dim := Dim(m.Sites())
	if len(d.Names) < dim {
		return nil, fmt.Errorf("nmc: PredictiveDraws: draws have %d columns, the model's state %d", len(d.Names), dim)
	}
	n := r.NumReplicated()
	out := make([][]float64, d.NumChains())
	errs := make([]error, len(out))
	var wg sync.WaitGroup
	for c := range out {
		nd := d.NumDraws(c)
		out[c] = make([]float64, nd*n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(firstChain+c)))
			w := len(d.Names)
			for i := 0; i < nd; i++ {
				if err := r.Replicate(rng, d.Chains[c][i*w:i*w+dim], out[c][i*n:(i+1)*n]); err != nil {
					errs[c] = fmt.Errorf("nmc: PredictiveDraws: chain %d draw %d: %w", c, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

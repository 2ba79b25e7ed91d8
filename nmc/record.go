package nmc

import "math/rand/v2"

// output is a chain's recorded draws.
type output struct {
	rows   []float64  // draws × ncols: the state, the derived and the generated quantities
	n      int        // the draws recorded so far
	held   []float64  // draws × nHeld: the held-out log-likelihoods
	genRng *rand.Rand // the generated quantities' stream (Generator), or nil
}

// newOutput returns the output buffers of the chain with global number num.
func newOutput(run *sampling, num int) output {
	o := run.opts
	out := output{rows: make([]float64, o.Draws*run.ncols), held: make([]float64, o.Draws*run.nHeld)}
	if run.gen != nil {
		out.genRng = rand.New(rand.NewPCG(o.Seed^GeneratedSeed, uint64(num)))
	}
	return out
}

// record appends the current state (and derived, generated and held-out values)
// to the output.
func (c *Chain) record() {
	run, out := c.run, &c.out
	row := out.rows[out.n*run.ncols : (out.n+1)*run.ncols]
	n := copy(row, c.x)
	if run.deriver != nil {
		c.at.phase = "Derive"
		run.deriver.Derive(c.x, row[n:run.genAt])
	}
	if run.gen != nil {
		c.at.phase = "Generate"
		run.gen.Generate(out.genRng, c.x, row[run.genAt:])
	}
	if h := run.opts.HeldOut; h != nil {
		c.at.phase = "HeldOut.LogLik"
		h.LogLik(c.x, out.held[out.n*run.nHeld:(out.n+1)*run.nHeld])
	}
	c.at.phase = "sampling"
	out.n++
}

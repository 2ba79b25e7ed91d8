// Package nmc samples Bayesian models with Newtonian Monte Carlo (NMC): single-site
// Metropolis-Hastings in which every latent site is updated by a proposal fitted to the
// first and second derivatives of the site's Markov-blanket log density.
//
// # Overview
//
// A model implements Model (sites, a per-chain Scorer giving each site's score with its
// gradient and Hessian, and an initialiser). Sample runs several chains in parallel and
// returns a Result holding the draws of every scalar coordinate, the statistics of every
// site and move, the wall and CPU times and, optionally, pointwise held-out
// log-likelihoods.
//
// One recorded draw is one sweep, and a sweep is a schedule of moves
// (Options.Moves): kinds of update made in their order, each one type (Move) with
// its own settings, its own state in every chain and its own statistics. By default
// (Defaults, DefaultMoves) the model's declarations choose them; Plan lists the
// schedule for a model, and a user's own move (see the Move example) joins it as any
// other:
//
//   - SiteSteps: every site gets one Metropolis-Hastings step, in a fresh random
//     order each sweep (below).
//   - AutoBlocks, BlockNewton: a joint Newton step of a block of continuous sites
//     in unconstrained coordinates, for the blocks of strongly coupled sites found
//     from the exact curvature (a Scorer that implements JointHessianer) or
//     declared.
//   - GroupMoves: a step along the orbit of each group the model declares (Grouper).
//   - FittedSteps: after a warm-up, independence steps from Gaussians fitted to the
//     Real blocks in warm-up.
//   - AugmentRound: draws of the Marginalised sites, then steps of the augmented
//     sites given them (Augmenter).
//   - HamiltonianMove: static Hamiltonian Monte Carlo of a declared block
//     (Hamiltonian).
//   - LeadMoves: with a warm-up, random walks of declared leads (Leader), fitted
//     to their warm-up draws (made in warm-up too, from its first windows on).
//
// The site steps' proposer is chosen by the site's Support:
//
//   - Real: Newton-centred Gaussian (or multivariate Cauchy) with mean x + γA⁻¹∇f and
//     covariance A⁻¹, A = −∇²f; when A is not positive definite its eigenvalues λ are
//     replaced by the SoftAbs value λ·coth(αλ), α = 1e6 ("newton-gaussian",
//     "newton-cauchy"). SiteSteps.Real chooses the tails, the rule for the step
//     fraction γ (the full step γ = 1, a BetaStep or a CrankNicolson, the last two
//     adaptable during warm-up) and an optional robust mixture.
//   - Positive: a Gamma per coordinate with shape 1 − (x−c)²H_ii and rate
//     −(x−c)H_ii − g_i on x − c ("gamma").
//   - Simplex: a Dirichlet with α_i = 1 − x_i²(H_ii − max_{j≠i} H_ij), floored at 1e-3
//     ("dirichlet").
//   - Interval: a Beta per coordinate on u = (x−a)/(b−a), fitted as the 2-simplex
//     (u, 1−u) ("beta"). Once a Beta step is not accepted with probability 1, the
//     warm-up also tries a Newton (or, far out in a tail, Langevin) step on the logit
//     scale and a Newton Gaussian truncated to (a, b), and each chain keeps, for all
//     recorded draws, the kind with the best recent acceptance: a scale under a wide
//     Uniform, whose posterior sits in a corner of the interval, is sampled well.
//   - Discrete: the exact conditional by enumeration when the number of values is finite
//     ("enumerate"), a folded geometric random walk otherwise ("discrete-mh").
//
// When a gradient or Hessian is not finite, or a fitted parameter is invalid, the
// proposer falls back to a proposal that depends on the state only (a random walk on the
// site's own scale), so that the Metropolis-Hastings ratio stays exact. The reverse
// density q(x|x′) is always the density of the proposal that would be built at x′,
// fallback included. Fallbacks are counted per site, never logged.
//
// # Group moves
//
// Single-site steps cannot follow a direction in which several sites must move
// together, such as the overall scale of the coefficients of a logistic regression
// or the neck of Neal's funnel. A model that implements Grouper declares groups: one
// orbit x(t) of the state each, along which coordinates are dilated about 0 or about
// another coordinate (x ↦ a + e^{st}(x − a)) or shifted (x ↦ x + bt). Each group
// gets one Metropolis-Hastings step along its orbit per sweep (GroupMoves, warm-up
// included; a generalised Gibbs step, Liu and Sabatti 2000), proposed from a
// one-dimensional Newton fit to the log density along the orbit — its exact first
// and second derivatives come from the Scorer's ScoreOrbit (OrbitScorer) — and
// accepted with the exact ratio, Jacobian e^{t·Σs} included. The groups are
// validated before sampling: an orbit that can leave a site's support (a shift of a
// Positive site, any orbit of an Interval, Simplex or Discrete site) is refused.
// Their statistics are entries of Result.Moves ("orbit-newton");
// Defaults.NoGroupMoves leaves them out, which gives the paper's plain NMC.
//
// # Fitted independence steps and the adaptive warm-up
//
// Local steps cross a long, narrow posterior slowly even when they accept often (the
// 41 coefficients of a logistic regression on 10,000 near-separable rows). After a
// warm-up, each chain fits a Gaussian to every fitted block — the Real coordinates
// of a group, or a Real site with at least two coordinates — from the block's
// curvature at a few warm-up draws, freezes it, and makes independence
// Metropolis-Hastings steps from it every sweep (FittedSteps, proposer
// "fitted-gaussian"). The adaptive warm-up (the default: Options.Warmup 0 or
// AutoWarmup) chooses the warm-up's length (at least 200 sweeps, whole windows of
// 50, re-applying start refinement at each window end, moving a site whose steps
// accepted nothing in the window to a draw of its proposal and restarting a chain
// frozen where the curvature explodes, until each chain's log joint stops trending
// and the chains agree, or WarmupMax with a warning; Result.WarmupSweeps,
// Result.WarmupCheck). Options.Warmup = NoWarmup records from the first sweep.
// After the adaptive warm-up the chains measure their ESS per sweep on a
// pilot of their first sweeps and thin their draws where it is low (Options.Thin
// 0, the default; Result.Thin).
// After every warm-up sweep each move that adapts (Adapter) learns from it, and at
// the end of the warm-up freezes what it learnt. A group move probes its orbit once
// more per fit for the rate of its log-Gamma fit; after a warm-up whose probed rates
// were nearly constant the chain freezes their median and stops probing. Without a
// warm-up there is nothing to fit, and the sweeps are as described above.
//
// # Lead-and-follow moves
//
// A site whose marginal is much broader than its conditional given the rest — the
// weight of a rare mixture component, pinned by the component's parameters that are
// fitted to it — moves slowly under its own steps however well they are fitted. A
// model that implements Leader declares such lead sites; each sweep makes
// random-walk Metropolis-Hastings moves of every lead in its unconstrained
// coordinates (log, logit, additive log-ratio; exact Jacobian), with the covariance
// of the lead's warm-up draws (frozen at the warm-up's end; in warm-up, from its
// first windows on, refitted to the draws so far at every window end),
// optionally with followers that are re-proposed from their own fits (or, finite Discrete ones, from their exact conditionals) in the
// same move (LeadMoves, proposer "lead-follow"); a model that implements
// LeadFollower names each lead's followers (graph: a Gaussian process's latent
// values follow its kernel's hyperparameters).
//
// # The Hamiltonian block
//
// When many continuous sites move together through a blanket too large for a joint
// Newton fit (the prevalences and all the confusion rows of Dawid-Skene with the
// classes summed out), a model that implements Hamiltonian declares them as one
// block, and its Scorer may give the gradient of the log joint with respect to all
// of them in one pass (JointGradienter; otherwise the per-site score gradients are
// used). Every sweep, warm-up included, then makes one static Hamiltonian Monte
// Carlo move of the whole block in unconstrained coordinates (log, logit, additive
// log-ratio; exact Jacobian): a fixed number of leapfrog steps (32 by default), a
// diagonal mass matrix and a step size adapted in warm-up by dual averaging
// (HamiltonianMove, proposer "hmc"; Result.HamiltonianChains). With a block the
// default schedule has one augmentation round and no lead-and-follow moves.
//
// # Marginalised sites
//
// A finite Discrete site marked Site.Marginalised is summed out of the other sites'
// scores by the model. The site steps leave it out, and an augmentation round at the
// end of every sweep draws it from its exact conditional by enumeration, so that it
// is still recorded in every draw (its statistics show the proposer
// "marginal-draw": drawn, not proposed).
//
// # Augmentation steps
//
// Summing a latent out removes its slow direction but makes each step of the sites
// it selects parameters for cost a sum over everything the latent touches, and
// leaves those sites to single-site steps along the directions in which many of
// them move together (items changing class). A model that implements Augmenter
// names sites to update by data augmentation instead: each augmentation round
// (AugmentRound) draws the Marginalised sites from their exact conditional, then
// makes one step of each augmented site given the drawn values (scored by the model
// with them explicit: a conjugate confusion row given the classes is an exact Gibbs
// draw). A round is a Gibbs step on the latents and the augmented sites together, so
// the summed-out posterior is kept. The default schedule has two rounds per sweep
// (Defaults.AugmentRounds), the last ending the sweep, the other before the
// Hamiltonian and lead-and-follow moves; the augmented sites are taken from the site
// steps (proposer names end in "-augmented"). Defaults.NoAugment turns the rounds
// off.
//
// # Adding a kind of move
//
// A new kind of move is one type in one file: its Move (the settings, with
// documented zero defaults, and Plan, which checks it against the model and may take
// sites over from SiteSteps with Planner.Take), its Planned (Name, Start) and its
// Stepper (Step, Stats, and Adapter if it learns in warm-up). It reads and writes the
// state through the Chain, and reports changes with Chain.Changed. The chain, the
// warm-up, Result and the command line's acceptance table need no change; to make it
// part of the default schedule, Defaults gains a rule (and, when it may be left out,
// a field).
//
// # Conventions
//
// Chains, draws and coordinates are numbered from 0 ("chain 2" is the third chain).
// The chain with global number g (Options.FirstChain plus its index in the run) draws
// its random numbers from rand.New(rand.NewPCG(Seed, g)) only, so results are
// bit-identical for any GOMAXPROCS, and a run split over machines with FirstChain gives
// the chains of one local run. Hessians are of the log density (negative
// definite at a mode), stored row-major with both triangles.
//
// # References
//
// Arora, N. S., Tehrani, N. K., Shah, K. D., Tingley, M., Li, Y. L., Torabi, N.,
// Noursi, D., Masouleh, S. A., Lippert, E., Meijer, E. (2020). Newtonian Monte Carlo:
// single-site MCMC meets second-order gradient methods. arXiv:2001.05567.
//
// Liu, J. S., Sabatti, C. (2000). Generalised Gibbs sampler and multigrid Monte
// Carlo for Bayesian computation. Biometrika 87(2), 353–369.
//
// Hoffman, M. D., Gelman, A. (2014). The No-U-Turn Sampler: adaptively setting
// path lengths in Hamiltonian Monte Carlo (dual averaging of the step size). JMLR
// 15, 1593–1623.
//
// Betancourt, M. (2013). A general metric for Riemannian manifold Hamiltonian Monte
// Carlo (the SoftAbs map). arXiv:1212.4693.
package nmc

// Package graph declares probabilistic models in Go and compiles them into
// nmc.Model values whose per-site Markov-blanket scores come with exact gradients
// and Hessians, as Newtonian Monte Carlo needs.
//
// # Overview
//
// A model is declared with a Builder. Latent declares a latent variable with a
// prior: with no shape it is one site (a scalar, or a vector value for Dirichlet and
// MultivariateNormal); with a shape it is a plate of independent sites, one per
// index. Vector declares one site of k scalar coordinates with independent priors,
// moved together by one joint Newton step, as suits regression coefficients.
// Observe binds data to a distribution, Factor adds any expression to the log
// density (Stan's target +=, for custom likelihoods and Jacobians), Deterministic
// records a derived quantity with every draw, and Build checks and compiles the
// model:
//
//	b := graph.New()
//	alpha := b.Latent("alpha", graph.Normal(graph.C(0), graph.C(10)))
//	beta := b.Vector("beta", k, graph.Normal(graph.C(0), graph.C(2.5)))
//	b.Observe("y", graph.BernoulliLogit(graph.Add(alpha, graph.MatVec(x, beta))), y)
//	m, err := b.Build()
//
// Besides proper priors, Flat (on the reals) and HalfFlat (on (0, ∞)) are the
// improper flat priors Stan gives parameters without a prior statement; their
// latents start uniform on (−2, 2) and at exp(U(−2, 2)) respectively.
//
// Parameters of distributions are expressions (Nodes): constants (C, Vec, Data,
// Ints, Rows), latent nodes, and the operations Add, Sub, Mul, Div, Neg, Exp, Log,
// Log1p, Sqrt, Pow, Logistic, Softplus, Sum, Dot, MatVec (a data matrix times a
// Vector site), Index (indexing by integer data), At (indexing a plate by data,
// By, or by an integer-valued node such as a discrete latent, ByNode), Concat,
// Stack, Reshape and Components (arranging elements and components), LogSumExp
// (element-wise across nodes, or over one node's components or elements), LogMix
// (Stan's log_mix of two components' log densities), LogDensity (a distribution's
// log density at a node, Stan's normal_lpdf and kin), and Func, any Go function of
// nodes (see Go functions below), and the covariance kernels of Gaussian
// processes (below). A mixture is a Factor of them:
//
//	y := graph.Data(ys)
//	b.Factor("y", graph.LogMix(lambda,
//		graph.LogDensity(graph.Normal(graph.Index(mu, []int{0}), sigma), y),
//		graph.LogDensity(graph.Normal(graph.Index(mu, []int{1}), sigma), y)))
//
// A node has Len() elements of Width() components each. Element-wise operations
// broadcast: an operand of length 1 is repeated over the other operand's elements
// (a scalar latent over a plate of observations), and an operand of width 1 over
// the other's components (a scalar times the concentration vector of a Dirichlet).
// An observation has as many elements as its longest parameter.
//
// At reads a multi-dimensional plate by one index per dimension. The Dawid-Skene
// model of annotator confusion, where label j was given by labeler[j] to item[j]
// whose unknown class is z[item[j]], reads its likelihood as
//
//	theta := b.Latent("theta", graph.Dirichlet(alpha), labelers, classes)
//	z := b.Latent("z", graph.Categorical(pi), items)
//	b.ObserveInts("y", graph.Categorical(graph.At(theta, graph.By(labeler), graph.ByNode(graph.Index(z, item)))), label)
//
// and an element indexed through a discrete node depends on every candidate site,
// as in JAGS.
//
// Errors in a declaration (bad shapes, NaN or Inf in data, parameters outside their
// domain, observed values outside the support, duplicate names, indices out of
// range, nil nodes) are recorded where they occur and returned by Build, naming the
// variable, the element and the value. Nothing panics on user input.
//
// # Go functions
//
// Func makes a node from a function written in plain Go over the Numbers of
// package nmc/jet, which carry a value, a gradient and a Hessian through every
// operation: an ODE integrator, a loop, a special function. The function sees the
// components of its input nodes as variables and writes nout outputs, one
// element of nout components; Components turns them into scalar elements. One
// evaluation gives every output's derivatives in the inputs, and the engine
// chains them into the active site's, exactly. Builder.Func adds a function of one
// output to the log density, as Factor does. A pharmacokinetic ODE solved by
// Runge-Kutta, observed at ten times:
//
//	conc := graph.Func(solve, 10, graph.Exp(logtheta)) // C(t₁), …, C(t₁₀) from k_a, V, V_m, K_m
//	b.Observe("y", graph.LogNormal(graph.Log(graph.Components(conc)), graph.C(0.1)), y)
//
// Results are kept for the last few input values across chains and sites, so a
// state scored for one site and then for the next costs one evaluation. An output
// that is NaN or infinite makes the state impossible. A panic in the function is a
// bug: Build evaluates it at ten prior draws and returns a panic there as an error
// quoting it, and the sampler returns one while sampling as the chain's error.
//
// # Constrained latents
//
// Ordered and PositiveOrdered declare ordered vectors (Stan's ordered[k] and
// positive_ordered[k]) and Bounded a latent whose bounds are nodes, constants or
// expressions of other latents (Stan's real<lower=0, upper=1-alpha1> beta1), each
// with a prior on its constrained value as Stan applies it: log p(y) added on the
// constrained set, not renormalised.
//
//	mu := b.Ordered("mu", 2, graph.Normal(graph.C(0), graph.C(10)))
//	beta1 := b.Bounded("beta1", graph.C(0), graph.Sub(graph.C(1), alpha1), graph.Flat())
//
// The sampler moves sites named name+RawSuffix ("mu__raw") that map linearly onto
// the constrained value, in the supports NMC proposes natively: an ordered vector's
// first component (Real) and its gaps (Positive), a bounded value's fraction of its
// interval (unit Interval) or distance to its one bound (Positive), with the log
// Jacobian (0, or log(upper − lower)) added to the log density. Linear maps keep a
// log-concave prior log-concave, which Stan's exponential transforms do not (their
// Newton proposals stall in the transformed tails). The draws hold the raw sites'
// columns (mu__raw[0], mu__raw[1]) and, as derived quantities, the constrained
// values under the latent's name (mu[0], mu[1]); summaries select the latter by
// name. Init starts the raw sites by Stan's rule (uniform on (−2, 2) on Stan's
// unconstrained scale), not from the prior: in a two-component normal mixture
// (N = 1000, λ = 0.3, ordered means with a normal(0, 10) prior, 4 × 1000 draws),
// starts from sorted prior draws left a component empty in some chains (R-hat up to
// 4.1, ESS 4), Stan's rule none (R-hat ≤ 1.007 with means 3σ or 20σ apart).
//
// # Group moves
//
// Group declares a group of latent nodes that the sampler moves together along a
// one-parameter orbit x(t) (a generalised Gibbs step; see nmc.Group): each member
// is dilated about 0 (Dilate), about another latent (DilateAbout) or shifted
// (Shift), with its own rate. The funnel's x and its log-scale z, for example:
//
//	b.Group("funnel", graph.Shift(z, 2), graph.Dilate(x, 1))
//
// Build refuses a group whose orbit can leave a member site's support, a node in a
// group twice or an anchor inside its own group. The compiled Model implements
// nmc.Grouper and its scorers nmc.OrbitScorer: the score of a group is the sum of
// the factor elements that depend on any of its sites, with exact derivatives along
// the orbit, computed by the same jets with the orbit parameter t as the single
// active coordinate. ShiftEach and DilateEach give each coordinate a rate of its
// own; ShiftOver and ShiftOverEach shift at rates divided by a positive latent
// outside the group (b0 + t, z − t/σ).
//
// Build also finds the groups of the structures users write without declaring
// them, and declares them after the declared ones under names that start with
// "auto: " (autogroup.go has the rules and why they are exact and fast): a
// positive latent that is the scale of location-scale latents (θ ~ N(μ, τ)) is
// dilated with them about their location, the orbit the centred eight schools
// declares by hand; the amplitude α of a non-centred Gaussian process,
// f = CholeskyMul(K(α, ρ), η), is dilated with η contracted, which keeps f; a
// real latent that is their location is shifted with them; and a coefficient b beside a plate of intercepts in a linear predictor
// (y ~ N(a[g] + b·x, σ), x far from centred) is shifted against the intercepts and
// their location, keeping each group's mean fitted value. The non-centred form,
// b0 + b·x + σ·z[g] with z ~ N(0, 1), gets the orbits that keep what its data pin:
// σ·e^t with z·e^{−t}, and b0 + t (or b + t) with z shifted over σ (on a Poisson
// regression with 30 groups, least bulk ESS 511 in 22 s without them, 1406 in
// 7.3 s with them). Where one Normal
// observation reads the plate, each coordinate moves at a rate set by the data's
// information about it (a group of many rows barely moves with the scale, one of
// a single row fully). On a varying-intercept regression with 919 rows in 85
// groups of 1 to 120 rows the smallest bulk ESS per CPU second rose from 116–143
// to 214–502, 482–553 without the fitted steps, against Stan's 198–264
// (BENCHMARKS.md). A latent already in a declared group is left out; NoAutoGroups
// turns the rules off, one by one or all.
//
// # Summed-out discrete latents
//
// Marginalise sums a finite discrete latent out of its Markov blanket: the other
// sites' scores and the log joint see log Σ_v exp(a_v) of each of its sites'
// blanket factors, with exact gradients and Hessians through the responsibilities,
// and the sampler draws the latent from its exact conditional after every sweep
// (nmc.Site.Marginalised), so it is still recorded. The Dawid-Skene classes:
//
//	b.Marginalise(z)
//
// Build refuses latents that cannot be summed out this way (continuous or
// unbounded, or two summed-out sites sharing a factor element).
//
// Augment declares a continuous latent that the sampler updates by data
// augmentation instead of summed-out steps (nmc.Augmenter): in each augmentation
// round the summed-out latents are drawn and then its sites are updated given them,
// scored by the same model with nothing summed out — drawn exactly when a site's
// blanket is a constant Dirichlet prior and counted Categorical selections of it
// (nmc.ConditionalDrawer), else by an NMC step. The Dawid-Skene confusion rows:
//
//	b.Marginalise(z)
//	b.Augment(theta)
//
// Hamiltonian declares continuous latents whose sites the sampler moves together by
// Hamiltonian Monte Carlo once per sweep (nmc.Hamiltonian), with the gradient of the
// summed-out log joint in all their coordinates from one call of the scorer's
// JointGrad (nmc.JointGradienter). When the summed-out groups are Categorical
// selections, as Dawid-Skene's labels, that call is one pass over the groups (their
// responsibilities give every coordinate's expected count), about the cost of one
// score of the class weights; otherwise it scores each site. Dawid-Skene's weights
// and confusion rows, whose slow direction is the rare class's prevalence against
// the rows that describe it:
//
//	b.Hamiltonian(pi, theta)
//
// # Gaussian processes
//
// MultivariateNormalCov(mu, K) is the multivariate normal whose covariance K is a
// node of n elements of n components (row i of the matrix), and
// MultivariateNormalCholesky(mu, L) the one given a lower Cholesky factor. The
// kernels ExpQuadCov, Matern32Cov and Matern52Cov make K from data points and an
// amplitude and a length scale that are nodes; AddDiag adds a noise variance or a
// jitter to its diagonal. Posteriordb's gp_pois_regr, with a latent GP:
//
//	K := graph.AddDiag(graph.ExpQuadCov(graph.Data(x), alpha, rho), graph.C(1e-10))
//	f := b.Latent("f", graph.MultivariateNormalCov(graph.C(0), K))
//	b.ObserveInts("k", graph.PoissonLog(graph.Components(f)), k)
//
// and a GP regression with the marginal likelihood, y ~ MVN(0, K + σ²I):
//
//	b.Observe("y", graph.MultivariateNormalCov(graph.C(0),
//		graph.AddDiag(graph.ExpQuadCov(graph.Data(x), alpha, rho), graph.Mul(sigma, sigma))), y)
//
// A multivariate normal's element is not chained through its family's dense
// derivatives (over n² covariance entries they would hold (2n + n²)² numbers): the
// scorer hands it the jets of its value, mean and entries (a jetFamily), and it
// returns its log density's gradient and Hessian in the active coordinates from one
// Cholesky factor of the covariance: with a = K⁻¹(x − μ), ∂_p log p = −½tr(K⁻¹K_p)
// − aᵀr_p + ½aᵀK_p a, and the second derivatives from the same factor (see
// mvn_score.go). Terms whose jets are constant are skipped: scoring f, K is
// constant and the Hessian is −K⁻¹; an amplitude or a noise variance, which move K
// as c·K plus a diagonal, cost O(n²) beyond the factor, a length scale two
// triangular solves. The factor and K⁻¹ are kept between scores while the sites
// the covariance reads do not move. CholeskyMul(K, eta) is L·eta, the non-centred
// form f = L·eta with eta ~ N(0, 1), with the derivatives of the factor in the
// covariance's coordinates (Murray 2016).
//
// A kernel's φ and its derivatives in the length scale are computed once per
// value of it (the scores of one state read the same table). The sites an
// observed multivariate normal's covariance reads (a GP regression's rho, alpha,
// sigma) are named to nmc.AutoBlocks (Model.BlockHints), which moves them by one
// block Newton step and its fitted steps; the block's joint gradient and Hessian
// are one score with jets over all its coordinates, one Cholesky factor.
//
// Single-site steps cross a GP's hyperparameters slowly when the data pin the
// latent values (each conditional is then narrow). Rule AutoKernelLeads (Build)
// makes the continuous latents a latent's multivariate normal covariance reads
// leads of the sampler's lead-and-follow moves, the latent following
// (Model.Leads, Model.Followers, nmc.LeadFollower): rho and alpha move by random
// walks along their marginals and f follows each move from its Newton proposal
// (gp_pois_regr: least bulk ESS 211-306 of 4 × 1000 draws → 1635-2910, R-hat
// 1.02 → 1.003; TestGPPoissonKernelLeads). The moves run in warm-up too, so that
// its chains agree: gp_pois_regr's adaptive warm-up ends after 200 sweeps (it
// reached its limit of 1000 with the chains' log joints apart when they started
// after it). NoAutoGroups(AutoKernelLeads) turns it off.
//
// In the non-centred form the same holds given η: f = L(α, ρ)·η pins α and ρ.
// Besides the amplitude's orbit (rule AutoScale), rule AutoKernelCarry gives
// such a model a move of its own (Model.ModelMoves, nmc.ModelMover, in the
// default schedule after the group moves): a random walk of (log α, log ρ),
// fitted in warm-up, that carries η along, η′ = L(α′, ρ′)⁻¹L(α, ρ)·η, so that f
// stays and α and ρ move by their law given f, with the map's Jacobian in the
// acceptance ratio (carry.go). On posteriordb's gp_pois_regr written
// non-centred, without leads, 4 × 1000 draws, seeds 1–3: least bulk ESS of α
// and ρ 45–101 → 504–1312, R-hat 1.04–1.08 → 1.001–1.003, at about the same
// CPU time; SBC over 1200 simulations, ρ's ranks p 5·10⁻⁵ → 0.085
// (TestGPPoissonNonCentredDefaultsCalibrated).
//
// # Hidden Markov models
//
// HiddenMarkov adds the log marginal likelihood of a hidden Markov model, its
// states summed out by the forward algorithm (Stan's hmm_marginal; HMMMarginal is
// the same term as an expression for Factor), and records the states name[t],
// drawn jointly from p(z | θ, y) by forward filtering, backward sampling at every
// recorded draw (the Model is an nmc.Generator). Its arguments are nodes: the
// emission log-likelihoods log_omega (N steps × K states), usually one LogDensity
// column per state; the transition matrix Gamma (K rows of K, a plate of Dirichlet
// latents); the initial distribution rho (a Dirichlet latent or a constant):
//
//	lambda := b.PositiveOrdered("lambda", 2, graph.Gamma(graph.C(2), graph.C(0.5)))
//	gamma := b.Latent("Gamma", graph.Dirichlet(graph.Vec(1, 1)), 2)
//	rho := b.Latent("rho", graph.Dirichlet(graph.Vec(1, 1)))
//	logOmega := graph.Stack(
//		graph.LogDensity(graph.Poisson(graph.Index(lambda, []int{0})), graph.Data(y)),
//		graph.LogDensity(graph.Poisson(graph.Index(lambda, []int{1})), graph.Data(y)))
//	b.HiddenMarkov("z", logOmega, gamma, rho)
//
// The forward recursion runs on the active site's jets, each filtered probability
// a block of its value, gradient and Hessian, so every site gets exact derivatives
// at O(N·K²) block operations per score; emissions of the form above (the same
// data in every column, parameters shared by all steps) are read from a table by
// distinct datum, a transition row's score is taken forward over reverse (O(K³) per
// step) and one of rho alone by one backward pass of values.
// Simplex sites read by the marginal get steered Hessians, as those read by a
// summed-out latent.
//
// # The evaluation path
//
// Build compiles the declared expressions into one directed acyclic graph of
// element-level operations, numbered in topological order, and gives each site its
// Markov blanket: the factor elements that read it. A site's score walks its blanket
// once: each factor element evaluates the elements of its parameters, each node
// element at most once per score (once per value of a summed-out latent it reads),
// as second-order jets in the site's coordinates (value, gradient, Hessian; kept
// until the score ends where an element has several readers), takes its family's log
// density and derivatives in value and parameters, and chains them into the site's
// gradient and Hessian; values that do not depend on the site are read at the state,
// not differentiated. The fast forms are plans of this walk chosen by Build from the
// graph's shape, not separate models: a scalar site's tape is its blanket flattened
// into instructions with the walk's results bit for bit; a linear predictor, a
// mixture's rows, a multivariate normal, a hidden Markov model's forward pass, the
// selections of a summed-out latent and a Go function are nodes or factors whose
// jets are computed for all their rows at once by closed-form rules, their row
// values kept per scorer for the last states scored. The sections below give each
// one's rule.
//
// # Conventions
//
// Indices are 0-based everywhere: in Index, By, observed categories and site names.
// The state is one flat []float64 holding the sites in declaration order, each
// site's coordinates contiguous (Model.Offset finds a family). A plate declared
// with shape (L, M) has sites named theta[l,m] in row-major order; a site of
// width k has coordinates named theta[l,m,n]. A Vector site beta has coordinates
// beta[0], …, beta[k−1]; a scalar site is named after its variable. A single scalar
// may be declared with an indexed name, as z[3] for the states of a recursion
// declared one by one in a Go loop, and is then recorded as a plate's site would be;
// its base is then not a plain name as well. Discrete values are stored as float64
// integers.
//
// # Derivatives
//
// For the active site of k coordinates, every expression element is evaluated as a
// second-order jet: its value, its gradient and its Hessian with respect to those
// coordinates. Jets are kept structured while possible — constant, a function of one
// coordinate, or a function of aᵀx for a row a of a MatVec matrix, whose Hessian is a
// weighted outer product c·aaᵀ — and become dense k×k only where a nonlinearity
// mixes different bases. Each distribution supplies the exact first and second
// derivatives of its log density with respect to its value and all parameters
// (package dist), and the engine chains them; row-structured terms summed over
// observations are applied as Aᵀdiag(w)A with one rank-k update. The score of a
// site sums only the factor elements of its Markov blanket, found when the model is
// compiled.
//
// A model's expressions form a directed acyclic graph, and each node element is
// evaluated once per score, however many expressions read it: a recursion built in
// a Go loop (step t reads step t − 1, and step t's observation reads it too), a
// forward algorithm whose step reads every node of the step before, a scalar
// broadcast over a plate. Build numbers the nodes in topological order and marks
// those some of whose elements can be read more than once in one score (read by
// several expressions, broadcast, or read through an index that repeats); each
// scorer keeps their jets — dense ones' gradients and Hessians in an arena of their
// own — until the evaluation context changes: at every call, and within a call
// whenever the state, the active site or orbit, or the value a summed-out site is
// fixed at changes. Every other node element has one reader, so each is evaluated
// at most once per score, and a recursion of T steps costs O(T). When the active
// coordinates are one (a scalar site, an orbit) or none, scalar nodes are evaluated
// from a compact copy of the graph with their value and two derivatives in
// registers, by the same arithmetic. Such a site's score runs from its tape:
// compiled at the site's first score and shared by the scorers, the node elements
// its blanket reads, in topological order, as flat instructions over a slot array
// of values and two derivatives — what does not depend on the site computed
// values only, a Normal observation one instruction, a chain such as
// e + k·(a − b) one instruction — run by one loop per score (a recursion's steps
// by a loop of their own, the value each step carries to the next in registers,
// its observations' terms added as it goes), with the general path's results bit
// for bit. The values that read only coordinates other than
// the site's (an ARMA's residuals in its sigma site's tape) are computed first and
// kept in the scorer's slots while those coordinates keep their bits (a proposal of
// the site changes none of them); everything else is evaluated at every score at
// the state it is given. The walks Build makes
// over the graph (the sites an element depends on, constant parameters, indices)
// are linear in its size. A node belongs to the model built last from it: a model
// built earlier from the same nodes scores them without keeping them (slower, the
// same values).
//
// An observation whose parameters are shared scalars and one linear predictor — a
// sum of length-1 nodes, MatVecs over Vector sites, length-1 nodes times constant
// columns and constants, as α + X·β in a regression or the same written literally,
// α + β·x or Index(b, 0) + Index(b, 1)·h, and plates read by a data index, alone or
// times a length-1 node (varying intercepts a[g], or σ·z[g] non-centred; the
// plate's own sites, which read a few rows each, keep the element walk) — is
// scored as a whole: X·β is kept per scorer for the current and the
// proposed β (recomputed from scratch at any other β, so never stale), the shared
// parameters are evaluated once, each row costs one call of the family's
// derivatives, and only in the arguments the active site moves (a family may
// evaluate many rows in one call: dist.RowsDeriver, dist.PartialDeriver, and sum
// their derivatives in several shared arguments at once: dist.SharedRowsDeriver);
// the rows' logarithms and exponentials (dist.RowTermsDeriver, and
// dist.SharedRowTermsDeriver for several shared arguments) are kept for the last
// two states scored, so scoring the state just scored — the next site's current
// state, or a group's current point — computes none of them again (after a rejected
// proposal the sampler says which state it is back at, nmc.StateKeeper, so that the
// next proposal replaces the rejected one's values, not the current state's). β's
// Hessian is Xᵀdiag(w)X with negligible rows skipped, and the orbit of a dilation
// of (α, β) about 0 reads X·β from the cache. Such a model runs as fast as the
// regression scorers written by hand (BENCHMARKS.md).
//
// A mixture likelihood — a Factor of LogMix or LogSumExp of LogDensity terms whose
// values are data and whose parameters are shared scalars, as the normal mixture
// above — is scored the same way: per row in the space of those few parameters
// (each component's log density and its derivatives in closed form, combined by
// the stable log-sum-exp), summed, and chained through the parameters' jets once
// per score (mixrows.go), the rows' exponentials and logarithms kept for the last
// two states scored: a site's score of normal_mixture's 1,000 rows costs 40–60 µs
// (25–35 µs at a state just scored) instead of 300–430.
//
// # References
//
// Arora, N. S., Tehrani, N. K., Shah, K. D., Tingley, M., Li, Y. L., Torabi, N.,
// Noursi, D., Masouleh, S. A., Lippert, E., & Meijer, E. (2020). Newtonian Monte
// Carlo: single-site MCMC meets second-order gradient methods. arXiv:2001.05567.
//
// Murray, I. (2016). Differentiation of the Cholesky decomposition.
// arXiv:1602.07527.
//
// Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer
// error-rates using the EM algorithm. Journal of the Royal Statistical Society C,
// 28(1), 20–28.
package graph

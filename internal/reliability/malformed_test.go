package reliability

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nmc-go/nmc/diagnostics"
	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// malformedCase is one bad input given to a public entry point. run returns the
// entry point's error; the error must name the package (prefix) and contain every
// substring of want, which name the place: file and line, column, variable,
// element, option or value.
type malformedCase struct {
	name   string
	prefix string // package prefix the error must start with
	run    func(t *testing.T) error
	want   []string
}

// writeFile writes content to a new file called name in a fresh temporary directory
// and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readCSV reads content with frames.ReadCSV under the source name "draws.csv".
func readCSV(content string) func(*testing.T) error {
	return func(*testing.T) error {
		_, err := frames.ReadCSV(strings.NewReader(content), "draws.csv")
		return err
	}
}

// readStan reads content with frames.ReadCmdStanCSV under the name "stan.csv".
func readStan(content string) func(*testing.T) error {
	return func(*testing.T) error {
		_, err := frames.ReadCmdStanCSV(strings.NewReader(content), "stan.csv")
		return err
	}
}

// readTable reads content with frames.ReadTable under the name "data.csv".
func readTable(content string) func(*testing.T) error {
	return func(*testing.T) error {
		_, err := frames.ReadTable(strings.NewReader(content), "data.csv")
		return err
	}
}

// build declares a model with decl and returns Build's error.
func build(decl func(b *graph.Builder)) func(*testing.T) error {
	return func(t *testing.T) error {
		b := graph.New()
		decl(b)
		m, err := b.Build()
		if err == nil && m == nil {
			t.Fatal("Build returned neither a model nor an error")
		}
		return err
	}
}

// stdNormal declares the latent a ~ Normal(0, 1).
func stdNormal(b *graph.Builder) *graph.Node {
	return b.Latent("a", graph.Normal(graph.C(0), graph.C(1)))
}

// smallModel is a built graph model with a Real site mu and a Positive site sigma
// (state length 2), used to check sampler options.
func smallModel(t *testing.T) *graph.Model {
	t.Helper()
	b := graph.New()
	mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(1)))
	sigma := b.Latent("sigma", graph.HalfNormal(graph.C(1)))
	b.Observe("y", graph.Normal(mu, sigma), []float64{0.5, -0.3, 1.2})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sample runs nmc.Sample on the small model with opts and returns its error; a
// non-nil result together with an options error is itself a failure.
func sample(opts nmc.Options) func(*testing.T) error {
	return func(t *testing.T) error {
		if opts.Draws == 0 {
			opts.Draws = 5
		}
		if opts.Chains == 0 {
			opts.Chains = 2
		}
		res, err := nmc.Sample(context.Background(), smallModel(t), &opts)
		if err != nil && res != nil && res.Draws != nil && len(res.Draws.Chains) > 0 {
			for c, ch := range res.Draws.Chains {
				if len(ch) > 0 && strings.Contains(err.Error(), "Options") {
					t.Errorf("chain %d recorded %d values despite invalid options", c, len(ch))
				}
			}
		}
		return err
	}
}

func malformedCases() []malformedCase {
	nan, inf := math.NaN(), math.Inf(1)
	chains := func(rows ...[]float64) [][]float64 { return rows }
	return []malformedCase{
		// frames.ReadCSV: our draws format.
		{"ReadCSV empty", "frames: ", readCSV(""), []string{"draws.csv", "empty"}},
		{"ReadCSV ragged row", "frames: ", readCSV("chain,draw,a,b\n0,0,1,2\n0,1,3\n"), []string{"draws.csv:3", "3 fields", "4"}},
		{"ReadCSV bad number", "frames: ", readCSV("chain,draw,a,b\n0,0,1,2\n0,1,3,x7\n"), []string{"draws.csv:3", `"b"`, `"x7"`}},
		{"ReadCSV missing chain column", "frames: ", readCSV("draw,a\n0,1\n"), []string{"draws.csv:1", `"chain"`}},
		{"ReadCSV missing draw column", "frames: ", readCSV("chain,a\n0,1\n"), []string{"draws.csv:1", `"draw"`}},
		{"ReadCSV duplicate name", "frames: ", readCSV("chain,draw,a,b,a\n0,0,1,2,3\n"), []string{"draws.csv:1", `"a"`, "3", "5"}},
		{"ReadCSV empty name", "frames: ", readCSV("chain,draw,a,\n0,0,1,2\n"), []string{"draws.csv:1", "column 4", "empty"}},
		{"ReadCSV draw gap", "frames: ", readCSV("chain,draw,a\n0,0,1\n0,2,1\n"), []string{"draws.csv:3", `"draw"`, "draw 2", "draw 1"}},
		{"ReadCSV chains out of order", "frames: ", readCSV("chain,draw,a\n1,0,1\n0,0,1\n"), []string{"draws.csv:3", "chain 0", "chain 1"}},
		{"ReadCSV negative chain", "frames: ", readCSV("chain,draw,a\n-1,0,1\n"), []string{"draws.csv:2", `"chain"`, "-1"}},
		{"ReadCSV bare quote", "frames: ", readCSV("chain,draw,a\n0,0,1\n0,1,\"2\n"), []string{"draws.csv:3"}},
		{"ReadCSV header only, no parameters", "frames: ", readCSV("chain,draw\n"), []string{"draws.csv:1", "no parameter"}},

		// frames.ReadCmdStanCSV.
		{"ReadCmdStanCSV only comments", "frames: ", readStan("# model = x\n# stan_version_major = 2\n"), []string{"stan.csv", "header"}},
		{"ReadCmdStanCSV ragged row", "frames: ", readStan("# c\nlp__,mu,tau\n-1,0.5,1\n-2,0.4\n"), []string{"stan.csv:4", "2 fields", "3"}},
		{"ReadCmdStanCSV bad number", "frames: ", readStan("lp__,mu\n-1,0.5\n-2,abc\n"), []string{"stan.csv:3", `"mu"`, `"abc"`}},
		{"ReadCmdStanCSV index 0", "frames: ", readStan("lp__,beta.0\n-1,0.5\n"), []string{"stan.csv:1", "beta.0"}},
		{"ReadCmdStanCSV duplicate after conversion", "frames: ", readStan("lp__,beta.1,beta[1]\n-1,0.5,2\n"), []string{"stan.csv:1", "beta[0]"}},
		{"ReadCmdStanCSV empty", "frames: ", readStan(""), []string{"stan.csv"}},

		// frames.ReadTable and its accessors.
		{"ReadTable empty", "frames: ", readTable(""), []string{"data.csv", "empty"}},
		{"ReadTable ragged row", "frames: ", readTable("y,x1,x2\n1,2,3\n1,2\n"), []string{"data.csv:3", "2 fields", "want 3"}},
		{"ReadTable bad number", "frames: ", readTable("y,x1\n1,2\n1,2\n0,two\n"), []string{"data.csv:4", `"x1"`, `"two"`}},
		{"ReadTable NaN cell", "frames: ", readTable("y,x1\n1,NaN\n"), []string{"data.csv:2", `"x1"`, "NaN"}},
		{"ReadTable overflow", "frames: ", readTable("y,x1\n1e999,1\n"), []string{"data.csv:2", `"y"`, "1e999"}},
		{"ReadTable duplicate column", "frames: ", readTable("y,x1,x1\n1,2,3\n"), []string{"data.csv:1", `"x1"`, "2", "3"}},
		{"ReadTable empty column name", "frames: ", readTable("y,,x2\n1,2,3\n"), []string{"data.csv:1", "column 2", "empty"}},
		{"Table.Column missing", "frames: ", func(*testing.T) error {
			tb, err := frames.ReadTable(strings.NewReader("y,x1\n1,2\n"), "data.csv")
			if err != nil {
				return fmt.Errorf("unexpected: %w", err)
			}
			_, err = tb.Column("x9")
			return err
		}, []string{"data.csv", `"x9"`}},
		{"Table.Ints non-integer", "frames: ", func(*testing.T) error {
			tb, err := frames.ReadTable(strings.NewReader("item\n1\n2\n\n2.5\n"), "data.csv")
			if err != nil {
				return fmt.Errorf("unexpected: %w", err)
			}
			_, err = tb.Ints("item")
			return err
		}, []string{"data.csv:5", `"item"`, "2.5"}},

		// models readers.
		{"ReadRegressionCSV missing column", "models: ", func(t *testing.T) error {
			_, err := models.ReadRegressionCSV(writeFile(t, "blr_train.csv", "y,x1,x3\n1,2,3\n"))
			return err
		}, []string{"blr_train.csv:1", `"x3"`, `"x2"`}},
		{"ReadRegressionCSV non-numeric cell", "models: ", func(t *testing.T) error {
			_, err := models.ReadRegressionCSV(writeFile(t, "blr_train.csv", "y,x1,x2\n1,2,3\n0,1,-\n"))
			return err
		}, []string{"blr_train.csv:3", `"x2"`, `"-"`}},
		{"ReadRegressionCSV missing file", "models: ", func(t *testing.T) error {
			_, err := models.ReadRegressionCSV(filepath.Join(t.TempDir(), "nope.csv"))
			return err
		}, []string{"nope.csv", "no such file"}},
		{"ReadAnnotationCSV id 0", "models: ", func(t *testing.T) error {
			_, err := models.ReadAnnotationCSV(writeFile(t, "ann.csv", "item,labeler,label\n1,1,1\n0,2,1\n"), 3, 2, 3)
			return err
		}, []string{"ann.csv:3", `"item"`, "id 0", "1..3"}},
		{"ReadAnnotationCSV labeler out of range", "models: ", func(t *testing.T) error {
			_, err := models.ReadAnnotationCSV(writeFile(t, "ann.csv", "item,labeler,label\n1,1,1\n2,5,1\n"), 3, 2, 3)
			return err
		}, []string{"ann.csv:3", `"labeler"`, "5", "1..2"}},
		{"ReadAnnotationCSV label out of range", "models: ", func(t *testing.T) error {
			_, err := models.ReadAnnotationCSV(writeFile(t, "ann.csv", "item,labeler,label\n1,1,4\n"), 3, 2, 3)
			return err
		}, []string{"ann.csv:2", `"label"`, "4", "1..3"}},
		{"ReadAnnotationCSV missing column", "models: ", func(t *testing.T) error {
			_, err := models.ReadAnnotationCSV(writeFile(t, "ann.csv", "item,labeler\n1,1\n"), 3, 2, 3)
			return err
		}, []string{"ann.csv", `"label"`}},
		{"ReadAnnotationCSV non-numeric cell", "models: ", func(t *testing.T) error {
			_, err := models.ReadAnnotationCSV(writeFile(t, "ann.csv", "item,labeler,label\n1,1,1\n2,b,1\n"), 3, 2, 3)
			return err
		}, []string{"ann.csv:3", `"labeler"`, `"b"`}},
		{"ReadAnnotationCSV non-integer id", "models: ", func(t *testing.T) error {
			_, err := models.ReadAnnotationCSV(writeFile(t, "ann.csv", "item,labeler,label\n1,1,1\n1.5,1,1\n"), 3, 2, 3)
			return err
		}, []string{"ann.csv:3", `"item"`, "1.5"}},
		{"ReadAnnotationZ item twice", "models: ", func(t *testing.T) error {
			d := models.AnnotationData{NumItems: 2, NumLabelers: 1, NumClasses: 2}
			return models.ReadAnnotationZ(writeFile(t, "z.csv", "item,z\n1,1\n1,2\n"), &d)
		}, []string{"z.csv:3", `"item"`, "item 1"}},
		{"ReadAnnotationZ missing item", "models: ", func(t *testing.T) error {
			d := models.AnnotationData{NumItems: 3, NumLabelers: 1, NumClasses: 2}
			return models.ReadAnnotationZ(writeFile(t, "z.csv", "item,z\n1,1\n3,2\n"), &d)
		}, []string{"z.csv", "item 2"}},
		{"ReadAnnotationZ class out of range", "models: ", func(t *testing.T) error {
			d := models.AnnotationData{NumItems: 2, NumLabelers: 1, NumClasses: 2}
			return models.ReadAnnotationZ(writeFile(t, "z.csv", "item,z\n1,1\n2,3\n"), &d)
		}, []string{"z.csv:3", `"z"`, "3", "1..2"}},
		{"ReadAnnotationMeta non-integer count", "models: ", func(t *testing.T) error {
			_, err := models.ReadAnnotationMeta(writeFile(t, "meta.csv", "name,value\nN,10\nN_train,7.5\n"))
			return err
		}, []string{"meta.csv:3", "N_train", "7.5"}},
		{"ReadAnnotationMeta unknown name", "models: ", func(t *testing.T) error {
			_, err := models.ReadAnnotationMeta(writeFile(t, "meta.csv", "name,value\nN,10\nbogus,1\n"))
			return err
		}, []string{"meta.csv:3", `"bogus"`}},
		{"ReadCategoricalData out of range", "models: ", func(t *testing.T) error {
			_, err := models.ReadCategoricalData(writeFile(t, "cat.csv", "y\n1\n4\n5\n"), 4)
			return err
		}, []string{"cat.csv:4", `"y"`, "5", "1..4"}},
		{"ReadCountData negative", "models: ", func(t *testing.T) error {
			_, err := models.ReadCountData(writeFile(t, "counts.csv", "y\n3\n-2\n"))
			return err
		}, []string{"counts.csv:3", `"y"`, "-2"}},
		{"ReadBinomialData successes above trials", "models: ", func(t *testing.T) error {
			_, _, err := models.ReadBinomialData(writeFile(t, "bb.csv", "trials,successes\n20,3\n20,21\n"))
			return err
		}, []string{"bb.csv:3", `"successes"`, "21", "20"}},

		// graph.Builder.
		{"Vector size -1", "graph: ", build(func(b *graph.Builder) {
			b.Vector("beta", -1, graph.Normal(graph.C(0), graph.C(1)))
		}), []string{`"beta"`, "-1"}},
		{"plate shape 0", "graph: ", build(func(b *graph.Builder) {
			b.Latent("theta", graph.Normal(graph.C(0), graph.C(1)), 2, 0)
		}), []string{`"theta"`, "dimension"}},
		{"NaN observation", "graph: ", build(func(b *graph.Builder) {
			b.Observe("y", graph.Normal(stdNormal(b), graph.C(1)), []float64{1, nan, 3})
		}), []string{`"y"`, "element 1", "NaN"}},
		{"Inf in a data column", "graph: ", build(func(b *graph.Builder) {
			a := stdNormal(b)
			b.Observe("y", graph.Normal(graph.Mul(a, graph.Data([]float64{1, inf})), graph.C(1)), []float64{1, 2})
		}), []string{`"y"`, "element 1", "+Inf"}},
		{"negative scale", "graph: ", build(func(b *graph.Builder) {
			b.Observe("y", graph.Normal(stdNormal(b), graph.C(-2)), []float64{1})
		}), []string{`"y"`, "sigma", "-2"}},
		{"zero Gamma shape", "graph: ", build(func(b *graph.Builder) {
			b.Latent("lambda", graph.Gamma(graph.C(0), graph.C(1)))
		}), []string{`"lambda"`, "alpha", "0"}},
		{"Poisson observation -1", "graph: ", build(func(b *graph.Builder) {
			l := b.Latent("lambda", graph.Gamma(graph.C(2), graph.C(1)))
			b.ObserveInts("y", graph.Poisson(l), []int{3, -1})
		}), []string{`"y"`, "element 1", "-1"}},
		{"Bernoulli observation 0.5", "graph: ", build(func(b *graph.Builder) {
			b.Observe("y", graph.BernoulliLogit(stdNormal(b)), []float64{1, 0.5})
		}), []string{`"y"`, "element 1", "0.5"}},
		{"Categorical observation 3 of 3", "graph: ", build(func(b *graph.Builder) {
			p := b.Latent("p", graph.Dirichlet(graph.Vec(1, 1, 1)))
			b.ObserveInts("y", graph.Categorical(p), []int{0, 3})
		}), []string{`"y"`, "element 1", "3"}},
		{"duplicate name", "graph: ", build(func(b *graph.Builder) {
			stdNormal(b)
			b.Latent("a", graph.Normal(graph.C(0), graph.C(1)))
		}), []string{`"a"`}},
		{"observed name reused", "graph: ", build(func(b *graph.Builder) {
			a := stdNormal(b)
			b.Observe("a", graph.Normal(a, graph.C(1)), []float64{1})
		}), []string{`"a"`}},
		{"Index out of range", "graph: ", build(func(b *graph.Builder) {
			th := b.Latent("theta", graph.Normal(graph.C(0), graph.C(1)), 3)
			b.Observe("y", graph.Normal(graph.Index(th, []int{0, 2, 3}), graph.C(1)), []float64{1, 2, 3})
		}), []string{`"y"`, "Index", "3"}},
		{"By index out of range", "graph: ", build(func(b *graph.Builder) {
			th := b.Latent("theta", graph.Normal(graph.C(0), graph.C(1)), 2, 2)
			b.Observe("y", graph.Normal(graph.At(th, graph.By([]int{0, 1}), graph.By([]int{1, -1})), graph.C(1)), []float64{1, 2})
		}), []string{`"y"`, "-1"}},
		{"MatVec shape", "graph: ", build(func(b *graph.Builder) {
			beta := b.Vector("beta", 3, graph.Normal(graph.C(0), graph.C(1)))
			b.Observe("y", graph.BernoulliLogit(graph.MatVec(mat.NewDense(2, 2, nil), beta)), []float64{0, 1})
		}), []string{`"y"`, "MatVec", "2 columns", "3"}},
		{"observation count", "graph: ", build(func(b *graph.Builder) {
			a := stdNormal(b)
			b.Observe("y", graph.Normal(graph.Add(a, graph.Data([]float64{1, 2})), graph.C(1)), []float64{1, 2, 3})
		}), []string{`"y"`, "3 values", "2"}},
		{"nil node", "graph: ", build(func(b *graph.Builder) {
			b.Latent("x", graph.Normal(nil, graph.C(1)))
		}), []string{`"x"`, "nil"}},
		{"covariance not positive definite", "graph: ", build(func(b *graph.Builder) {
			b.Latent("m", graph.MultivariateNormal(graph.Vec(0, 0), mat.NewSymDense(2, []float64{1, 3, 3, 1})))
		}), []string{`"m"`, "positive definite"}},
		{"Dirichlet concentration negative", "graph: ", build(func(b *graph.Builder) {
			b.Latent("w", graph.Dirichlet(graph.Vec(1, 2, -0.5)))
		}), []string{`"w"`, "alpha[2]", "-0.5"}},

		// nmc.Sample options.
		{"Sample negative draws", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Draws: -5}), []string{"Options.Draws", "-5"}},
		{"Sample negative chains", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Chains: -1}), []string{"Options.Chains", "-1"}},
		{"Sample negative warm-up", "nmc: ", sample(nmc.Options{Warmup: -3}), []string{"Options.Warmup", "-3"}},
		{"Sample Init length", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Init: [][]float64{{0, 1, 2}}}), []string{"Options.Init[0]", "3 values", "want 2"}},
		{"Sample Init count", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Chains: 3, Init: [][]float64{{0, 1}, {0, 1}}}), []string{"Options.Init", "2 states", "3"}},
		{"Sample Init NaN", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Init: [][]float64{{0, nan}}}), []string{"Options.Init[0][1]", "NaN"}},
		{"Sample Init outside the support", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Init: [][]float64{{0, -1}}}), []string{"chain 0", `"sigma"`, "Options.Init"}},
		{"Sample negative first chain", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, FirstChain: -2}), []string{"Options.FirstChain", "-2"}},
		{"Sample CrankNicolson gamma 1.5", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Moves: []nmc.Move{nmc.SiteSteps{Real: nmc.RealProposal{Step: nmc.CrankNicolson{Gamma: 1.5}}}}}), []string{"SiteSteps.Real.Step", "CrankNicolson.Gamma", "1.5"}},
		{"Sample CrankNicolson gamma -0.1", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Moves: []nmc.Move{nmc.SiteSteps{Real: nmc.RealProposal{Step: nmc.CrankNicolson{Gamma: -0.1}}}}}), []string{"CrankNicolson.Gamma", "-0.1"}},
		{"Sample CrankNicolson target 1", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Moves: []nmc.Move{nmc.SiteSteps{Real: nmc.RealProposal{Step: nmc.CrankNicolson{TargetAccept: 1}}}}}), []string{"CrankNicolson.TargetAccept", "1"}},
		{"Sample BetaStep Beta(0, 1)", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Moves: []nmc.Move{nmc.SiteSteps{Real: nmc.RealProposal{Step: nmc.BetaStep{A: 0, B: 1}}}}}), []string{"SiteSteps.Real.Step", "Beta(0, 1)"}},
		{"Sample nil *BetaStep", "nmc: ", sample(nmc.Options{Warmup: nmc.NoWarmup, Moves: []nmc.Move{nmc.SiteSteps{Real: nmc.RealProposal{Step: (*nmc.BetaStep)(nil)}}}}), []string{"SiteSteps.Real.Step", "nil *BetaStep"}},
		{"Sample nil model", "nmc: ", func(*testing.T) error {
			_, err := nmc.Sample(context.Background(), nil, nil)
			return err
		}, []string{"nil model"}},

		// diagnostics.
		{"RHat ragged chains", "diagnostics: ", func(*testing.T) error {
			_, err := diagnostics.RHat(chains([]float64{1, 2, 3, 4}, []float64{1, 2, 3}))
			return err
		}, []string{"chain 1", "3", "4"}},
		{"ESSBulk ragged chains", "diagnostics: ", func(*testing.T) error {
			_, err := diagnostics.ESSBulk(chains([]float64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 4, 5}, []float64{1}))
			return err
		}, []string{"chain 2", "1", "5"}},
		{"Quantile p = 1.5", "diagnostics: ", func(*testing.T) error {
			_, err := diagnostics.Quantile(chains([]float64{1, 2, 3, 4}), 1.5)
			return err
		}, []string{"1.5", "[0, 1]"}},
		{"MCSEQuantile p = -0.2", "diagnostics: ", func(*testing.T) error {
			_, err := diagnostics.MCSEQuantile(chains([]float64{1, 2, 3, 4}, []float64{2, 3, 4, 5}), -0.2)
			return err
		}, []string{"-0.2", "[0, 1]"}},
		{"ESSQuantile p = NaN", "diagnostics: ", func(*testing.T) error {
			_, err := diagnostics.ESSQuantile(chains([]float64{1, 2, 3, 4}, []float64{2, 3, 4, 5}), nan)
			return err
		}, []string{"NaN"}},
		{"Summarize quantile 2", "diagnostics: ", func(*testing.T) error {
			d := &draws.Draws{Names: []string{"a"}, Chains: [][]float64{{1, 2, 3, 4}}}
			_, err := diagnostics.Summarize(d, &diagnostics.SummaryOptions{Quantiles: []float64{0.5, 2}})
			return err
		}, []string{"2", "[0, 1]"}},
		{"Summarize unknown variable", "diagnostics: ", func(*testing.T) error {
			d := &draws.Draws{Names: []string{"a"}, Chains: [][]float64{{1, 2, 3, 4}}}
			_, err := diagnostics.Summarize(d, &diagnostics.SummaryOptions{Variables: []string{"zeta"}})
			return err
		}, []string{`"zeta"`}},
		{"RunningPLL row length", "diagnostics: ", func(*testing.T) error {
			r := diagnostics.NewRunningPLL(3)
			if err := r.Add([]float64{-1, -2, -3}); err != nil {
				return fmt.Errorf("unexpected: %w", err)
			}
			return r.Add([]float64{-1, -2})
		}, []string{"draw 1", "2", "J = 3"}},
		{"PLLCurve NaN", "diagnostics: ", func(*testing.T) error {
			_, err := diagnostics.PLLCurve([][]float64{{-1, -2}, {-1, nan}})
			return err
		}, []string{"draw 1", "1", "NaN"}},
	}
}

// TestMalformedInputs gives each public entry point malformed input and checks that
// it returns an error, without panicking, that names the package and the place.
func TestMalformedInputs(t *testing.T) {
	cases := malformedCases()
	if len(cases) < 50 {
		t.Fatalf("only %d malformed-input cases, want at least 50", len(cases))
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("two cases named %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				err = c.run(t)
			}()
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			msg := err.Error()
			if strings.HasPrefix(msg, "unexpected: ") {
				t.Fatalf("valid part of the input was rejected: %v", err)
			}
			if !strings.HasPrefix(msg, c.prefix) {
				t.Errorf("error %q does not start with %q", msg, c.prefix)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			// errors.Join puts one failure per line (one per chain): each line
			// must then stand on its own.
			for _, line := range strings.Split(msg, "\n") {
				if !strings.HasPrefix(line, c.prefix) || strings.Contains(line, "\r") {
					t.Errorf("error line %q does not start with %q", line, c.prefix)
				}
			}
		})
	}
}

// TestMalformedCaseSanity checks that the well-formed inputs the cases start from
// are accepted, so that each case fails for the reason it is about.
func TestMalformedCaseSanity(t *testing.T) {
	if _, err := frames.ReadCSV(strings.NewReader("chain,draw,a,b\n0,0,1,2\n0,1,3,4\n1,0,5,6\n"), "draws.csv"); err != nil {
		t.Errorf("ReadCSV: %v", err)
	}
	if _, err := frames.ReadCmdStanCSV(strings.NewReader("# c\nlp__,beta.1,beta.2\n-1,0.5,1\n"), "stan.csv"); err != nil {
		t.Errorf("ReadCmdStanCSV: %v", err)
	}
	if _, err := frames.ReadTable(strings.NewReader("y,x1,x2\n1,2,3\n\n1,2,3\n"), "data.csv"); err != nil {
		t.Errorf("ReadTable: %v", err)
	}
	if _, err := models.ReadAnnotationCSV(writeFile(t, "ann.csv", "item,labeler,label\n1,1,1\n3,2,3\n"), 3, 2, 3); err != nil {
		t.Errorf("ReadAnnotationCSV: %v", err)
	}
	if _, err := models.ReadRegressionCSV(writeFile(t, "blr.csv", "y,x1,x2\n1,2,3\n0,1,2\n")); err != nil {
		t.Errorf("ReadRegressionCSV: %v", err)
	}
	res, err := nmc.Sample(context.Background(), smallModel(t), &nmc.Options{Warmup: nmc.NoWarmup, Chains: 2, Draws: 5, Init: [][]float64{{0, 1}}})
	if err != nil {
		t.Errorf("Sample: %v", err)
	} else if n := res.Draws.NumDraws(1); n != 5 {
		t.Errorf("Sample: chain 1 has %d draws, want 5", n)
	}
	b := graph.New()
	th := b.Latent("theta", graph.Normal(graph.C(0), graph.C(1)), 3)
	b.Observe("y", graph.Normal(graph.Index(th, []int{0, 2, 2}), graph.C(1)), []float64{1, 2, 3})
	if _, err := b.Build(); err != nil {
		t.Errorf("Build: %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	x := [][]float64{make([]float64, 20), make([]float64, 20)}
	for _, ch := range x {
		for i := range ch {
			ch[i] = rng.NormFloat64()
		}
	}
	if _, err := diagnostics.Quantile(x, 1); err != nil {
		t.Errorf("Quantile(1): %v", err)
	}
}

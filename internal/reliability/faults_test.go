package reliability

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nmc-go/nmc/draws"
	"github.com/nmc-go/nmc/frames"
	"github.com/nmc-go/nmc/models"
	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/graph"
)

// twoNormals is a hand-written nmc.Model of two independent Real sites, alpha ~
// N(1, 2²) and beta ~ N(−3, 0.5²). When trap is set, the scorer of the chain whose
// first evaluated state has alpha = trapAlpha panics inside Score for site beta at
// its trapCall-th evaluation of beta: a bug in user code hit by one chain only.
type twoNormals struct {
	trap      bool
	trapAlpha float64
	trapCall  int
}

var twoNormalsMean, twoNormalsSD = [2]float64{1, -3}, [2]float64{2, 0.5}

func (m *twoNormals) Sites() []nmc.Site {
	return []nmc.Site{{Name: "alpha", Size: 1, Support: nmc.Real}, {Name: "beta", Size: 1, Support: nmc.Real}}
}

func (m *twoNormals) NewScorer() nmc.Scorer { return &twoNormalsScorer{m: m} }

func (m *twoNormals) Init(rng *rand.Rand, x []float64) error {
	for i := range x {
		x[i] = twoNormalsMean[i] + twoNormalsSD[i]*rng.NormFloat64()
	}
	return nil
}

type twoNormalsScorer struct {
	m          *twoNormals
	seen       bool
	firstAlpha float64
	betaCalls  int
}

func (s *twoNormalsScorer) Score(x []float64, i int, grad, hess []float64) float64 {
	if !s.seen {
		s.seen, s.firstAlpha = true, x[0]
	}
	if i == 1 {
		s.betaCalls++
		if s.m.trap && s.firstAlpha == s.m.trapAlpha && s.betaCalls == s.m.trapCall {
			var table []float64
			_ = table[s.betaCalls] // index out of range: a typical bug in model code
		}
	}
	z := (x[i] - twoNormalsMean[i]) / twoNormalsSD[i]
	if grad != nil {
		grad[0] = -z / twoNormalsSD[i]
		hess[0] = -1 / (twoNormalsSD[i] * twoNormalsSD[i])
	}
	return -0.5 * z * z
}

func (s *twoNormalsScorer) LogJoint(x []float64) float64 {
	return s.Score(x, 0, nil, nil) + s.Score(x, 1, nil, nil)
}

// TestPanicInOneChain runs four chains of a hand-written model whose Score panics
// in chain 2 only. Sample must return an error naming chain 2 and site beta, chains
// 0, 1 and 3 must hold exactly the draws of a run without the bug (same seed), and
// chain 2 must hold a prefix of its clean draws.
func TestPanicInOneChain(t *testing.T) {
	const draws = 200
	init := [][]float64{{0, 0}, {1, -2}, {42, -3}, {-1, -4}}
	opts := func() *nmc.Options {
		return &nmc.Options{Warmup: nmc.NoWarmup, Chains: 4, Draws: draws, Seed: 17, Init: init}
	}
	clean, err := nmc.Sample(context.Background(), &twoNormals{}, opts())
	if err != nil {
		t.Fatal(err)
	}
	res, err := nmc.Sample(context.Background(), &twoNormals{trap: true, trapAlpha: 42, trapCall: 120}, opts())
	if err == nil {
		t.Fatal("no error from a run whose chain 2 panicked")
	}
	if res == nil {
		t.Fatalf("no result with the error %v", err)
	}
	msg := err.Error()
	for _, w := range []string{"nmc: chain 2", `site "beta"`, "panic", "index out of range"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
	for _, c := range []string{"chain 0", "chain 1", "chain 3"} {
		if strings.Contains(msg, c) {
			t.Errorf("error %q blames %s, which did not fail", msg, c)
		}
	}
	for c := range 4 {
		got, want := res.Draws.Chains[c], clean.Draws.Chains[c]
		if c == 2 {
			n := res.Draws.NumDraws(2)
			if n >= draws || n == 0 {
				t.Fatalf("chain 2 has %d draws, want some but fewer than %d", n, draws)
			}
			want = want[:len(got)]
		}
		if len(got) != len(want) {
			t.Fatalf("chain %d has %d values, want %d", c, len(got), len(want))
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("chain %d value %d is %v, want %v (as in the run without the panic)", c, i, got[i], want[i])
			}
		}
	}
	// The partial result is still written and read back as valid draws.
	var buf bytes.Buffer
	if err := res.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := frames.ReadCSV(&buf, "partial.csv")
	if err != nil {
		t.Fatalf("draws of the failed run do not read back: %v", err)
	}
	for c := range 4 {
		if back.NumDraws(c) != res.Draws.NumDraws(c) {
			t.Errorf("chain %d: %d draws read back, %d written", c, back.NumDraws(c), res.Draws.NumDraws(c))
		}
	}
}

// slowModel returns a logistic regression large enough that 10⁵ draws take far
// longer than the test waits.
func slowModel(t *testing.T) nmc.Model {
	t.Helper()
	train, _, _, err := models.GenerateLogistic(rand.New(rand.NewPCG(3, 0)), 400, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := models.Logistic(train, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b.Model
}

// TestCancelledRunWritesValidCSV cancels a long run and checks that the draws
// completed so far are a valid, complete CSV through Result.WriteCSV and
// frames.WriteCSVFile, with no NaN and every row whole.
func TestCancelledRunWritesValidCSV(t *testing.T) {
	m := slowModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const draws = 100000
	started := make(chan struct{}, 64)
	go func() {
		<-started
		time.Sleep(150 * time.Millisecond)
		cancel()
	}()
	res, err := nmc.Sample(ctx, m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 3, Draws: draws, Seed: 5, Progress: func(p nmc.Progress) {
		if p.Done > 0 {
			select {
			case started <- struct{}{}:
			default:
			}
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled", err)
	}
	if res == nil {
		t.Fatal("no result after cancellation")
	}
	total := 0
	for c := range 3 {
		n := res.Draws.NumDraws(c)
		if n >= draws {
			t.Fatalf("chain %d finished all %d draws; the cancellation came too late to test anything", c, n)
		}
		if len(res.Draws.Chains[c])%len(res.Draws.Names) != 0 {
			t.Fatalf("chain %d holds %d values, not whole rows of %d", c, len(res.Draws.Chains[c]), len(res.Draws.Names))
		}
		for i, v := range res.Draws.Chains[c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("chain %d value %d is %v", c, i, v)
			}
		}
		total += n
	}
	if total == 0 {
		t.Fatal("no draws were completed before the cancellation")
	}

	var buf bytes.Buffer
	if err := res.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "draws.csv")
	if err := frames.WriteCSVFile(path, res.Draws); err != nil {
		t.Fatal(err)
	}
	fileBytes, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fileBytes, buf.Bytes()) {
		t.Fatal("WriteCSVFile and Result.WriteCSV wrote different bytes")
	}
	if !bytes.HasSuffix(fileBytes, []byte("\n")) {
		t.Fatal("the CSV does not end with a complete line")
	}
	back, err := frames.ReadCSV(bytes.NewReader(fileBytes), path)
	if err != nil {
		t.Fatalf("the CSV of the cancelled run does not read back: %v", err)
	}
	for c := range 3 {
		want := res.Draws.Chains[c]
		if c < back.NumChains() {
			got := back.Chains[c]
			if len(got) != len(want) {
				t.Fatalf("chain %d: %d values read back, %d written", c, len(got), len(want))
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("chain %d value %d read back as %v, written %v", c, i, got[i], want[i])
				}
			}
		} else if len(want) != 0 {
			t.Fatalf("chain %d with %d values is missing from the CSV", c, len(want))
		}
	}
}

// failingWriter accepts n bytes, then fails every write, like a full disk.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	k := w.n
	w.n = 0
	return k, errors.New("no space left on device")
}

// smallDraws returns 2 chains × 3000 draws of 3 parameters: about 200 kB of CSV.
func smallDraws() *draws.Draws {
	rng := rand.New(rand.NewPCG(8, 8))
	d := &draws.Draws{Names: []string{"mu", "sigma", "theta[0,1]"}, Chains: make([][]float64, 2)}
	for c := range d.Chains {
		for range 3000 * 3 {
			d.Chains[c] = append(d.Chains[c], rng.NormFloat64())
		}
	}
	return d
}

// TestWriteFailures checks that writes that cannot complete return an error and
// leave no file that could pass for a complete one.
func TestWriteFailures(t *testing.T) {
	d := smallDraws()
	for _, n := range []int{0, 10, 70000} {
		if err := frames.WriteCSV(&failingWriter{n: n}, d); err == nil || !strings.Contains(err.Error(), "no space left") {
			t.Errorf("WriteCSV to a writer failing after %d bytes: error %v", n, err)
		}
	}
	res := &nmc.Result{Draws: d}
	if err := res.WriteCSV(&failingWriter{n: 5000}); err == nil {
		t.Error("Result.WriteCSV to a failing writer: no error")
	}

	dir := t.TempDir()
	notDir := filepath.Join(dir, "plain")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
	}{
		{"parent is a file", filepath.Join(notDir, "draws.csv")},
		{"missing directory", filepath.Join(dir, "no", "such", "dir", "draws.csv")},
		{"a directory", dir},
		{"/proc", "/proc/nmc-reliability-draws.csv"},
	} {
		err := frames.WriteCSVFile(c.path, d)
		if err == nil {
			t.Errorf("%s: WriteCSVFile(%s) succeeded", c.name, c.path)
			continue
		}
		if !strings.HasPrefix(err.Error(), "frames: ") || !strings.Contains(err.Error(), filepath.Base(c.path)) {
			t.Errorf("%s: error %q does not name the file", c.name, err)
		}
		if c.path == dir {
			continue
		}
		for _, p := range []string{c.path, c.path + ".tmp"} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s: %s exists after a failed write", c.name, p)
			}
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("WriteCSVFile onto a directory damaged it: %v", err)
	}

	// A read-only directory (only meaningful when not running as root, who may write
	// anyway).
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	if probe, err := os.Create(filepath.Join(ro, "probe")); err == nil {
		probe.Close()
		os.Remove(probe.Name())
		t.Log("running as root: the read-only directory case is covered by the cases above")
	} else {
		p := filepath.Join(ro, "draws.csv")
		if err := frames.WriteCSVFile(p, d); err == nil {
			t.Error("WriteCSVFile into a read-only directory succeeded")
		}
		if entries, _ := os.ReadDir(ro); len(entries) != 0 {
			t.Errorf("files left in the read-only directory: %v", entries)
		}
	}
}

// TestWriteToDevFull writes draws to /dev/full, which fails every write with
// ENOSPC: an error, and /dev/full must still be the device afterwards (not a
// regular file renamed over it).
func TestWriteToDevFull(t *testing.T) {
	fi, err := os.Stat("/dev/full")
	if err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Skip("no /dev/full device")
	}
	err = frames.WriteCSVFile("/dev/full", smallDraws())
	if err == nil || !strings.Contains(err.Error(), "/dev/full") {
		t.Errorf("WriteCSVFile(/dev/full): error %v, want one naming /dev/full", err)
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Fatalf("/dev/full is no longer a device: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat("/dev/full.tmp"); err == nil {
		t.Error("/dev/full.tmp left behind")
	}
	if err := models.WriteRegressionCSV("/dev/full", regressionData(t)); err == nil {
		t.Error("models.WriteRegressionCSV(/dev/full) succeeded")
	}
}

// regressionData returns a small valid regression data set.
func regressionData(t *testing.T) models.RegressionData {
	t.Helper()
	train, _, _, err := models.GenerateLogistic(rand.New(rand.NewPCG(4, 0)), 2000, 3)
	if err != nil {
		t.Fatal(err)
	}
	return train
}

// TestCancelledDeriverRun cancels a graph model with derived quantities (eight
// schools, non-centred): every row of the partial result must be whole, its
// derived columns consistent with the sampled ones.
func TestCancelledDeriverRun(t *testing.T) {
	b := graph.New()
	mu := b.Latent("mu", graph.Normal(graph.C(0), graph.C(5)))
	tau := b.Latent("tau", graph.HalfNormal(graph.C(1)))
	th := b.Latent("theta_raw", graph.Normal(graph.C(0), graph.C(1)), 8)
	theta := graph.Add(mu, graph.Mul(tau, th))
	b.Deterministic("theta", theta)
	b.Observe("y", graph.Normal(theta, graph.C(10)), []float64{28, 8, -3, 7, -1, 1, 18, 12})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel 50 ms after both chains reported progress, so that each has draws
	// however loaded the machine is.
	started := make(chan int, 1024)
	go func() {
		seen := map[int]bool{}
		for c := range started {
			if seen[c] = true; len(seen) == 2 {
				time.Sleep(50 * time.Millisecond)
				cancel()
				return
			}
		}
	}()
	res, err := nmc.Sample(ctx, m, &nmc.Options{Warmup: nmc.NoWarmup, Chains: 2, Draws: 1 << 22, Seed: 2, Progress: func(p nmc.Progress) {
		if p.Done > 0 {
			select {
			case started <- p.Chain:
			default:
			}
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled", err)
	}
	if want := 10 + 8; len(res.Draws.Names) != want {
		t.Fatalf("%d columns, want %d", len(res.Draws.Names), want)
	}
	var buf bytes.Buffer
	if err := res.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := frames.ReadCSV(&buf, "deriver.csv")
	if err != nil {
		t.Fatal(err)
	}
	if back.NumChains() != 2 {
		t.Fatalf("%d chains read back, want 2 (draws per chain: %d, %d)", back.NumChains(), res.Draws.NumDraws(0), res.Draws.NumDraws(1))
	}
	for c := range 2 {
		if back.NumDraws(c) != res.Draws.NumDraws(c) {
			t.Errorf("chain %d: %d draws read back, %d written", c, back.NumDraws(c), res.Draws.NumDraws(c))
		}
		// theta[j] = mu + tau·theta_raw[j] in every row: a row was not half-written.
		p := len(res.Draws.Names)
		ch := res.Draws.Chains[c]
		for r := 0; r+p <= len(ch); r += p {
			row := ch[r : r+p]
			for j := range 8 {
				if want := row[0] + row[1]*row[2+j]; math.Abs(row[10+j]-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("chain %d draw %d: theta[%d] = %v, want %v", c, r/p, j, row[10+j], want)
				}
			}
		}
	}
}

package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nmc-go/nmc/nmc"
)

// TestMarginalSimpleMatchesProduct checks the fast path of simple summed-out groups
// (margSimple: cached products, derivatives from the active site's picks, the sums
// of all groups multiplied before one log: margSum) against the general product
// path (margProduct, everything from the state at each call, one log per group) on
// a Dawid-Skene model: scores, gradients and Hessians of every continuous site and
// the log joint at random states, with and without the cache having seen earlier
// states. The product of the groups' sums leaves [accMin, accMax] many times over,
// so margSum's renormalisation is exercised; some confusion entries are set so small
// that products leave [prodMin, prodMax] (the log-domain fallback).
func TestMarginalSimpleMatchesProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	checkSimpleMatchesProduct(t, rng, makeDS(rng, 200, 5, 3, 3), 1e-140)
}

// TestMarginalUnrolledMatchesLoop checks margSum's loops for particular layouts
// (margSumDense, margSumDense3, margSumDenseValue: the weights' score and the log
// joint; margSumOne: a confusion row read once per item) against the loop of
// margSumLive1, which they must equal bit for bit, and against the general product
// path as TestMarginalSimpleMatchesProduct does, on a Dawid-Skene model whose items
// have three labels by different labelers. Every tenth step a confusion entry is
// set so small (1e-260) that the products that read it leave [prodMin, prodMax]
// (the fallback to margLSE inside those loops), and every tenth step, five steps
// later, a weight is set so small (1e-251) that products of entries within range
// leave it (productsInRange must then be false).
func TestMarginalUnrolledMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 3))
	ds := distinctLabelers(rng, makeDS(rng, 300, 12, 3, 3))
	fast := buildDS(t, ds, true)
	plain := buildDS(t, ds, true)
	ones := 0
	for i := range plain.margPicks {
		sp := &plain.margPicks[i]
		if sp.one != nil {
			ones++
		}
		sp.one, sp.dense, sp.uniform = nil, false, false
		if fast.Sites()[i].Name == "pi" && !(fast.margPicks[i].dense && fast.margPicks[i].uniform && fast.margPicks[i].diag) {
			t.Fatal("the weights' groups are not dense with uniform picks at increasing values")
		}
	}
	plain.allRefs.dense = false
	if ones != ds.labelers*ds.classes {
		t.Fatalf("%d confusion rows read once per item, want all %d", ones, ds.labelers*ds.classes)
	}
	sites := fast.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	if err := fast.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	fs, ps := fast.NewScorer(), plain.NewScorer()
	piSite := slices.IndexFunc(sites, func(s nmc.Site) bool { return s.Name == "pi" })
	for step := range 300 {
		i := rng.IntN(len(sites))
		s := sites[i]
		if s.Support == nmc.Discrete {
			continue
		}
		xi := x[off[i] : off[i]+s.Size]
		saved := append([]float64(nil), xi...)
		perturb(rng, s, xi, 0.5)
		if step%10 == 0 && s.Name != "pi" {
			xi[rng.IntN(len(xi))] = 1e-260
		}
		var piSaved []float64
		if step%10 == 5 {
			// Every cached product in range, but times this weight they leave
			// [prodMin, prodMax]: the loops must not skip their checks.
			pi := x[off[piSite] : off[piSite]+ds.classes]
			piSaved = append(piSaved, pi...)
			pi[rng.IntN(len(pi))] = 1e-251
		}
		k := s.Size
		ga, ha, gb, hb := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
		same := func(what string, a, b float64) {
			if math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("step %d site %s: %s %v, margSumLive1's loop %v", step, s.Name, what, a, b)
			}
		}
		same("score", fs.Score(x, i, ga, ha), ps.Score(x, i, gb, hb))
		for c := range ga {
			same("gradient", ga[c], gb[c])
		}
		for c := range ha {
			same("Hessian", ha[c], hb[c])
		}
		same("score without derivatives", fs.Score(x, i, nil, nil), ps.Score(x, i, nil, nil))
		same("log joint", fs.LogJoint(x), ps.LogJoint(x))
		if piSaved != nil {
			copy(x[off[piSite]:], piSaved)
		}
		if rng.IntN(2) == 0 {
			copy(xi, saved) // rejected
		}
	}
	checkSimpleMatchesProduct(t, rng, ds, 1e-260)
}

// distinctLabelers redraws the labelers of d so that each item's labels (perItem
// consecutive ones) are by different labelers.
func distinctLabelers(rng *rand.Rand, d dsData) dsData {
	for i := 0; i < len(d.item); {
		j := i
		for j < len(d.item) && d.item[j] == d.item[i] {
			j++
		}
		for a := i; a < j; a++ {
			for b := i; b < a; b++ {
				if d.labeler[a] == d.labeler[b] {
					d.labeler[a] = rng.IntN(d.labelers)
					b = i - 1 // check again from the first
				}
			}
		}
		i = j
	}
	return d
}

// checkSimpleMatchesProduct is TestMarginalSimpleMatchesProduct on ds, with tiny
// the value of the confusion entry set small every tenth step.
func checkSimpleMatchesProduct(t *testing.T, rng *rand.Rand, ds dsData, tiny float64) {
	t.Helper()
	fast := buildDS(t, ds, true)
	slow := buildDS(t, ds, true)
	nSimple := 0
	for gi := range slow.marg {
		if slow.marg[gi].simple {
			nSimple++
		}
		slow.marg[gi].simple = false // margLSE takes margProduct
	}
	slow.compileMarginalPicks() // margSum's references without the simple groups
	for _, r := range slow.allRefs.refs {
		if r.pOff >= 0 {
			t.Fatalf("group %d still scored as simple", r.gi)
		}
	}
	if fast.sharedLive == nil {
		t.Fatal("the groups' live elements (pi) are not shared")
	}
	if nSimple != ds.items {
		t.Fatalf("%d simple groups, want one per item (%d)", nSimple, ds.items)
	}
	sites := fast.Sites()
	off := nmc.Offsets(sites)
	x := make([]float64, nmc.Dim(sites))
	if err := fast.Init(rng, x); err != nil {
		t.Fatal(err)
	}
	var cont []int
	for i, s := range sites {
		if s.Support != nmc.Discrete {
			cont = append(cont, i)
		}
	}
	fs, ss := fast.NewScorer(), slow.NewScorer()
	for step := range 300 {
		i := cont[rng.IntN(len(cont))]
		s := sites[i]
		xi := x[off[i] : off[i]+s.Size]
		saved := append([]float64(nil), xi...)
		perturb(rng, s, xi, 0.5)
		small := step%10 == 0 && s.Name != "pi"
		if small {
			// A confusion entry so small that the products of the items that read
			// it (twice, at 1e-140) leave [prodMin, prodMax]: those groups go
			// through margLSE.
			xi[rng.IntN(len(xi))] = tiny
		}
		k := s.Size
		ga, ha, gb, hb := make([]float64, k), make([]float64, k*k), make([]float64, k), make([]float64, k*k)
		a, b := fs.Score(x, i, ga, ha), ss.Score(x, i, gb, hb)
		if !close(a, b, 1e-12) {
			t.Fatalf("step %d site %s: score %v, general path %v", step, s.Name, a, b)
		}
		if a, b := fs.LogJoint(x), ss.LogJoint(x); !close(a, b, 1e-12) {
			t.Fatalf("step %d: log joint %v, general path %v", step, a, b)
		}
		if step == 0 {
			logs := 0.0
			for gi := range slow.marg {
				logs += ss.(*scorer).margLSE(gi, false, nil)
			}
			if logs > 5*math.Log(accMin) {
				t.Fatalf("the groups' log sums add up to %g: margSum would not renormalise", logs)
			}
		}
		for c := range ga {
			if !close(ga[c], gb[c], 1e-12) {
				t.Fatalf("step %d site %s: gradient[%d] %v, general path %v", step, s.Name, c, ga[c], gb[c])
			}
		}
		for c := range ha {
			if small {
				// Terms of order 1/p² = 1e280 cancel in the Hessian, whose two
				// algebraically equal forms (one value: r(1 − r)·g gᵀ; general:
				// r·g gᵀ − ḡḡᵀ) then round differently; score and gradient are compared.
				break
			}
			if !close(ha[c], hb[c], 1e-10) {
				t.Fatalf("step %d site %s: Hessian[%d] %v, general path %v", step, s.Name, c, ha[c], hb[c])
			}
		}
		if small || rng.IntN(2) == 0 {
			copy(xi, saved) // rejected
		}
	}
}

// TestProdBits checks prodOK's constants and prodOK against its definition.
func TestProdBits(t *testing.T) {
	if math.Float64bits(prodMin) != prodMinBits || math.Float64bits(prodMax) != prodMaxBits {
		t.Fatalf("prodMinBits, prodMaxBits = %#x, %#x; want %#x, %#x", uint64(prodMinBits), uint64(prodMaxBits), math.Float64bits(prodMin), math.Float64bits(prodMax))
	}
	for _, p := range []float64{0, math.Copysign(0, -1), prodMin, prodMax, math.Nextafter(prodMin, 0), math.Nextafter(prodMax, math.Inf(1)),
		1, 0.5, 1e-300, 5e-324, 1e300, -1, -prodMin, math.Inf(1), math.Inf(-1), math.NaN()} {
		if want := p == 0 || p >= prodMin && p <= prodMax; prodOK(p) != want {
			t.Errorf("prodOK(%g) = %v, want %v", p, !want, want)
		}
	}
}

// TestAccBits checks accOK's constants and accOK against its definition.
func TestAccBits(t *testing.T) {
	if math.Float64bits(accMin) != accMinBits || math.Float64bits(accMax) != accMaxBits {
		t.Fatalf("accMinBits, accMaxBits = %#x, %#x; want %#x, %#x", uint64(accMinBits), uint64(accMaxBits), math.Float64bits(accMin), math.Float64bits(accMax))
	}
	for _, a := range []float64{0, math.Copysign(0, -1), accMin, accMax, math.Nextafter(accMin, 0), math.Nextafter(accMax, math.Inf(1)),
		1, 0.5, 1e-300, 1e300, -1, -accMin, math.Inf(1), math.NaN()} {
		if want := a >= accMin && a <= accMax; accOK(a) != want {
			t.Errorf("accOK(%g) = %v, want %v", a, !want, want)
		}
	}
}

// TestMarginalRecomputeAllMatchesEntries checks margRecomputeAll, which forms the
// product-cache entries group by group (unrolled for three values), against
// margEntry of each entry's coordinates, bit for bit, on Dawid-Skene models with
// three classes (the unrolled loop) and four (the general one) and on a model whose
// group's elements read no coordinate at some values (lim < values), at states with
// coordinates set to 0, −0, negative, NaN, +Inf and values so small or large that the
// products leave [prodMin, prodMax]; and the bounds it keeps (margBounds) against
// the entries'.
func TestMarginalRecomputeAllMatchesEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 5))
	models := map[string]*Model{
		"three classes": buildDS(t, makeDS(rng, 60, 5, 3, 4), true),
		"four classes":  buildDS(t, makeDS(rng, 60, 5, 4, 4), true),
		"short rows":    buildShortRows(t),
	}
	odd := []float64{0, math.Copysign(0, -1), -0.5, math.NaN(), math.Inf(1), 1e-130, 1e-300, 1e200, math.MaxFloat64, 5e-324}
	for name, m := range models {
		if len(m.cacheGroups) == 0 {
			t.Fatalf("%s: no simple groups", name)
		}
		three, short := false, false
		for _, g := range m.cacheGroups {
			three = three || (g.values == 3 && g.full)
			short = short || !g.full
		}
		switch name {
		case "three classes":
			if !three {
				t.Fatalf("%s: no group takes the unrolled loop", name)
			}
		case "short rows":
			if !short {
				t.Fatalf("%s: no group with an element that reads no coordinate at some value", name)
			}
		}
		sites := m.Sites()
		x := make([]float64, nmc.Dim(sites))
		sc := m.newScorer()
		for trial := range 200 {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			for range trial % 6 {
				x[m.readCoord[rng.IntN(len(m.readCoord))]] = odd[rng.IntN(len(odd))]
			}
			sc.x = x
			sc.mc = margCache{}
			sc.margSync()
			for e, got := range sc.mc.p {
				want := sc.margEntry(m.entryCoord[m.entryStart[e]:m.entryStart[e+1]])
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, trial %d: entry %d is %v, margEntry gives %v", name, trial, e, got, want)
				}
			}
			// The bounds it kept are those of the entries.
			lo, hi, ok := sc.margBounds()
			wlo, whi, wnan := math.Inf(1), 0.0, false
			for _, p := range sc.mc.p {
				switch {
				case math.IsNaN(p):
					wnan = true
				case p != 0:
					wlo, whi = min(wlo, p), max(whi, p)
				}
			}
			if lo != wlo || hi != whi || ok == wnan {
				t.Fatalf("%s, trial %d: bounds %v %v ok %v, entries give %v %v NaN %v", name, trial, lo, hi, ok, wlo, whi, wnan)
			}
		}
	}
}

// buildShortRows declares a Dawid-Skene model whose classes z take three values but
// whose confusion rows cover two classes: a label read at z = 2 selects no
// coordinate (its element's lim is 2), so that class has probability 0. The classes
// are summed out.
func buildShortRows(t testing.TB) *Model {
	t.Helper()
	item := []int{0, 0, 1, 2, 2, 3}
	labeler := []int{0, 1, 1, 0, 1, 0}
	y := []int{0, 2, 1, 1, 0, 2}
	b := New()
	pi := b.Latent("pi", Dirichlet(Vec(1, 1, 1)))
	z := b.Latent("z", Categorical(pi), 4)
	theta := b.Latent("theta", Dirichlet(Vec(1, 1, 1)), 2, 2)
	b.ObserveInts("y", Categorical(At(theta, By(labeler), ByNode(Index(z, item)))), y)
	b.Marginalise(z)
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestProductsInRange checks productsInRange against products and sums formed and
// checked one by one: whenever it reports true, every product of an entry drawn
// from {0, lo, hi} and (lo, hi) with a weight of t, and every group's sum, is 0 or
// in [prodMin, prodMax]; and it reports false for cases just outside.
func TestProductsInRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 7))
	trues := 0
	for trial := range 20000 {
		lo := math.Pow(10, -260+rng.Float64()*260)
		hi := lo * math.Pow(10, rng.Float64()*20)
		if trial%3 == 0 {
			hi = math.Pow(10, 240+rng.Float64()*20)
		}
		nv := 1 + rng.IntN(5)
		w := make([]float64, nv)
		for v := range w {
			if rng.IntN(5) > 0 {
				w[v] = math.Pow(10, -20+rng.Float64()*40)
			}
		}
		if !productsInRange(lo, hi, w) {
			continue
		}
		trues++
		for range 20 {
			sum := 0.0
			for v := range w {
				var e float64
				switch rng.IntN(4) {
				case 0:
				case 1:
					e = lo
				case 2:
					e = hi
				default:
					e = lo + (hi-lo)*rng.Float64()
				}
				p := e * w[v]
				if !prodOK(p) {
					t.Fatalf("lo %g hi %g weights %v: product %g·%g = %g out of range", lo, hi, w, e, w[v], p)
				}
				sum += p
			}
			if !prodOK(sum) {
				t.Fatalf("lo %g hi %g weights %v: sum %g out of range", lo, hi, w, sum)
			}
		}
	}
	if trues < 1000 {
		t.Fatalf("productsInRange was true in only %d cases", trues)
	}
	for _, c := range []struct {
		lo, hi float64
		w      []float64
	}{
		{1e-200, 1, []float64{1e-51, 1, 1}},      // lo·w below prodMin
		{1e-10, 1e240, []float64{1e10, 1e-3, 0}}, // hi·w above prodMax/6
		{1e-10, 1, []float64{math.Inf(1)}},
	} {
		if productsInRange(c.lo, c.hi, c.w) {
			t.Errorf("productsInRange(%g, %g, %v) = true", c.lo, c.hi, c.w)
		}
	}
}

// TestWeighValuesMatchesGroupWeights checks WeighValues, which skips groupWeights's
// checks when the product cache's bounds prove they pass, against groupWeights of
// each site, bit for bit, with the same refusals, on Dawid-Skene models with three
// and four classes at random states, some with a weight so small (1e-251) or a
// confusion entry so small (1e-260) that products leave [prodMin, prodMax], some
// with a weight of 0 (its value then has weight 0 without a product), some with
// every weight 0 (every site refused).
func TestWeighValuesMatchesGroupWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 9))
	for _, classes := range []int{3, 4} {
		ds := makeDS(rng, 80, 6, classes, 3)
		m := buildDS(t, ds, true)
		sites := m.Sites()
		off := nmc.Offsets(sites)
		piSite := slices.IndexFunc(sites, func(s nmc.Site) bool { return s.Name == "pi" })
		var zs []int
		for i, s := range sites {
			if s.Marginalised {
				zs = append(zs, i)
			}
		}
		x := make([]float64, nmc.Dim(sites))
		sc := m.newScorer()
		w, want := make([]float64, classes*len(zs)), make([]float64, classes)
		ok := make([]bool, len(zs))
		fast, refused := 0, 0
		for trial := range 300 {
			if err := m.Init(rng, x); err != nil {
				t.Fatal(err)
			}
			switch trial % 5 {
			case 4:
				clear(x[off[piSite] : off[piSite]+classes]) // every weight 0: refused
			case 1:
				x[off[piSite]+rng.IntN(classes)] = 1e-251
			case 2:
				x[m.readCoord[rng.IntN(len(m.readCoord))]] = 1e-260
			case 3:
				x[off[piSite]+rng.IntN(classes)] = 0
			}
			sc.WeighValues(x, zs, w, ok)
			if lo, hi, fine := sc.margBounds(); fine && productsInRange(lo, hi, sc.sharedTable()) {
				fast++
			}
			for n, z := range zs {
				g := &m.marg[m.margIdx[z]]
				okWant := sc.groupWeights(g, want)
				if ok[n] != okWant {
					t.Fatalf("%d classes, trial %d, %s: ok %v, groupWeights %v", classes, trial, sites[z].Name, ok[n], okWant)
				}
				if !okWant {
					refused++
					continue
				}
				for v, f := range want {
					if got := w[n*classes+v]; math.Float64bits(got) != math.Float64bits(f) {
						t.Fatalf("%d classes, trial %d, %s: weight %d is %v, groupWeights %v", classes, trial, sites[z].Name, v, got, f)
					}
				}
			}
		}
		if fast < 100 || fast > 250 || refused == 0 {
			t.Fatalf("%d classes: %d of 300 states in range, %d refusals; want both paths", classes, fast, refused)
		}
	}
}

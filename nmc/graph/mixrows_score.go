package graph

import "math"

// mixRun scores the leading run of blanket entries bl that are elements of mixture
// factor mf (the elements are those of one factor, mf.f) and returns their summed
// log density and how many entries it used; with deriv it adds their derivatives
// with respect to the active coordinates to the accumulators. With skipConst, a
// run none of whose shared scalars the active coordinates move contributes 0, as
// factorElem's elements would. A row that is NaN, +Inf or −Inf makes the sum −Inf,
// as the Factor's element would (see mixrows.go).
func (s *scorer) mixRun(mf *mixFactor, bl []entry, deriv, skipConst bool) (float64, int) {
	n := 0
	for n < len(bl) && int(bl[n].f) == mf.f {
		n++
	}
	run := bl[:n]
	ms := s.mixScratch(mf)
	s.top = 0
	s.ops.ar.top = 0
	anyDep := false
	for i, nd := range mf.nodes {
		s.eval(nd, 0, ms.jets[i:i+1])
		anyDep = anyDep || ms.jets[i].kind != jConst
	}
	if skipConst && !anyDep {
		return 0, n
	}
	deriv = deriv && anyDep
	for p, ni := range mf.extNode {
		ms.pv[p] = ms.jets[ni].v
	}
	ms.setActive(mf, deriv)
	t := s.mixRows(mf, ms, run, deriv)
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return math.Inf(-1), n
	}
	if deriv {
		ms.toNodes(mf)
		ms.dropUnread()
		s.chainSums(ms.jets, ms.gn, ms.hn)
	}
	return t, n
}

// dropUnread makes constant the jets of the nodes whose sums are all 0 (a weight
// whose every term has responsibility 0), so that chainSums does not multiply 0
// by their derivatives, which may be infinite (log w at w = 0), as the element
// path skips such terms.
func (ms *mixScratch) dropUnread() {
	nn := len(ms.jets)
	for a := range ms.jets {
		if ms.jets[a].kind == jConst || ms.gn[a] != 0 {
			continue
		}
		zero := true
		for b := range nn {
			zero = zero && ms.hn[a*nn+b] == 0
		}
		if zero {
			ms.jets[a] = jet{v: ms.jets[a].v}
		}
	}
}

// setActive lists the extended parameters that depend on the active coordinates
// (none without deriv) and their pairs, and clears the sums.
func (ms *mixScratch) setActive(mf *mixFactor, deriv bool) {
	ms.act, ms.pairs = ms.act[:0], ms.pairs[:0]
	clear(ms.compAct)
	clear(ms.wrt)
	clear(ms.bad)
	if !deriv {
		return
	}
	ne := len(mf.extNode)
	for p, ni := range mf.extNode {
		if ms.jets[ni].kind == jConst {
			continue
		}
		ms.act = append(ms.act, p)
		ms.g[p] = 0
		if par := mf.extPar[p]; par >= 0 {
			j := mf.extLoc[p]
			if mf.logMix {
				j--
			}
			ms.compAct[j] = true
			ms.wrt[j] |= 1 << (1 + par)
		} else {
			ms.cg[p] = 1 // θ or an offset: the local itself
		}
	}
	for a, p := range ms.act {
		for _, q := range ms.act[a:] {
			lp, lq := mf.extLoc[p], mf.extLoc[q]
			pr := mixPair{p: p, q: q, idx: p*ne + q, ll: lp*mf.nloc + lq, loc: lp, hi: -1}
			if pp, pq := mf.extPar[p], mf.extPar[q]; lp == lq && pp >= 0 && pq >= 0 {
				j := lp
				if mf.logMix {
					j--
				}
				pr.hi = ms.chOff[j] + pp*mf.comps[j].np + pq
			}
			ms.h[pr.idx] = 0
			ms.pairs = append(ms.pairs, pr)
		}
	}
}

// toNodes merges the extended parameters' sums into the nodes' (gn, hn: full
// symmetric matrix).
func (ms *mixScratch) toNodes(mf *mixFactor) {
	nn := len(mf.nodes)
	clear(ms.gn)
	clear(ms.hn)
	for _, p := range ms.act {
		ms.gn[mf.extNode[p]] += ms.g[p]
	}
	for _, pr := range ms.pairs {
		a, b := mf.extNode[pr.p], mf.extNode[pr.q]
		v := ms.h[pr.idx]
		ms.hn[a*nn+b] += v
		if pr.p != pr.q {
			ms.hn[b*nn+a] += v
		}
	}
}

// mixRows returns the summed log density of the rows of run and, with deriv, the
// sums of their derivatives in the active extended parameters in ms.g and ms.h;
// NaN or ±Inf when a row is not finite.
func (s *scorer) mixRows(mf *mixFactor, ms *mixScratch, run []entry, deriv bool) float64 {
	var lm mixWeight
	if mf.logMix {
		// θ, the first node.
		theta := ms.pv[0]
		if !(theta >= 0 && theta <= 1) {
			return math.NaN()
		}
		lm = mixWeight{math.Log(theta), math.Log1p(-theta), 1 / theta, 1 / (1 - theta)}
	}
	// Per component, the row-independent parts of the closed forms.
	// norm (valid where closed): mixNormal: μ, 1/σ, 1/σ², −log σ − log √(2π);
	// mixPoisson: λ, log λ, 1/λ.
	var norm [8][4]float64
	var closed [8]bool
	for j := range mf.comps {
		c := &mf.comps[j]
		if j >= len(norm) {
			break
		}
		pv := ms.pv[c.ext0 : c.ext0+c.np]
		switch c.kind {
		case mixNormal:
			mu, sg := pv[0], pv[1]
			if !(isFinite(mu) && sg > 0 && !math.IsInf(sg, 1)) {
				continue // the generic kernel below
			}
			is := 1 / sg
			norm[j] = [4]float64{mu, is, is * is, -math.Log(sg) - logSqrt2Pi}
			closed[j] = true
		case mixPoisson:
			l := pv[0]
			if !(l > 0 && !math.IsInf(l, 1)) {
				continue
			}
			norm[j] = [4]float64{l, math.Log(l), 1 / l}
			closed[j] = true
		}
	}
	tc, reuse := ms.rowTerms(mf, run)
	nt := mf.rowTerms()
	total := 0.0
	for _, en := range run {
		r := int(en.e)
		for j := range mf.comps {
			c := &mf.comps[j]
			y := c.y[0]
			if len(c.y) > 1 {
				y = c.y[r]
			}
			wantD := deriv && ms.compAct[j]
			var lp float64
			nv := j < len(closed) && closed[j]
			switch {
			case c.kind == mixNormal && nv:
				nc := &norm[j]
				z := (y - nc[0]) * nc[1]
				lp = -0.5*z*z + nc[3]
				if wantD {
					is, is2 := nc[1], nc[2]
					ms.cg[c.ext0], ms.cg[c.ext0+1] = z*is, (z*z-1)*is
					h := ms.ch[ms.chOff[j]:]
					h[0], h[1], h[2], h[3] = -is2, -2*z*is2, -2*z*is2, (1-3*z*z)*is2
				}
			case c.kind == mixPoisson && nv:
				nc := &norm[j]
				lp = y*nc[1] - nc[0] - c.lfact[r]
				if wantD {
					ms.cg[c.ext0] = y*nc[2] - 1
					ms.ch[ms.chOff[j]] = -y * nc[2] * nc[2]
				}
			default:
				lp = s.mixGeneric(c, ms, j, y, wantD)
			}
			if math.IsNaN(lp) || math.IsInf(lp, 1) {
				return lp
			}
			if math.IsInf(lp, -1) && ms.badParams(c, j) {
				return math.NaN() // invalid parameters: an impossible state (LogDensity)
			}
			if c.off >= 0 {
				lp += ms.pv[c.off]
			}
			ms.lv[c.loc] = lp
		}
		var tv []float64
		if tc != nil {
			tv = tc.vals[r*nt : (r+1)*nt]
		}
		var v float64
		var ok bool
		if mf.logMix {
			v, ok = lm.row(ms.lv[1], ms.lv[2], deriv, ms.d1, ms.d2, tv, reuse)
		} else {
			v, ok = ms.logSumExpRow(deriv, tv, reuse)
		}
		if !ok {
			return v
		}
		total += v
		if !deriv {
			continue
		}
		d1, d2, cg, ch := ms.d1, ms.d2, ms.cg, ms.ch
		for _, p := range ms.act {
			ms.g[p] += d1[mf.extLoc[p]] * cg[p]
		}
		for i := range ms.pairs {
			pr := &ms.pairs[i]
			w := d2[pr.ll] * cg[pr.p] * cg[pr.q]
			if pr.hi >= 0 {
				w += d1[pr.loc] * ch[pr.hi]
			}
			ms.h[pr.idx] += w
		}
	}
	if tc != nil {
		tc.ok = true
	}
	return total
}

// mixGeneric returns component c's log density at value y from its family's
// LogProb or, with wantD, Derivs (in the active parameters only where the family
// allows), writing the parameters' derivatives into ms.cg and ms.ch; they are 0
// where the log density is not finite (as LogDensity's jet is then constant).
func (s *scorer) mixGeneric(c *mixComp, ms *mixScratch, j int, y float64, wantD bool) float64 {
	na := 1 + c.np
	argv := ms.argv[:na]
	argv[0] = y
	copy(argv[1:], ms.pv[c.ext0:c.ext0+c.np])
	if !wantD {
		return c.fam.LogProb(argv, c.k)
	}
	d1, d2 := ms.ad1[:na], ms.ad2[:na*na]
	var lp float64
	switch {
	case c.partial != nil:
		lp = c.partial.DerivsOf(argv, c.k, ms.wrt[j], d1, d2, &ms.memos[j])
	case c.memo != nil:
		lp = c.memo.DerivsMemo(argv, c.k, d1, d2, &ms.memos[j])
	default:
		lp = c.fam.Derivs(argv, c.k, d1, d2)
	}
	cg, ch := ms.cg[c.ext0:c.ext0+c.np], ms.ch[ms.chOff[j]:ms.chOff[j]+c.np*c.np]
	if math.IsNaN(lp) || math.IsInf(lp, 0) {
		clear(cg)
		clear(ch)
		return lp
	}
	for a := range cg {
		if ms.wrt[j]&(1<<(1+a)) == 0 {
			cg[a] = 0
			continue
		}
		cg[a] = d1[1+a]
		for b := range c.np {
			if ms.wrt[j]&(1<<(1+b)) != 0 {
				ch[a*c.np+b] = d2[(1+a)*na+1+b]
			} else {
				ch[a*c.np+b] = 0
			}
		}
	}
	return lp
}

// badParams reports whether component c's parameters fail its family's check
// (once per call).
func (ms *mixScratch) badParams(c *mixComp, j int) bool {
	if ms.bad[j] == 0 {
		ms.bad[j] = 1
		if c.fam.CheckParams(ms.pv[c.ext0:c.ext0+c.np], c.k) != nil {
			ms.bad[j] = -1
		}
	}
	return ms.bad[j] < 0
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

package graph

import (
	"errors"
	"fmt"
	"math"

	"github.com/nmc-go/nmc/nmc"
	"github.com/nmc-go/nmc/nmc/dist"
)

// checkIndexNodes rejects an At index given by a node (ByNode) that reads a
// continuous latent: its values would not be integers, and every score through it
// NaN.
func (m *Model) checkIndexNodes() error {
	// cont: per node of the plan, a continuous latent family it reads, or nil.
	p := m.plan
	cont := make([]*family, len(p.nodes))
	for _, n := range p.nodes {
		if n.op == opLatent && m.sites[n.fam.first].Support != nmc.Discrete {
			cont[n.mid] = n.fam
			continue
		}
		for _, a := range n.args {
			if f := cont[a.mid]; f != nil {
				cont[n.mid] = f
				break
			}
		}
	}
	// Walk the declarations, for the name of the one reading it, only when some
	// node-indexed At reads a continuous latent.
	bad := false
	for _, n := range p.nodes {
		for _, in := range n.atNode {
			bad = bad || (in != nil && cont[in.mid] != nil)
		}
	}
	if !bad {
		return nil
	}
	seen := make([]bool, len(p.nodes))
	var walk func(n *Node, where string) error
	walk = func(n *Node, where string) error {
		if n == nil || seen[n.mid] {
			return nil
		}
		seen[n.mid] = true
		if n.op == opAt {
			for d, in := range n.atNode {
				if in == nil {
					continue
				}
				if f := cont[in.mid]; f != nil {
					return fmt.Errorf("graph: %s: At index %d reads the continuous latent %q; index by integer data (By) or by a discrete latent (ByNode)", where, d, f.name)
				}
			}
		}
		for _, a := range n.args {
			if err := walk(a, where); err != nil {
				return err
			}
		}
		return nil
	}
	for _, fc := range m.factors {
		where := fmt.Sprintf("observed %q", fc.name)
		if fc.fam != nil {
			where = fmt.Sprintf("latent %q", fc.name)
		}
		for _, p := range fc.d.params {
			if err := walk(p, where); err != nil {
				return err
			}
		}
	}
	for _, d := range m.derived {
		if err := walk(d.n, fmt.Sprintf("deterministic %q", d.name)); err != nil {
			return err
		}
	}
	return nil
}

func addDep(deps []int, s int) []int {
	for _, d := range deps {
		if d == s {
			return deps
		}
	}
	return append(deps, s)
}

// support returns the support of element e of a latent family. Parameters that
// set bounds must be constant.
func (m *Model) support(f *family, e int) (nmc.Support, float64, float64, int, error) {
	params := make([]float64, 0, 8)
	allConst := true
	for _, p := range f.d.params {
		if !isConst(p) {
			allConst = false
		}
	}
	sc := m.constScorer()
	for _, p := range f.d.params {
		pe := e
		if p.length == 1 {
			pe = 0
		}
		if isConst(p) {
			params = sc.appendValues(p, pe, params)
		} else {
			// A placeholder: kinds never depend on non-constant parameters except
			// through bounds, which are checked below.
			for c := 0; c < p.width; c++ {
				params = append(params, math.NaN())
			}
		}
	}
	kind, lo, hi, nv := f.d.fam.Support(params, f.d.k)
	// Bounds that do not depend on the parameters (Beta's (0, 1)) come back as
	// numbers from the NaN placeholders; bounds that do come back NaN.
	if !allConst && ((kind == nmc.Interval && (math.IsNaN(lo) || math.IsNaN(hi))) || (kind == nmc.Positive && lo != 0)) {
		return 0, 0, 0, 0, fmt.Errorf("graph: latent %q: the bounds of its %s prior must be constant; for bounds given by nodes declare it with Bounded", f.name, f.d.fam.Name())
	}
	if kind == nmc.Discrete && (math.IsNaN(hi) || nv < 0) {
		// A bound from a non-constant parameter (Binomial's n from a latent): the
		// placeholder gave NaN, and int(NaN)+1 is meaningless. Unbounded instead;
		// values above the current bound score −Inf.
		hi, nv = math.Inf(1), 0
	}
	return kind, lo, hi, nv, nil
}

// checkFactor validates constant parameters and observed values of a factor.
func (m *Model) checkFactor(fc *factor) error {
	what := "latent"
	if fc.fam == nil {
		what = "observed"
	}
	allConst := true
	for _, p := range fc.d.params {
		if !isConst(p) {
			allConst = false
		}
	}
	sc := m.constScorer()
	vw := fc.width
	args := make([]float64, 0, m.maxArgs+vw+16)
	for e := 0; e < fc.length; e++ {
		args = args[:0]
		if fc.obs != nil {
			args = append(args, fc.obs[e*vw:(e+1)*vw]...)
		} else {
			for c := 0; c < vw; c++ {
				args = append(args, 0)
			}
		}
		constNow := true
		for _, p := range fc.d.params {
			pe := e
			if p.length == 1 {
				pe = 0
			}
			if isConst(p) {
				args = sc.appendValues(p, pe, args)
			} else {
				constNow = false
				for c := 0; c < p.width; c++ {
					args = append(args, math.NaN())
				}
			}
		}
		if allConst || constNow {
			if err := fc.d.fam.CheckParams(args[vw:], fc.d.k); err != nil {
				return fmt.Errorf("graph: %s %q, element %d: %w", what, fc.name, e, err)
			}
			if fc.obs != nil && !fc.d.fam.InSupport(args, fc.d.k) {
				return fmt.Errorf("graph: observed %q, element %d: value %v is outside the support of %s", fc.name, e, fc.obs[e*vw:(e+1)*vw], fc.d.fam.Name())
			}
		} else {
			if err := checkConstParams(fc.d, args[vw:]); err != nil {
				return fmt.Errorf("graph: %s %q, element %d: %w", what, fc.name, e, err)
			}
		}
		if !(allConst || constNow) && fc.obs != nil {
			// Parameters depend on latents: check the value against the support kind.
			kind, lo, hi, nv := fc.d.fam.Support(args[vw:], fc.d.k)
			if !valueInKind(fc.obs[e*vw:(e+1)*vw], kind, lo, hi, nv) {
				return fmt.Errorf("graph: observed %q, element %d: value %v is outside the support of %s", fc.name, e, fc.obs[e*vw:(e+1)*vw], fc.d.fam.Name())
			}
		}
	}
	return nil
}

// paramTrials are the values given in turn to the latent-dependent scalar
// parameters by checkConstParams: ordinary values, and extremes that satisfy a
// relation with a constant parameter (Uniform's a < b) whatever its value.
var paramTrials = [...]float64{1, 0.5, 2, -1e9, 1e9}

// checkConstParams checks the constant parameters of a factor element whose other
// parameters depend on latents (NaN in params). CheckParams looks at all parameters
// at once, so the latent-dependent ones are given trial values (scalars from
// paramTrials, vectors 1/width per component); a constant parameter is reported
// only if no trial passes and one failed on it.
func checkConstParams(d *Dist, params []float64) error {
	_, pw := d.fam.Layout(d.k)
	names := d.fam.ParamNames()
	trial := append([]float64(nil), params...)
	var constErr error
	for _, tv := range paramTrials {
		at := 0
		for i, p := range d.params {
			if !isConst(p) {
				for c := 0; c < pw[i]; c++ {
					if pw[i] == 1 {
						trial[at+c] = tv
					} else {
						trial[at+c] = 1 / float64(pw[i])
					}
				}
			}
			at += pw[i]
		}
		err := d.fam.CheckParams(trial, d.k)
		if err == nil {
			return nil
		}
		var pe *dist.ParamError
		if !errors.As(err, &pe) {
			continue
		}
		for i, name := range names {
			if name == pe.Param && i < len(d.params) && isConst(d.params[i]) && constErr == nil {
				constErr = err
			}
		}
	}
	return constErr
}

func valueInKind(v []float64, kind nmc.Support, lo, hi float64, nv int) bool {
	for _, x := range v {
		switch kind {
		case nmc.Positive:
			if !(x > lo) && !math.IsNaN(lo) {
				return false
			}
		case nmc.Interval:
			if !(x > lo && x < hi) && !math.IsNaN(lo) && !math.IsNaN(hi) {
				return false
			}
		case nmc.Discrete:
			if x != math.Trunc(x) || x < 0 || (nv > 0 && x >= float64(nv)) {
				return false
			}
		}
	}
	if kind == nmc.Simplex {
		s := 0.0
		for _, x := range v {
			if !(x >= 0) {
				return false
			}
			s += x
		}
		return math.Abs(s-1) < 1e-9
	}
	return true
}

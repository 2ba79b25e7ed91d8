// Package draws holds MCMC draws of named scalar quantities, chain by chain: the
// exchange type between the sampler (package nmc), the diagnostics, the plots and
// files (package frames). It depends on nothing outside the standard library, so a
// package that handles draws does not pull in data-frame or plotting libraries.
//
// SiteStats, the acceptance and fallback counts of a sampled site, travels with the
// draws of a run from the sampler to the tables and plots.
//
// Chains, draws and indices are numbered from 0. Names are the scalar quantities:
// "alpha", "beta[0]", "theta[2,1]".
package draws

import (
	"fmt"
	"strings"
)

// Draws holds MCMC draws of named scalar quantities, chain by chain. It is the
// exchange type between the sampler, the diagnostics, the plots and CSV files.
//
// Chains[c] holds the draws of chain c row-major: draw d of parameter p is
// Chains[c][d*len(Names)+p]. Chains may differ in length only in a run that was
// cancelled; Trimmed gives the common prefix.
type Draws struct {
	// Names are the scalar quantities, e.g. "alpha", "beta[0]", "theta[2,1]" (0-based).
	Names []string
	// Chains holds the values, one row-major draws × len(Names) slice per chain.
	Chains [][]float64
}

// NumChains returns the number of chains.
func (d *Draws) NumChains() int { return len(d.Chains) }

// NumDraws returns the number of draws of chain c.
func (d *Draws) NumDraws(c int) int {
	if len(d.Names) == 0 {
		return 0
	}
	return len(d.Chains[c]) / len(d.Names)
}

// Validate checks that every chain holds a whole number of rows and that the names
// are non-empty and unique.
func (d *Draws) Validate() error {
	if d == nil {
		return fmt.Errorf("draws: nil draws")
	}
	if len(d.Names) == 0 {
		return fmt.Errorf("draws: draws have no parameters")
	}
	seen := make(map[string]int, len(d.Names))
	for i, n := range d.Names {
		if n == "" {
			return fmt.Errorf("draws: parameter %d has an empty name", i)
		}
		if j, ok := seen[n]; ok {
			return fmt.Errorf("draws: parameter name %q appears twice (columns %d and %d)", n, j, i)
		}
		seen[n] = i
	}
	for c, ch := range d.Chains {
		if len(ch)%len(d.Names) != 0 {
			return fmt.Errorf("draws: chain %d holds %d values, not a multiple of %d parameters", c, len(ch), len(d.Names))
		}
	}
	return nil
}

// Index returns the column of the named parameter, or an error naming it.
func (d *Draws) Index(name string) (int, error) {
	for i, n := range d.Names {
		if n == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("draws: unknown parameter %q", name)
}

// Param returns the draws of one parameter as [chain][draw], copying them. Chains of
// unequal length are returned as they are.
func (d *Draws) Param(name string) ([][]float64, error) {
	p, err := d.Index(name)
	if err != nil {
		return nil, err
	}
	return d.Column(p), nil
}

// Column returns the draws of parameter column p as [chain][draw], copying them.
func (d *Draws) Column(p int) [][]float64 {
	np := len(d.Names)
	out := make([][]float64, len(d.Chains))
	for c, ch := range d.Chains {
		n := len(ch) / np
		v := make([]float64, n)
		for i := range v {
			v[i] = ch[i*np+p]
		}
		out[c] = v
	}
	return out
}

// Match returns the names selected by sel: an exact name, or a prefix that selects
// every element of an indexed family ("beta" selects "beta[0]", "beta[1]", …).
// It returns an error if nothing matches.
func (d *Draws) Match(sel string) ([]string, error) {
	var out []string
	for _, n := range d.Names {
		if n == sel || (strings.HasPrefix(n, sel) && strings.HasPrefix(n[len(sel):], "[")) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("draws: no parameter matches %q", sel)
	}
	return out, nil
}

// Trimmed returns draws whose chains all have the length of the shortest chain
// (sharing memory with d).
func (d *Draws) Trimmed() *Draws {
	if len(d.Chains) == 0 || len(d.Names) == 0 {
		return d
	}
	n := d.NumDraws(0)
	for c := range d.Chains {
		n = min(n, d.NumDraws(c))
	}
	out := &Draws{Names: d.Names, Chains: make([][]float64, len(d.Chains))}
	for c, ch := range d.Chains {
		out.Chains[c] = ch[:n*len(d.Names)]
	}
	return out
}

// Select returns the draws of the parameters chosen by selectors, copied, in the
// order the selectors name them (each parameter at most once). A selector is an
// exact name or the name of an indexed family: "beta" selects "beta[0]",
// "beta[1]", … (see Draws.Match). It returns an error if d is invalid, if no
// selector is given, or naming a selector that matches nothing.
func Select(d *Draws, selectors ...string) (*Draws, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if len(selectors) == 0 {
		return nil, fmt.Errorf("draws: select: no selectors given")
	}
	var names []string
	var idx []int
	seen := make(map[string]bool)
	for _, sel := range selectors {
		m, err := d.Match(sel)
		if err != nil {
			return nil, err
		}
		for _, n := range m {
			if seen[n] {
				continue
			}
			seen[n] = true
			p, _ := d.Index(n)
			names = append(names, n)
			idx = append(idx, p)
		}
	}
	np := len(d.Names)
	out := &Draws{Names: names, Chains: make([][]float64, len(d.Chains))}
	for c, ch := range d.Chains {
		n := len(ch) / np
		v := make([]float64, 0, n*len(idx))
		for i := range n {
			row := ch[i*np : (i+1)*np]
			for _, p := range idx {
				v = append(v, row[p])
			}
		}
		out.Chains[c] = v
	}
	return out, nil
}
